//go:build unix

package scan

import (
	"syscall"
	"time"
)

// processCPU is the user+system CPU time this process has used. The
// machine running benchmarks is often shared, so CPU time, not wall time,
// is the honest denominator of a per-core throughput.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

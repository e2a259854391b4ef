//go:build unix

package testkit

import (
	"syscall"
	"time"
)

// ProcessCPU is the user+system CPU time this process has used.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

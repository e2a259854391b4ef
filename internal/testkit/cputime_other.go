//go:build !unix

package testkit

import "time"

// ProcessCPU is 0 where the process's CPU time is not available; the
// benchmarks then report no per-CPU-second figure.
func ProcessCPU() time.Duration { return 0 }

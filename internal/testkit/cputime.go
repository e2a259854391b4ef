package testkit

import (
	"testing"
	"time"
)

// CPUMeter measures the CPU time this process spends in a benchmark's
// loop. The machines that run benchmarks are often shared, so CPU time,
// not wall time, is the honest denominator of a per-core throughput.
type CPUMeter struct{ start time.Duration }

// StartCPU starts a meter; call it right after b.ResetTimer.
func StartCPU() CPUMeter { return CPUMeter{start: ProcessCPU()} }

// ReportMBps reports bytes*b.N per CPU second as "MB/cpu-s" and returns
// the CPU time spent since the meter started (0 where the platform does
// not tell, in which case nothing is reported).
func (m CPUMeter) ReportMBps(b *testing.B, bytes int) time.Duration {
	cpu := ProcessCPU() - m.start
	if cpu > 0 {
		b.ReportMetric(float64(bytes)*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
	}
	return cpu
}

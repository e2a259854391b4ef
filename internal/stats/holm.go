package stats

import (
	"math"
	"sort"
)

// Holm adjusts a family of p-values with Holm's step-down method, which
// controls the family-wise error rate without assuming independence: the
// i-th smallest p (0-based) is multiplied by m-i, the running maximum is
// kept so the adjusted values stay in the order of the raw ones, and each
// is capped at 1. The result is in the order of ps.
func Holm(ps []float64) []float64 {
	m := len(ps)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	out := make([]float64, m)
	running := 0.0
	for rank, i := range idx {
		v := math.Min(1, float64(m-rank)*ps[i])
		running = math.Max(running, v)
		out[i] = running
	}
	return out
}

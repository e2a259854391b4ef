package stats

import "math"

// Z95 is the standard normal quantile for a two-sided 95% interval.
const Z95 = 1.959963984540054

// Interval is a proportion's confidence interval together with the counts
// it was computed from, so a reader always sees the denominator.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	K    int     `json:"k"`
	N    int     `json:"n"`
}

// Wilson returns the 95% Wilson score interval for k successes in n
// trials. Wilson is used instead of the normal approximation because it
// stays inside [0,1] and behaves at k = 0 and k = n, which is where
// attack-success rates of well-defended arms live. n = 0 carries no
// information, so the interval is the whole of [0,1].
func Wilson(k, n int) Interval {
	return WilsonZ(k, n, Z95)
}

// WilsonZ is Wilson with an explicit normal quantile z.
func WilsonZ(k, n int, z float64) Interval {
	if n <= 0 {
		return Interval{Low: 0, High: 1, K: k, N: n}
	}
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	denom := 1 + z2/nf
	center := (p + z2/(2*nf)) / denom
	half := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / denom
	lo, hi := center-half, center+half
	// At k = 0 the lower bound is 0 and at k = n the upper bound is 1 in
	// exact arithmetic; floating point leaves a residue such as 5.6e-17,
	// which readers take for a real (tiny) rate. Pin them, and keep any
	// other rounding inside [0,1].
	switch {
	case k <= 0:
		lo = 0
	case lo < 0:
		lo = 0
	}
	switch {
	case k >= n:
		hi = 1
	case hi > 1:
		hi = 1
	}
	return Interval{Low: lo, High: hi, K: k, N: n}
}

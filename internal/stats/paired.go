package stats

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"sort"
)

// PairedCounts are the four transitions of one boolean property between a
// reference and a defended run on the same ids.
type PairedCounts struct {
	KeptSuccess int `json:"kept_success"`
	Lost        int `json:"lost"`
	Gained      int `json:"gained"`
	KeptFailure int `json:"kept_failure"`
}

// Add counts one pair.
func (c *PairedCounts) Add(ref, def bool) {
	switch {
	case ref && def:
		c.KeptSuccess++
	case ref:
		c.Lost++
	case def:
		c.Gained++
	default:
		c.KeptFailure++
	}
}

// N is the number of pairs counted.
func (c PairedCounts) N() int { return c.KeptSuccess + c.Lost + c.Gained + c.KeptFailure }

// Paired is the paired control effect of a defense on one property. Two
// equal rates can hide a defense that breaks some items and fixes others,
// which is why the four transitions are kept.
type Paired struct {
	Pairs         int          `json:"pairs"`
	Counts        PairedCounts `json:"counts"`
	ReferenceRate float64      `json:"reference_rate"`
	DefendedRate  float64      `json:"defended_rate"`
	GainRate      float64      `json:"gain_rate"`
	LossRate      float64      `json:"loss_rate"`
	// NetEffect is (gained − lost)/N, which equals defended_rate −
	// reference_rate.
	NetEffect float64 `json:"net_effect"`
	// McNemarP is the two-sided exact McNemar p-value from the discordant
	// pairs (lost, gained).
	McNemarP float64 `json:"mcnemar_p"`
	// McNemarPHolm is McNemarP adjusted with Holm's step-down method over
	// a family of HolmFamily comparisons. The run reports set it for the
	// arms compared with none on the same model, class, register and
	// metric; a single stats paired comparison has no family and omits it.
	McNemarPHolm *float64 `json:"mcnemar_p_holm,omitempty"`
	HolmFamily   int      `json:"holm_family,omitempty"`
	// Bootstrap95 is set by PairedWithBootstrap.
	Bootstrap95 *BootstrapInterval `json:"net_effect_bootstrap_95,omitempty"`
}

// FromCounts derives the rates of a paired comparison from its counts. It
// returns nil when there are no pairs.
func FromCounts(c PairedCounts) *Paired {
	n := c.N()
	if n == 0 {
		return nil
	}
	nf := float64(n)
	return &Paired{
		Pairs:         n,
		Counts:        c,
		ReferenceRate: float64(c.KeptSuccess+c.Lost) / nf,
		DefendedRate:  float64(c.KeptSuccess+c.Gained) / nf,
		GainRate:      float64(c.Gained) / nf,
		LossRate:      float64(c.Lost) / nf,
		NetEffect:     float64(c.Gained-c.Lost) / nf,
		McNemarP:      McNemarExact(c.Lost, c.Gained),
	}
}

// ComparePaired computes the paired effect between reference and defended
// labels keyed by the same ids. Different id sets are an error: dropping
// the items a defense broke would change the denominator and hide the
// loss.
func ComparePaired(reference, defended map[string]bool) (*Paired, error) {
	if err := sameIDs(reference, defended); err != nil {
		return nil, err
	}
	var c PairedCounts
	for id, r := range reference {
		c.Add(r, defended[id])
	}
	return FromCounts(c), nil
}

func sameIDs(reference, defended map[string]bool) error {
	if len(reference) == 0 {
		return fmt.Errorf("reference: %w", ErrEmpty)
	}
	if len(defended) == 0 {
		return fmt.Errorf("defended: %w", ErrEmpty)
	}
	for _, id := range sortedKeys(reference) {
		if _, ok := defended[id]; !ok {
			return fmt.Errorf("%w: id %q is in the reference but not in the defended table", ErrIDMismatch, id)
		}
	}
	for _, id := range sortedKeys(defended) {
		if _, ok := reference[id]; !ok {
			return fmt.Errorf("%w: id %q is in the defended but not in the reference table", ErrIDMismatch, id)
		}
	}
	return nil
}

// McNemarExact returns the two-sided exact McNemar p-value for b and c
// discordant pairs: twice the lower binomial tail of min(b, c) under
// Binomial(b+c, 1/2), capped at 1. With no discordant pairs there is no
// evidence either way and p = 1.
func McNemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	m := min(b, c)
	if 2*m == n {
		return 1
	}
	if n <= 1000 {
		// 2^-n is still a normal float64 here, so the plain recurrence
		// C(n,i+1) = C(n,i)·(n−i)/(i+1) is exact enough and gives clean
		// values such as 0.0625 for (0, 5).
		t := math.Ldexp(1, -n)
		sum := 0.0
		for i := 0; i <= m; i++ {
			sum += t
			t = t * float64(n-i) / float64(i+1)
		}
		return math.Min(1, 2*sum)
	}
	// Beyond that, sum the tail in log space so 2^-n does not underflow.
	lnN1, _ := math.Lgamma(float64(n + 1))
	ln2n := float64(n) * math.Ln2
	terms := make([]float64, 0, m+1)
	maxT := math.Inf(-1)
	for i := 0; i <= m; i++ {
		a, _ := math.Lgamma(float64(i + 1))
		bb, _ := math.Lgamma(float64(n - i + 1))
		t := lnN1 - a - bb - ln2n
		terms = append(terms, t)
		maxT = math.Max(maxT, t)
	}
	sum := 0.0
	for _, t := range terms {
		sum += math.Exp(t - maxT)
	}
	return math.Min(1, 2*math.Exp(maxT)*sum)
}

// BootstrapInterval is a percentile bootstrap interval for the net effect.
type BootstrapInterval struct {
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	Reps     int     `json:"reps"`
	Seed     uint64  `json:"seed"`
	Clusters int     `json:"clusters"`
	// Warning is set when there are fewer than MinBootstrapClusters
	// clusters.
	Warning string `json:"warning,omitempty"`
}

// MinBootstrapClusters is the fewest clusters for which the cluster
// bootstrap's percentile interval is worth reading as a 95% interval: with
// fewer, the resamples take only a handful of distinct values and the
// interval's coverage falls well short of 95%.
const MinBootstrapClusters = 10

// fewClustersWarning says why an interval over n clusters is unreliable.
func fewClustersWarning(n int) string {
	if n >= MinBootstrapClusters {
		return ""
	}
	return fmt.Sprintf("only %d clusters (fewer than %d): the bootstrap interval is unreliable; read it as a rough range, not a 95%% interval", n, MinBootstrapClusters)
}

// BootstrapOptions control the cluster bootstrap.
type BootstrapOptions struct {
	// Reps is the number of resamples; 0 means 2000.
	Reps int
	// Seed makes the interval reproducible.
	Seed uint64
	// Cluster maps each id to its cluster (typically its task id, since
	// cases of one task share a fixture and are not independent). Nil
	// makes every id its own cluster; a non-nil map must cover every id.
	Cluster map[string]string
}

// BootstrapNetEffect returns a 95% percentile interval for the paired net
// effect by resampling whole clusters with replacement. Resampling clusters
// rather than ids keeps correlated items (the goals of one task) together,
// so the interval is not falsely narrow. The result depends only on the
// inputs and the seed.
func BootstrapNetEffect(reference, defended map[string]bool, opt BootstrapOptions) (*BootstrapInterval, error) {
	if err := sameIDs(reference, defended); err != nil {
		return nil, err
	}
	reps := opt.Reps
	if reps <= 0 {
		reps = 2000
	}
	if reps > MaxBootstrapReps {
		return nil, fmt.Errorf("%w: %d bootstrap resamples, at most %d", ErrOption, reps, MaxBootstrapReps)
	}
	type agg struct{ diff, n int }
	byCluster := map[string]*agg{}
	for _, id := range sortedKeys(reference) {
		cl := id
		if opt.Cluster != nil {
			c, ok := opt.Cluster[id]
			if !ok {
				return nil, fmt.Errorf("bootstrap clusters: id %q has no cluster: %w", id, ErrIDMismatch)
			}
			cl = c
		}
		a := byCluster[cl]
		if a == nil {
			a = &agg{}
			byCluster[cl] = a
		}
		a.diff += b2i(defended[id]) - b2i(reference[id])
		a.n++
	}
	names := sortedKeys(byCluster)
	cl := make([]agg, len(names))
	for i, name := range names {
		cl[i] = *byCluster[name]
	}
	rng := rand.NewPCG(opt.Seed, 0x6d637073656321) // stream fixed by the seed alone
	nets := make([]float64, reps)
	k := uint64(len(cl))
	for r := range nets {
		diff, n := 0, 0
		for range cl {
			c := cl[boundedUint(rng, k)]
			diff += c.diff
			n += c.n
		}
		nets[r] = float64(diff) / float64(n)
	}
	sort.Float64s(nets)
	return &BootstrapInterval{
		Low:      quantile(nets, 0.025),
		High:     quantile(nets, 0.975),
		Reps:     reps,
		Seed:     opt.Seed,
		Clusters: len(cl),
		Warning:  fewClustersWarning(len(cl)),
	}, nil
}

// boundedUint draws uniformly from [0, n) with Lemire's multiply-and-reject
// method; written out here so the stream does not depend on how a library
// version maps random bits to ranges.
func boundedUint(src *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// quantile is the linear-interpolation (type 7) quantile of sorted xs.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 1 {
		return xs[0]
	}
	pos := q * float64(len(xs)-1)
	i := int(math.Floor(pos))
	if i >= len(xs)-1 {
		return xs[len(xs)-1]
	}
	frac := pos - float64(i)
	return xs[i] + frac*(xs[i+1]-xs[i])
}

// PairedWithBootstrap is ComparePaired plus the cluster bootstrap interval.
func PairedWithBootstrap(reference, defended map[string]bool, opt BootstrapOptions) (*Paired, error) {
	p, err := ComparePaired(reference, defended)
	if err != nil {
		return nil, err
	}
	b, err := BootstrapNetEffect(reference, defended, opt)
	if err != nil {
		return nil, err
	}
	p.Bootstrap95 = b
	return p, nil
}

package textclass

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// Model is a logistic regression over hashed features.
type Model struct {
	Bias float32
	// W holds a weight per hashed feature (len Dims).
	W []float32
}

// Margin is the model's log-odds for v.
func (m *Model) Margin(v Vector) float64 {
	var s float32
	for _, i := range v.Idx {
		s += m.W[i]
	}
	return float64(m.Bias) + float64(s*v.Scale)
}

// MarginOf is Margin of a builder's finished features, without a copy.
func (m *Model) MarginOf(b *Builder) float64 {
	var s float32
	for _, i := range b.idx {
		s += m.W[i]
	}
	return float64(m.Bias) + float64(s*b.scale)
}

// Sigmoid turns a margin into a probability.
func Sigmoid(x float64) float64 { return sigmoid(x) }

// Score is the model's probability that v is positive.
func (m *Model) Score(v Vector) float64 { return sigmoid(m.Margin(v)) }

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// Example is one training vector and its label.
type Example struct {
	V        Vector
	Positive bool
}

// TrainOptions tune Train; the zero value is not usable, see Defaults.
type TrainOptions struct {
	Epochs int
	L2     float64
	Rate   float64
	Seed   uint64
	// Runs is how many pairs TrainPair trains, with seeds Seed,
	// Seed+1, ..., and averages: one run's weights depend on the order
	// it met the examples in, and the average of several depends less
	// on it. The average is still one linear model, as fast to apply.
	Runs int
}

// Defaults are the options the scanner's model was trained with.
var Defaults = TrainOptions{Epochs: 10, L2: 1e-4, Rate: 0.5, Seed: 1, Runs: 5}

// Train fits a logistic regression by per-example AdaGrad with L2, classes
// weighted to equal total weight. The example order is shuffled with a
// fixed seed, so the same data and options give the same model.
func Train(data []Example, o TrainOptions) *Model {
	m := &Model{W: make([]float32, Dims)}
	if len(data) == 0 {
		return m
	}
	g2 := make([]float64, Dims)
	var gb2 float64
	npos := 0
	for _, e := range data {
		if e.Positive {
			npos++
		}
	}
	nneg := len(data) - npos
	wp, wn := 1.0, 1.0
	if npos > 0 && nneg > 0 {
		wp = float64(len(data)) / (2 * float64(npos))
		wn = float64(len(data)) / (2 * float64(nneg))
	}
	order := make([]int, len(data))
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	for ep := 0; ep < o.Epochs; ep++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, k := range order {
			e := data[k]
			p := m.Score(e.V)
			y, cw := 0.0, wn
			if e.Positive {
				y, cw = 1, wp
			}
			gr := (p - y) * cw
			gb := gr
			gb2 += gb * gb
			m.Bias -= float32(o.Rate * gb / (math.Sqrt(gb2) + 1e-8))
			sc := float64(e.V.Scale)
			for _, i := range e.V.Idx {
				g := float64(gr*sc) + float64(o.L2*float64(m.W[i]))
				g2[i] += float64(g * g)
				m.W[i] -= float32(o.Rate * g / (math.Sqrt(g2[i]) + 1e-8))
			}
		}
	}
	return m
}

// The encoding: magic, feature count, bias, then (index, weight) pairs of
// the non-zero weights in index order, little-endian.
var magic = [8]byte{'m', 'c', 'p', 's', 't', 'c', '0', '1'}

// ErrModel marks bytes that are not an encoded model.
var ErrModel = errors.New("not a text model")

// MarshalBinary encodes the model's non-zero weights.
func (m *Model) MarshalBinary() ([]byte, error) {
	var idx []uint32
	for i, w := range m.W {
		if w != 0 {
			idx = append(idx, uint32(i))
		}
	}
	out := make([]byte, 0, 16+8*len(idx))
	out = append(out, magic[:]...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(idx)))
	out = binary.LittleEndian.AppendUint32(out, math.Float32bits(m.Bias))
	for _, i := range idx {
		out = binary.LittleEndian.AppendUint32(out, i)
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(m.W[i]))
	}
	return out, nil
}

// UnmarshalBinary decodes what MarshalBinary wrote.
func (m *Model) UnmarshalBinary(b []byte) error {
	if len(b) < 16 || !slices.Equal(b[:8], magic[:]) {
		return fmt.Errorf("%w: bad header", ErrModel)
	}
	n := int(binary.LittleEndian.Uint32(b[8:]))
	if len(b) != 16+8*n {
		return fmt.Errorf("%w: %d bytes for %d weights", ErrModel, len(b), n)
	}
	m.Bias = math.Float32frombits(binary.LittleEndian.Uint32(b[12:]))
	m.W = make([]float32, Dims)
	for k := 0; k < n; k++ {
		o := 16 + 8*k
		i := binary.LittleEndian.Uint32(b[o:])
		if i >= Dims {
			return fmt.Errorf("%w: feature %d out of range", ErrModel, i)
		}
		m.W[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[o+4:]))
	}
	return nil
}

// Bag is one labelled item (a tool, a server's instructions) seen whole and
// as its parts (sentences, schema values).
type Bag struct {
	Whole    Vector
	Parts    []Vector
	Positive bool
}

// Pair judges a bag twice: as a whole, and by its most suspicious part.
// Poison is usually one sentence in a page of honest documentation; the
// whole-text model sees the page, the part model finds the sentence.
type Pair struct {
	Whole, Part *Model
}

// milRounds is how often the part model re-picks each positive bag's
// most suspicious part and is retrained.
const milRounds = 2

// TrainPair trains o.Runs pairs (see trainPairOnce), each with its own
// seed, and averages their weights.
func TrainPair(bags []Bag, o TrainOptions) *Pair {
	runs := max(o.Runs, 1)
	// The runs are independent; train them side by side and add them up
	// in seed order, so the sum is the same however they were scheduled.
	pairs := make([]*Pair, runs)
	var wg sync.WaitGroup
	for k := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok := o
			ok.Seed = o.Seed + uint64(k)
			pairs[k] = trainPairOnce(bags, ok)
		}()
	}
	wg.Wait()
	sum := pairs[0]
	for _, p := range pairs[1:] {
		for _, m := range [][2]*Model{{sum.Whole, p.Whole}, {sum.Part, p.Part}} {
			m[0].Bias += m[1].Bias
			for i, w := range m[1].W {
				m[0].W[i] += w
			}
		}
	}
	for _, m := range []*Model{sum.Whole, sum.Part} {
		m.Bias /= float32(runs)
		for i := range m.W {
			m.W[i] /= float32(runs)
		}
	}
	return sum
}

// trainPairOnce trains the whole-text model on the bags, then the part model
// on every part of the negative bags against the one part of each
// positive bag that the previous model finds most suspicious (only the
// bag's label is known, not which of its parts carries the poison).
func trainPairOnce(bags []Bag, o TrainOptions) *Pair {
	whole := make([]Example, len(bags))
	for i, b := range bags {
		whole[i] = Example{V: b.Whole, Positive: b.Positive}
	}
	p := &Pair{Whole: Train(whole, o)}
	pick := p.Whole
	for r := 0; r < milRounds; r++ {
		var parts []Example
		for _, b := range bags {
			if !b.Positive {
				for _, v := range b.Parts {
					parts = append(parts, Example{V: v})
				}
				continue
			}
			if _, k := maxPart(pick, b.Parts); k >= 0 {
				parts = append(parts, Example{V: b.Parts[k], Positive: true})
			}
		}
		p.Part = Train(parts, o)
		pick = p.Part
	}
	return p
}

func maxPart(m *Model, parts []Vector) (float64, int) {
	best, k := math.Inf(-1), -1
	for i, v := range parts {
		if s := m.Margin(v); s > best {
			best, k = s, i
		}
	}
	return best, k
}

// Score is the mean of the whole-text probability and the most
// suspicious part's probability, and that part's index (-1 without parts).
func (p *Pair) Score(whole Vector, parts []Vector) (float64, int) {
	w := p.Whole.Score(whole)
	m, k := maxPart(p.Part, parts)
	if k < 0 {
		return w / 2, -1
	}
	return (w + sigmoid(m)) / 2, k
}

// MarshalBinary encodes both models, whole first, each with its length.
func (p *Pair) MarshalBinary() ([]byte, error) {
	var out []byte
	for _, m := range []*Model{p.Whole, p.Part} {
		b, err := m.MarshalBinary()
		if err != nil {
			return nil, err
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(len(b)))
		out = append(out, b...)
	}
	return out, nil
}

// UnmarshalBinary decodes what MarshalBinary wrote.
func (p *Pair) UnmarshalBinary(b []byte) error {
	p.Whole, p.Part = &Model{}, &Model{}
	for _, m := range []*Model{p.Whole, p.Part} {
		if len(b) < 4 {
			return fmt.Errorf("%w: truncated", ErrModel)
		}
		n := int(binary.LittleEndian.Uint32(b))
		if len(b) < 4+n {
			return fmt.Errorf("%w: truncated", ErrModel)
		}
		if err := m.UnmarshalBinary(b[4 : 4+n]); err != nil {
			return err
		}
		b = b[4+n:]
	}
	if len(b) != 0 {
		return fmt.Errorf("%w: %d trailing bytes", ErrModel, len(b))
	}
	return nil
}

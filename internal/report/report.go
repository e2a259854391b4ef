// Package report aggregates a run's trials.jsonl into per-cell rates with
// Wilson intervals and paired effects against the undefended arm, and
// writes them as JSON, CSV and Markdown (one file per format).
//
// Aggregation streams: memory grows with the number of distinct cells and
// cases, never with the number of trial lines, so re-running a report over
// a large sweep is cheap.
package report

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/mcpsec/mcpsec/internal/model"
	"github.com/mcpsec/mcpsec/internal/stats"
	"github.com/mcpsec/mcpsec/internal/trial"
)

// SchemaVersion of summary.json. Bump it when a field is renamed or
// removed; adding fields is compatible.
const SchemaVersion = 1

// TrialsFile is the name of the trial log inside a run directory.
const TrialsFile = trial.LogFile

// NoneArm is the undefended arm every other arm is compared with.
const NoneArm = trial.None

// AllObjectives is the objective name of roll-up cells, which sum a
// (model, arm, register, class) over its objectives.
const AllObjectives = "*"

// ErrMalformed is wrapped by errors about a malformed trials.jsonl line.
var ErrMalformed = trial.ErrMalformed

// Metric names, in report order. Each is a per-trial proportion over the
// completed (non-errored) trials of a cell, except asr_given_exposed whose
// denominator is the exposed trials only.
const (
	MetricAttempted       = "attempted"
	MetricASRRealized     = "asr_realized"
	MetricBlocked         = "blocked"
	MetricCanary          = "canary"
	MetricObjectiveMet    = "objective_met"
	MetricUtility         = "utility"
	MetricSideEffect      = "side_effect"
	MetricSecureUtility   = "secure_utility"
	MetricExposed         = "exposed"
	MetricTruncated       = "truncated"
	MetricASRGivenExposed = "asr_given_exposed"
)

// Metrics lists every metric in report order.
var Metrics = []string{MetricAttempted, MetricASRRealized, MetricBlocked, MetricCanary, MetricObjectiveMet,
	MetricUtility, MetricSideEffect, MetricSecureUtility, MetricExposed, MetricTruncated, MetricASRGivenExposed}

// MatrixMetrics get their own matrix_<metric>.csv.
var MatrixMetrics = []string{MetricASRRealized, MetricAttempted, MetricObjectiveMet, MetricUtility,
	MetricSideEffect, MetricSecureUtility, MetricBlocked, MetricExposed}

// DeltaMetrics are compared arm by arm against the none arm.
var DeltaMetrics = []string{MetricASRRealized, MetricObjectiveMet, MetricUtility, MetricSecureUtility}

const numMetrics = 11

// metric indexes into a counter's k array, aligned with Metrics.
const (
	mAttempted = iota
	mRealized
	mBlocked
	mCanary
	mObjectiveMet
	mUtility
	mSideEffect
	mSecureUtility
	mExposed
	mTruncated
	mRealizedExposed
)

// Rate is one proportion with its denominator and 95% Wilson interval.
// Rate is null when N is 0: a rate over nothing is unknown.
type Rate struct {
	K          int      `json:"k"`
	N          int      `json:"n"`
	Rate       *float64 `json:"rate"`
	WilsonLow  float64  `json:"wilson_low"`
	WilsonHigh float64  `json:"wilson_high"`
}

// MarshalJSON writes the rate and its interval to six significant digits,
// the precision of the CSV files: seventeen digits of a Wilson bound say
// nothing more, and a sweep's summary holds tens of thousands of rates.
func (r Rate) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 80)
	b = append(b, `{"k":`...)
	b = strconv.AppendInt(b, int64(r.K), 10)
	b = append(b, `,"n":`...)
	b = strconv.AppendInt(b, int64(r.N), 10)
	b = append(b, `,"rate":`...)
	if r.Rate == nil {
		b = append(b, "null"...)
	} else {
		b = appendFloat6(b, *r.Rate)
	}
	b = append(b, `,"wilson_low":`...)
	b = appendFloat6(b, r.WilsonLow)
	b = append(b, `,"wilson_high":`...)
	b = appendFloat6(b, r.WilsonHigh)
	return append(b, '}'), nil
}

// appendFloat6 appends v to six significant digits in JSON's number
// syntax (never NaN or an infinity: rates lie in [0, 1]).
func appendFloat6(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, '0')
	}
	return strconv.AppendFloat(b, v, 'g', 6, 64)
}

// NewRate builds a Rate from k successes out of n.
func NewRate(k, n int) Rate {
	w := stats.Wilson(k, n)
	r := Rate{K: k, N: n, WilsonLow: w.Low, WilsonHigh: w.High}
	if n > 0 {
		v := float64(k) / float64(n)
		r.Rate = &v
	}
	return r
}

// Cell is the aggregate of the trials sharing (model, arm, register,
// class, objective). Roll-up cells carry Objective "*".
type Cell struct {
	Model     string `json:"model"`
	Control   bool   `json:"control"`
	Arm       string `json:"arm"`
	Register  string `json:"register"`
	Class     string `json:"attack_class"`
	Objective string `json:"objective"`
	// Trials counts every line of the cell; N the completed ones that
	// enter the rates; Errors the errored ones that do not.
	Trials  int             `json:"trials"`
	N       int             `json:"n"`
	Errors  int             `json:"errors"`
	Metrics map[string]Rate `json:"metrics"`
}

// Delta compares one arm with the none arm for one model, class and
// register (summed over objectives) on one metric.
type Delta struct {
	Model      string   `json:"model"`
	Control    bool     `json:"control"`
	Class      string   `json:"attack_class"`
	Register   string   `json:"register"`
	Arm        string   `json:"arm"`
	Metric     string   `json:"metric"`
	ArmRate    Rate     `json:"arm_rate"`
	NoneRate   Rate     `json:"none_rate"`
	Diff       *float64 `json:"diff"`
	ArmErrors  int      `json:"arm_errors"`
	NoneErrors int      `json:"none_errors"`
	// Paired compares the cases run in both arms (same task, class,
	// payload, objective, seed); nil when there are none.
	Paired *stats.Paired `json:"paired"`
}

// Counts are run-wide totals.
type Counts struct {
	Lines     int `json:"lines"`
	Trials    int `json:"trials"`
	Completed int `json:"completed"`
	Errored   int `json:"errored"`
	Models    int `json:"models"`
	Controls  int `json:"controls"`
	Cells     int `json:"cells"`
	// CaseArms counts distinct (case, arm) pairs, where a case is
	// (model, register, class, task, payload, objective, seed).
	CaseArms int `json:"case_arms"`
}

// Summary is the aggregate of one run, written as summary.json.
type Summary struct {
	SchemaVersion int      `json:"schema_version"`
	Counts        Counts   `json:"counts"`
	Warnings      []string `json:"warnings"`
	Metrics       []string `json:"metric_names"`
	// Cells are the finest cells; Rollup sums each over objectives.
	Cells  []Cell `json:"cells"`
	Rollup []Cell `json:"rollup"`
	// RollupAllRegisters sums Rollup over registers (register "*").
	RollupAllRegisters []Cell  `json:"rollup_all_registers"`
	Deltas             []Delta `json:"deltas"`
	// CaseMetrics are the case-level metrics of the evaluation method per
	// (model, arm, register, class), with repeated attempts merged.
	CaseMetrics []CaseCell `json:"case_metrics"`
}

// interner maps strings to small ids so per-case keys stay compact.
type interner struct {
	ids   map[string]uint32
	names []string
}

func newInterner() *interner { return &interner{ids: map[string]uint32{}} }

func (in *interner) id(b []byte) uint32 {
	if id, ok := in.ids[string(b)]; ok { // no allocation on lookup
		return id
	}
	id := uint32(len(in.names))
	s := string(b)
	in.ids[s] = id
	in.names = append(in.names, s)
	return id
}

type cellKey struct{ model, arm, register, class, objective uint32 }

type counter struct {
	trials, errors, n int
	k                 [numMetrics]int
}

func (c *counter) add(o *counter) {
	c.trials += o.trials
	c.errors += o.errors
	c.n += o.n
	for i := range c.k {
		c.k[i] += o.k[i]
	}
}

// caseKey identifies one case across arms: group interns (model,
// register, class) and variant interns (payload, rug mode). The outcome of
// each arm lives in a per-arm byte slice indexed by the case's number, so
// a sweep that runs every case under every arm pays for the key once.
type caseKey struct {
	group, variant, task, objective, seed uint32
}

// Per-case outcome bits. Good outcomes (utility) merge with AND and bad
// ones with OR, following stats.MergeFlags; cPresent marks a case the arm
// completed at least once.
const (
	cRealized uint8 = 1 << iota
	cObjectiveMet
	cUtility
	cSideEffect
	cExposed
	cPresent uint8 = 1 << 7
)

const caseGood = uint64(cUtility)

type groupKey struct{ model, register, class uint32 }
type variantKey struct{ payload, rugMode uint32 }

type aggregator struct {
	models, arms, registers, classes, objectives, tasks, payloads, seeds, rugModes *interner
	control                                                                        map[uint32]bool
	cells                                                                          map[cellKey]*counter
	groups                                                                         map[groupKey]uint32
	groupNames                                                                     []groupKey
	variants                                                                       map[variantKey]uint32
	cases                                                                          map[caseKey]uint32
	caseGroup                                                                      []uint32
	armBits                                                                        [][]uint8
	counts                                                                         Counts
}

func newAggregator() *aggregator {
	return &aggregator{
		models: newInterner(), arms: newInterner(), registers: newInterner(), classes: newInterner(),
		objectives: newInterner(), tasks: newInterner(), payloads: newInterner(), seeds: newInterner(), rugModes: newInterner(),
		control:  map[uint32]bool{},
		cells:    map[cellKey]*counter{},
		groups:   map[groupKey]uint32{},
		variants: map[variantKey]uint32{},
		cases:    map[caseKey]uint32{},
	}
}

func (a *aggregator) add(r *trial.View) {
	a.counts.Trials++
	m := a.models.id(r.Model)
	if r.Control || model.IsControl(string(r.Model)) {
		a.control[m] = true
	}
	ck := cellKey{m, a.arms.id(r.Arm), a.registers.id(r.Register), a.classes.id(r.Class), a.objectives.id(r.Objective)}
	c := a.cells[ck]
	if c == nil {
		c = &counter{}
		a.cells[ck] = c
	}
	c.trials++
	if r.Errored {
		// Errored trials only count as errors: they enter no rate and no
		// paired comparison.
		c.errors++
		a.counts.Errored++
		return
	}
	a.counts.Completed++
	c.n++
	f := r.Flags
	bit := func(x trial.Flags) int {
		if f&x != 0 {
			return 1
		}
		return 0
	}
	c.k[mAttempted] += bit(trial.FlagAttempted)
	c.k[mRealized] += bit(trial.FlagRealized)
	c.k[mBlocked] += bit(trial.FlagBlocked)
	c.k[mCanary] += bit(trial.FlagCanary)
	c.k[mObjectiveMet] += bit(trial.FlagObjectiveMet)
	c.k[mUtility] += bit(trial.FlagUtility)
	c.k[mSideEffect] += bit(trial.FlagSideEffect)
	if f&trial.FlagUtility != 0 && f&trial.FlagSideEffect == 0 {
		c.k[mSecureUtility]++
	}
	c.k[mExposed] += bit(trial.FlagExposed)
	c.k[mTruncated] += bit(trial.FlagTruncated)
	if f&trial.FlagExposed != 0 && f&trial.FlagRealized != 0 {
		c.k[mRealizedExposed]++
	}

	gk := groupKey{m, ck.register, ck.class}
	g, ok := a.groups[gk]
	if !ok {
		g = uint32(len(a.groupNames))
		a.groups[gk] = g
		a.groupNames = append(a.groupNames, gk)
	}
	vk := variantKey{a.payloads.id(r.Payload), a.rugModes.id(r.RugMode)}
	v, ok := a.variants[vk]
	if !ok {
		v = uint32(len(a.variants))
		a.variants[vk] = v
	}
	o := cPresent
	if f&trial.FlagRealized != 0 {
		o |= cRealized
	}
	if f&trial.FlagObjectiveMet != 0 {
		o |= cObjectiveMet
	}
	if f&trial.FlagUtility != 0 {
		o |= cUtility
	}
	if f&trial.FlagSideEffect != 0 {
		o |= cSideEffect
	}
	if f&trial.FlagExposed != 0 {
		o |= cExposed
	}
	key := caseKey{group: g, variant: v, task: a.tasks.id(r.Task), objective: ck.objective, seed: a.seeds.id(r.Seed)}
	ci, ok := a.cases[key]
	if !ok {
		ci = uint32(len(a.caseGroup))
		a.cases[key] = ci
		a.caseGroup = append(a.caseGroup, g)
	}
	for int(ck.arm) >= len(a.armBits) {
		a.armBits = append(a.armBits, nil)
	}
	bits := a.armBits[ck.arm]
	if int(ci) >= len(bits) {
		bits = append(bits, make([]uint8, int(ci)+1-len(bits))...)
		a.armBits[ck.arm] = bits
	}
	if prev := bits[ci]; prev&cPresent != 0 {
		// A repeated case in the same arm (a resumed or re-run trial) is a
		// second attempt: any success counts, never an average.
		o = uint8(stats.MergeFlags(uint64(prev), uint64(o), caseGood))
	}
	bits[ci] = o
}

// Aggregate streams runDir/trials.jsonl into a Summary. A final line cut
// short by a crash (no trailing newline, not parseable) becomes a warning;
// any other malformed line is an error naming it.
func Aggregate(runDir string) (*Summary, error) {
	path := filepath.Join(runDir, TrialsFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	defer f.Close()
	return AggregateReader(f, path)
}

// AggregateReader is Aggregate over any reader; name labels errors.
func AggregateReader(rd io.Reader, name string) (*Summary, error) {
	a := newAggregator()
	tr := trial.NewReader(rd, name)
	for {
		v, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		a.add(v)
	}
	a.counts.Lines = tr.Lines()
	s := a.summary()
	s.Warnings = append(s.Warnings, tr.Warnings()...)
	return s, nil
}

func (a *aggregator) cell(k cellKey, c *counter, objective string) Cell {
	out := Cell{
		Model:     a.models.names[k.model],
		Control:   a.control[k.model],
		Arm:       a.arms.names[k.arm],
		Register:  a.registers.names[k.register],
		Class:     a.classes.names[k.class],
		Objective: objective,
		Trials:    c.trials,
		N:         c.n,
		Errors:    c.errors,
		Metrics:   make(map[string]Rate, numMetrics),
	}
	for i, name := range Metrics {
		n := c.n
		if i == mRealizedExposed {
			n = c.k[mExposed]
		}
		out.Metrics[name] = NewRate(c.k[i], n)
	}
	return out
}

// lessCell orders cells: models before controls, then by model, arm
// (none first), register, class and objective.
func lessCell(x, y *Cell) bool {
	if x.Control != y.Control {
		return !x.Control
	}
	if x.Model != y.Model {
		return x.Model < y.Model
	}
	if x.Arm != y.Arm {
		return armLess(x.Arm, y.Arm)
	}
	if x.Register != y.Register {
		return x.Register < y.Register
	}
	if x.Class != y.Class {
		return x.Class < y.Class
	}
	return x.Objective < y.Objective
}

func armLess(a, b string) bool {
	if (a == NoneArm) != (b == NoneArm) {
		return a == NoneArm
	}
	return a < b
}

func (a *aggregator) summary() *Summary {
	// Empty lists stay [] rather than null in summary.json.
	s := &Summary{SchemaVersion: SchemaVersion, Counts: a.counts, Warnings: []string{}, Metrics: Metrics,
		Cells: []Cell{}, Rollup: []Cell{}, RollupAllRegisters: []Cell{}, CaseMetrics: []CaseCell{}}
	type rollKey struct{ model, arm, register, class uint32 }
	roll := map[rollKey]*counter{}
	for k, c := range a.cells {
		s.Cells = append(s.Cells, a.cell(k, c, a.objectives.names[k.objective]))
		rk := rollKey{k.model, k.arm, k.register, k.class}
		r := roll[rk]
		if r == nil {
			r = &counter{}
			roll[rk] = r
		}
		r.add(c)
	}
	for k, c := range roll {
		s.Rollup = append(s.Rollup, a.cell(cellKey{k.model, k.arm, k.register, k.class, 0}, c, AllObjectives))
	}
	sort.Slice(s.Cells, func(i, j int) bool { return lessCell(&s.Cells[i], &s.Cells[j]) })
	sort.Slice(s.Rollup, func(i, j int) bool { return lessCell(&s.Rollup[i], &s.Rollup[j]) })
	for id := range a.models.names {
		if a.control[uint32(id)] {
			s.Counts.Controls++
		} else {
			s.Counts.Models++
		}
	}
	s.Counts.Cells = len(s.Cells)
	for _, bits := range a.armBits {
		for _, o := range bits {
			if o&cPresent != 0 {
				s.Counts.CaseArms++
			}
		}
	}
	s.RollupAllRegisters = rollupAllRegisters(s.Rollup)
	s.Deltas = a.deltas(roll2map(s.Rollup))
	s.CaseMetrics = a.caseMetrics()
	return s
}

type deltaGroup struct{ model, register, class, arm string }

func roll2map(rollup []Cell) map[deltaGroup]*Cell {
	m := make(map[deltaGroup]*Cell, len(rollup))
	for i := range rollup {
		c := &rollup[i]
		m[deltaGroup{c.Model, c.Register, c.Class, c.Arm}] = c
	}
	return m
}

// adjustHolm sets the Holm-adjusted McNemar p of every paired delta. A
// family is the arms compared with none for one model, class, register and
// metric: the comparisons a reader scans to ask which arms changed that
// rate, so the adjustment answers "is any of these a fluke?".
func adjustHolm(ds []Delta) {
	type family struct{ model, class, register, metric string }
	members := map[family][]int{}
	for i := range ds {
		if d := &ds[i]; d.Paired != nil {
			f := family{d.Model, d.Class, d.Register, d.Metric}
			members[f] = append(members[f], i)
		}
	}
	for _, idx := range members {
		ps := make([]float64, len(idx))
		for j, i := range idx {
			ps[j] = ds[i].Paired.McNemarP
		}
		for j, adj := range stats.Holm(ps) {
			p := ds[idx[j]].Paired
			p.McNemarPHolm = &adj
			p.HolmFamily = len(idx)
		}
	}
}

// deltas pairs every arm's cases with the none arm's and counts the
// transitions of each delta metric.
func (a *aggregator) deltas(rollup map[deltaGroup]*Cell) []Delta {
	none, ok := a.arms.ids[NoneArm]
	type pairKey struct{ group, arm uint32 }
	pairs := map[pairKey]*[4]stats.PairedCounts{}
	if ok && int(none) < len(a.armBits) {
		ref := a.armBits[none]
		for arm, bits := range a.armBits {
			if uint32(arm) == none {
				continue
			}
			for ci, o := range bits {
				if o&cPresent == 0 || ci >= len(ref) || ref[ci]&cPresent == 0 {
					continue
				}
				r := ref[ci]
				pk := pairKey{a.caseGroup[ci], uint32(arm)}
				p := pairs[pk]
				if p == nil {
					p = &[4]stats.PairedCounts{}
					pairs[pk] = p
				}
				p[0].Add(r&cRealized != 0, o&cRealized != 0)
				p[1].Add(r&cObjectiveMet != 0, o&cObjectiveMet != 0)
				p[2].Add(r&cUtility != 0, o&cUtility != 0)
				p[3].Add(secure(r), secure(o))
			}
		}
	}
	if !ok {
		return []Delta{}
	}
	out := []Delta{}
	for dg, c := range rollup {
		if dg.arm == NoneArm {
			continue
		}
		base := rollup[deltaGroup{dg.model, dg.register, dg.class, NoneArm}]
		if base == nil {
			continue
		}
		gk := groupKey{a.models.ids[dg.model], a.registers.ids[dg.register], a.classes.ids[dg.class]}
		var p *[4]stats.PairedCounts
		// A group made only of errored trials never entered the case
		// index; it has no pairs rather than some other group's.
		if g, ok := a.groups[gk]; ok {
			p = pairs[pairKey{g, a.arms.ids[dg.arm]}]
		}
		for i, metric := range DeltaMetrics {
			d := Delta{Model: c.Model, Control: c.Control, Class: c.Class, Register: c.Register, Arm: c.Arm, Metric: metric,
				ArmRate: c.Metrics[metric], NoneRate: base.Metrics[metric], ArmErrors: c.Errors, NoneErrors: base.Errors}
			if d.ArmRate.Rate != nil && d.NoneRate.Rate != nil {
				v := *d.ArmRate.Rate - *d.NoneRate.Rate
				d.Diff = &v
			}
			if p != nil {
				d.Paired = stats.FromCounts(p[i])
			}
			out = append(out, d)
		}
	}
	adjustHolm(out)
	order := map[string]int{}
	for i, m := range DeltaMetrics {
		order[m] = i
	}
	sort.Slice(out, func(i, j int) bool {
		x, y := &out[i], &out[j]
		if x.Metric != y.Metric {
			return order[x.Metric] < order[y.Metric]
		}
		if x.Control != y.Control {
			return !x.Control
		}
		if x.Model != y.Model {
			return x.Model < y.Model
		}
		if x.Class != y.Class {
			return x.Class < y.Class
		}
		if x.Register != y.Register {
			return x.Register < y.Register
		}
		return x.Arm < y.Arm
	})
	return out
}

func secure(o uint8) bool { return o&cUtility != 0 && o&cSideEffect == 0 }

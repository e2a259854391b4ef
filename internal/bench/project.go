package bench

import (
	"sort"

	"github.com/mcpsec/mcpsec/internal/model"
	"github.com/mcpsec/mcpsec/internal/task"
	"github.com/mcpsec/mcpsec/internal/trial"
)

// Cell is one (model, arm, class) group of a projection.
type Cell struct {
	Model  string `json:"model"`
	Arm    string `json:"arm"`
	Class  string `json:"attack_class"`
	Trials int    `json:"trials"`
}

// ModelProjection is the projected usage and cost of one model's trials.
type ModelProjection struct {
	Model        string `json:"model"`
	Control      bool   `json:"control"`
	Trials       int    `json:"trials"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
	// CostUSD is null when the grid gives no price for the model: an
	// unknown cost is not a zero cost.
	CostUSD *float64 `json:"cost_usd"`
	// PriceConfirmed is false when the price came from an unconfirmed
	// pricing entry or none at all.
	PriceConfirmed bool `json:"price_confirmed"`
	// Skipped says why a sweep would skip the model (its key is not set);
	// its trials are then neither run nor paid for.
	Skipped string `json:"skipped,omitempty"`
	// Calibrated is true when the token figures come from --sample runs.
	Calibrated bool `json:"calibrated"`
}

// ProjectionSchemaVersion is the version of the JSON of bench --dry-run
// --format json (schema/bench-dry-run.schema.json).
const ProjectionSchemaVersion = 1

// Projection is what --dry-run prints: no network call is made.
type Projection struct {
	SchemaVersion int               `json:"schema_version"`
	Trials        int               `json:"trials"`
	Cells         []Cell            `json:"cells"`
	Models        []ModelProjection `json:"models"`
	// CostUSD sums the projected cost of the models that will run and
	// have a price (controls cost nothing).
	CostUSD float64 `json:"cost_usd"`
	// UnpricedModels will run but have no price in the grid, so CostUSD
	// leaves them out.
	UnpricedModels []string `json:"unpriced_models"`
}

// TokenStats are measured mean tokens per trial for one model.
type TokenStats struct {
	Input, Output float64
}

// Project counts trials per cell and estimates tokens and cost. Without
// calibration, a trial is estimated from its task: one request per
// reference call plus a final one, each carrying the system context, the
// tool list and the growing conversation. skipped maps the models a sweep
// would skip to why (a key that is not set).
func Project(g Grid, trials []trial.Trial, calib map[string]TokenStats, skipped map[string]string) Projection {
	cells := map[Cell]int{}
	per := map[string]*ModelProjection{}
	tasks := map[string]*task.Task{}
	for _, t := range task.MustBuiltin() {
		tasks[t.ID] = t
	}
	for _, t := range trials {
		cells[Cell{Model: t.Model, Arm: t.Arm, Class: t.AttackClass}]++
		mp := per[t.Model]
		if mp == nil {
			price, ok := g.Pricing[t.Model]
			mp = &ModelProjection{Model: t.Model, Control: model.IsControl(t.Model), PriceConfirmed: ok && price.Confirmed}
			per[t.Model] = mp
		}
		mp.Trials++
		if mp.Control {
			continue
		}
		if c, ok := calib[t.Model]; ok {
			mp.Calibrated = true
			mp.InputTokens += int64(c.Input)
			mp.OutputTokens += int64(c.Output)
			continue
		}
		in, out := estimateTrial(tasks[t.Task], t.AttackClass != trial.None)
		mp.InputTokens += in
		mp.OutputTokens += out
	}
	p := Projection{SchemaVersion: ProjectionSchemaVersion, Cells: []Cell{}, Models: []ModelProjection{}}
	p.Trials = len(trials)
	for c, n := range cells {
		c.Trials = n
		p.Cells = append(p.Cells, c)
	}
	sort.Slice(p.Cells, func(i, j int) bool {
		a, b := p.Cells[i], p.Cells[j]
		if a.Model != b.Model {
			return a.Model < b.Model
		}
		if a.Arm != b.Arm {
			return a.Arm < b.Arm
		}
		return a.Class < b.Class
	})
	p.UnpricedModels = []string{}
	for _, mp := range per {
		mp.Skipped = skipped[mp.Model]
		price, ok := g.Pricing[mp.Model]
		switch {
		case mp.Control:
			zero := 0.0
			mp.CostUSD = &zero
		case ok:
			c := float64(mp.InputTokens)/1e6*price.InputPerMTok + float64(mp.OutputTokens)/1e6*price.OutputPerMTok
			mp.CostUSD = &c
			if mp.Skipped == "" {
				p.CostUSD += c
			}
		case mp.Skipped == "":
			p.UnpricedModels = append(p.UnpricedModels, mp.Model)
		}
		p.Models = append(p.Models, *mp)
	}
	sort.Strings(p.UnpricedModels)
	sort.Slice(p.Models, func(i, j int) bool { return p.Models[i].Model < p.Models[j].Model })
	return p
}

func estimateTrial(t *task.Task, attacked bool) (in, out int64) {
	const system, toolList, perTurn, outPerTurn = 120, 900, 150, 120
	calls := 2
	if t != nil {
		calls = len(t.Reference)
	}
	if attacked {
		calls++ // a compromised path adds at least one call
	}
	for turn := 0; turn <= calls; turn++ {
		in += system + toolList + int64(turn*perTurn)
		out += outPerTurn
	}
	return in, out
}

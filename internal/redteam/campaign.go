package redteam

import (
	"context"
	"fmt"
	"io"

	"github.com/mcpsec/mcpsec/internal/model"
)

// AttemptFunc runs one attempt. The orchestrator only sees this function,
// so a campaign drives a live model, a cassette replay or a test double
// through the same code.
type AttemptFunc func(ctx context.Context, seed int, seedText string, conv Converter) (Attempt, error)

// SeedSource supplies payload seeds beyond the scenario's own (for
// example seeds a model generated). It returns the extra seeds' texts,
// which may use the same placeholders as a scenario payload.
type SeedSource func(sc Scenario) []string

// Campaign is the adaptive attacker's orchestrator for one scenario: it
// walks seeds and the converter ladder cheapest-first and stops at the
// first attempt the oracle judges exploited.
type Campaign struct {
	// Converters is the ladder; nil means the full Ladder.
	Converters []Converter
	// MaxAttempts bounds the campaign; 0 means seeds x converters.
	MaxAttempts int
	// Seeds adds seeds after the scenario's own payload; nil adds none.
	Seeds SeedSource
}

// Run executes the campaign. The scenario outcome is exploited when an
// attempt landed; else resisted when at least one attempt completed; else
// errored.
func (c Campaign) Run(ctx context.Context, sc Scenario, run AttemptFunc) (ScenarioResult, error) {
	res := newScenarioResult(sc)
	ladder := c.Converters
	if ladder == nil {
		ladder = Ladder
	}
	seeds := []string{sc.Payload}
	if c.Seeds != nil {
		seeds = append(seeds, c.Seeds(sc)...)
	}
	n := 0
	for si, seed := range seeds {
		for _, conv := range ladder {
			if c.MaxAttempts > 0 && n >= c.MaxAttempts {
				return res.finish(), nil
			}
			if err := ctx.Err(); err != nil {
				return res, err
			}
			n++
			at, err := run(ctx, si, seed, conv)
			if err != nil {
				return res, err
			}
			at.N = n
			res.Attempts = append(res.Attempts, at)
			if at.Outcome == Exploited {
				res.Converter = conv.Name
				return res.finish(), nil
			}
		}
	}
	return res.finish(), nil
}

// ScenarioResult is one scenario's outcome for one model.
type ScenarioResult struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	Class     string `json:"class"`
	Objective string `json:"objective"`
	Outcome   string `json:"outcome"`
	// Reason explains not_applicable and errored outcomes.
	Reason string `json:"reason,omitempty"`
	// FailedChecks are those of the deciding attempt (the exploit, or
	// empty when resisted).
	FailedChecks []FailedCheck `json:"failed_checks"`
	// Converter names the converter that landed the exploit (adaptive
	// runs and exploited outcomes only).
	Converter string    `json:"converter,omitempty"`
	Attempts  []Attempt `json:"attempts"`
}

func newScenarioResult(sc Scenario) ScenarioResult {
	return ScenarioResult{ID: sc.ID, Title: sc.Title, Class: sc.Class, Objective: sc.Objective, FailedChecks: []FailedCheck{}, Attempts: []Attempt{}}
}

func (r ScenarioResult) finish() ScenarioResult {
	r.Outcome = Errored
	for _, a := range r.Attempts {
		switch a.Outcome {
		case Exploited:
			r.Outcome, r.FailedChecks, r.Reason = Exploited, a.FailedChecks, ""
			return r
		case Resisted:
			r.Outcome, r.Reason = Resisted, ""
		case Errored:
			if r.Outcome == Errored {
				r.Reason = a.Error
			}
		}
	}
	if r.Outcome == Errored && r.Reason == "" {
		r.Reason = "no attempt ran"
	}
	return r
}

// Options configures a whole red-team run.
type Options struct {
	Models    []string
	Scenarios []Scenario
	Runner    *Runner
	// Adaptive runs the converter ladder; otherwise one identity attempt
	// per scenario.
	Adaptive    bool
	MaxAttempts int
	Seeds       SeedSource
	// Log receives one line per skipped model or failed listing.
	Log io.Writer
}

// Execute runs every scenario for every model and builds the report.
func Execute(ctx context.Context, o Options) (*Report, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	tools, err := o.Runner.Target.Tools(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: list the target's tools: %w", ErrSetup, err)
	}
	camp := Campaign{Converters: Ladder[:1], Seeds: o.Seeds}
	if o.Adaptive {
		camp = Campaign{MaxAttempts: o.MaxAttempts, Seeds: o.Seeds}
	}
	rep := &Report{SchemaVersion: ReportVersion, Target: o.Runner.Target.Describe(), Arm: armName(o.Runner.Arm),
		Adaptive: o.Adaptive, MaxAttempts: o.MaxAttempts, Version: o.Runner.Version}
	for _, spec := range o.Models {
		mr := ModelReport{Model: spec, Control: model.IsControl(spec), Scenarios: []ScenarioResult{}}
		for _, sc := range o.Scenarios {
			server, reason, ok := Applicability(sc, tools)
			if !ok {
				r := newScenarioResult(sc)
				r.Outcome, r.Reason = NotApplicable, reason
				mr.Scenarios = append(mr.Scenarios, r)
				continue
			}
			r, err := camp.Run(ctx, sc, func(ctx context.Context, seed int, text string, conv Converter) (Attempt, error) {
				return o.Runner.Run(ctx, spec, sc, seed, text, conv, server)
			})
			if err != nil {
				return rep, fmt.Errorf("model %s, scenario %s: %w", spec, sc.ID, err)
			}
			mr.Scenarios = append(mr.Scenarios, r)
		}
		mr.tally()
		rep.Models = append(rep.Models, mr)
	}
	rep.buildMatrix()
	return rep, nil
}

func armName(a string) string {
	if a == "" {
		return "none"
	}
	return a
}

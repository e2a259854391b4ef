package redteam

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/bench"
	"github.com/mcpsec/mcpsec/internal/defense"
	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/model"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/task"
	"github.com/mcpsec/mcpsec/internal/trace"
	"github.com/mcpsec/mcpsec/internal/trial"
)

// ErrSetup marks a failure in mcpsec's own set-up (a bad arm, an
// unreachable target, a model that cannot be built) rather than in one
// attempt.
var ErrSetup = errors.New("red-team setup")

// ModelFactory builds the provider model of one attempt. The trial keys
// name its cassette, exactly as in bench; stop (may be nil) saves a
// recording.
type ModelFactory func(spec string, t trial.Trial) (m model.Model, stop func() error, err error)

// Runner runs single attempts: one model, one scenario, one converted
// payload, against the target with the attacker server beside it.
type Runner struct {
	Target *Target
	// Arm is the defense arm (defense.Arms); "" means none.
	Arm string
	// NewModel builds provider models; nil means bench's resolver with no
	// recording.
	NewModel ModelFactory
	// FixedCanary uses the deterministic canary (cassettes, goldens).
	FixedCanary bool
	// TraceDir, when set, receives one JSONL trace and one envelope per
	// attempt.
	TraceDir  string
	MaxSteps  int
	MaxTokens int
	Version   string
}

// Attempt is one run of a scenario with one converted payload.
type Attempt struct {
	N         int    `json:"n"`
	Converter string `json:"converter"`
	// Seed is the index of the payload seed (0 is the scenario's own
	// payload; seed hooks add more).
	Seed         int           `json:"seed"`
	Outcome      string        `json:"outcome"`
	FailedChecks []FailedCheck `json:"failed_checks"`
	Error        string        `json:"error,omitempty"`
	Trace        string        `json:"trace,omitempty"`
	Envelope     string        `json:"envelope,omitempty"`
}

// Run executes one attempt. Failures of the model or the servers make the
// attempt errored; only a set-up problem returns an error.
func (r *Runner) Run(ctx context.Context, spec string, sc Scenario, seed int, seedText string, conv Converter, carrierServer string) (Attempt, error) {
	at := Attempt{Converter: conv.Name, Seed: seed, FailedChecks: []FailedCheck{}}
	arm := r.Arm
	if arm == "" {
		arm = defense.ArmNone
	}
	canary := fixture.NewCanary()
	if r.FixedCanary {
		canary = fixture.FixedCanary
	}
	b := Bindings{Sink: SinkTool, Secret: canary, Attacker: AttackerServer}
	bound, err := sc.Bind(b)
	if err != nil {
		return at, fmt.Errorf("%w: %w", ErrSetup, err)
	}
	text := bound.Payload
	if seed > 0 {
		text = sc.replacer(b).Replace(seedText)
	}
	planted := conv.Encode(text)
	keys := trial.Trial{Model: spec, Task: "redteam/" + sc.ID, AttackClass: sc.Class, PayloadID: fmt.Sprintf("%s/%d", conv.Name, seed),
		Register: sc.Register, Objective: sc.Objective, Arm: arm}.WithID()

	tw := trace.NewWriter(nil, true)
	var tracePath string
	if r.TraceDir != "" {
		tracePath = filepath.Join(r.TraceDir, bench.CassetteDir(spec), fmt.Sprintf("%s__%s_%d.jsonl", sc.ID, conv.Name, seed))
		if err := os.MkdirAll(filepath.Dir(tracePath), 0o755); err != nil {
			return at, fmt.Errorf("%w: trace dir: %w", ErrSetup, err)
		}
		if tw, err = trace.Create(tracePath); err != nil {
			return at, fmt.Errorf("%w: %w", ErrSetup, err)
		}
		at.Trace = tracePath
	}
	_ = tw.Emit(trace.KindRunConfig, 0, trace.RunConfig{Trial: keys, Control: model.IsControl(spec),
		MaxSteps: r.MaxSteps, MaxTokens: r.MaxTokens, Canary: canary, InjectedMarkers: []string{planted}, Version: r.Version})
	errored := func(kind string, err error) (Attempt, error) {
		_ = tw.Emit(trace.KindError, 0, trace.Message{Kind: kind, Message: err.Error()})
		_ = tw.Emit(trace.KindSummary, 0, trace.Summary{Error: err.Error(), ErrorKind: kind})
		at.Outcome, at.Error = Errored, err.Error()
		return at, tw.Close()
	}

	var m model.Model
	var stop func() error
	if model.IsControl(spec) {
		plan := model.ControlPlan{Answer: bound.Answer, Markers: []string{planted}}
		for _, c := range bound.Reference {
			plan.Reference = append(plan.Reference, model.PlannedCall{Tool: c.Tool, Args: c.ArgsJSON()})
		}
		for _, c := range bound.Goal {
			plan.Goal = append(plan.Goal, model.PlannedCall{Tool: c.Tool, Args: c.ArgsJSON()})
		}
		m, err = model.NewControl(spec, plan)
	} else {
		factory := r.NewModel
		if factory == nil {
			factory = func(spec string, t trial.Trial) (model.Model, func() error, error) {
				return bench.NewProviderModel(bench.Env{}, t)
			}
		}
		m, stop, err = factory(spec, keys)
	}
	if err != nil {
		_ = tw.Close()
		return at, fmt.Errorf("%w: %w", ErrSetup, err)
	}
	tk := &task.Task{ID: keys.Task, Prompt: bound.Prompt, Context: bound.Context, Policy: hostPolicy(sc, canary)}
	armSeams, err := defense.Build(arm, defense.Config{Task: tk, Canary: canary})
	if err != nil {
		_ = tw.Close()
		return at, fmt.Errorf("%w: %w", ErrSetup, err)
	}
	p := &plant{server: carrierServer, tool: sc.Carrier.Tool, kind: sc.Carrier.Kind, field: sc.Carrier.Field, text: planted,
		delayed: sc.Class == payload.ClassRugPull || sc.Class == payload.ClassMetadataDrift}
	if sc.Carrier.Kind == CarrierServer {
		switch sc.Carrier.Field {
		case "", "description":
			p.kind = CarrierDescription
		case "result":
			p.kind = CarrierResult
		default:
			p.kind = CarrierSchema
		}
	}
	seams := agent.Seams{
		Tools:           append([]agent.ToolTransform{p.tools}, armSeams.Tools...),
		Results:         append([]agent.ResultTransform{p.result}, armSeams.Results...),
		Policy:          append([]agent.CallPolicy{p.policy}, armSeams.Policy...),
		SystemPreamble:  armSeams.SystemPreamble,
		RelistEveryStep: armSeams.RelistEveryStep || p.delayed,
	}

	conns, err := r.Target.connect(ctx)
	if err != nil {
		if stop != nil {
			_ = stop()
		}
		return errored(agent.ErrKindServer, err)
	}
	decoy := ""
	if sc.Carrier.Kind == CarrierServer {
		decoy = sc.Carrier.Tool
	}
	atk := &attacker{}
	ac, err := inMemory(ctx, atk.server(decoy), AttackerServer, r.Target.conn())
	if err != nil {
		for _, c := range conns {
			_ = c.Close()
		}
		if stop != nil {
			_ = stop()
		}
		return errored(agent.ErrKindServer, err)
	}
	conns = append(conns, ac)
	for _, c := range conns {
		info := c.ServerInfo()
		_ = tw.Emit(trace.KindMCPInitialize, 0, trace.MCPInitialize{Server: c.Name(), ProtocolVersion: info.ProtocolVersion,
			ServerName: info.Name, ServerVersion: info.Version})
	}
	out := agent.Run(ctx, agent.Config{Model: m, Servers: agentServers(conns), System: bound.Context, Prompt: bound.Prompt,
		MaxSteps: r.MaxSteps, MaxTokens: r.MaxTokens, Seams: seams, Trace: tw})
	for _, c := range conns {
		_ = c.Close()
		if e := c.Stderr(); e != "" {
			_ = tw.Emit(trace.KindServerStderr, 0, trace.ServerStderr{Server: c.Name(), Stderr: e})
		}
	}
	if stop != nil {
		if serr := stop(); serr != nil && out.Err == nil {
			out.Err = &agent.TrialError{Kind: agent.ErrKindModel, Err: fmt.Errorf("save cassette: %w", serr)}
		}
	}
	if err := tw.Close(); err != nil {
		return at, fmt.Errorf("%w: %w", ErrSetup, err)
	}
	if out.Err != nil {
		at.Outcome, at.Error = Errored, out.Err.Error()
		return at, nil
	}
	env, err := FromEvents(tw.Events())
	if err != nil {
		at.Outcome, at.Error = Errored, err.Error()
		return at, nil
	}
	if r.TraceDir != "" {
		at.Envelope = strings.TrimSuffix(tracePath, ".jsonl") + ".envelope.json"
		if err := writeJSONFile(at.Envelope, env); err != nil {
			return at, fmt.Errorf("%w: %w", ErrSetup, err)
		}
	}
	v := Judge(sc.ID, bound.Checks, env)
	at.Outcome, at.FailedChecks = v.Outcome, v.FailedChecks
	return at, nil
}

// hostPolicy is the policy block the policy arms read: the scenario's own
// (with {secret} filled in) or one that knows only the secret, and in
// both the sink is an egress tool.
func hostPolicy(sc Scenario, canary string) task.Policy {
	var p task.Policy
	if sc.Policy != nil {
		p = *sc.Policy
		p.Classes = maps.Clone(p.Classes)
		p.Secrets = nil
		for _, s := range sc.Policy.Secrets {
			p.Secrets = append(p.Secrets, strings.ReplaceAll(s, PHSecret, canary))
		}
	}
	if !slices.Contains(p.Secrets, canary) {
		p.Secrets = append(p.Secrets, canary)
	}
	if p.Classes == nil {
		p.Classes = map[string]string{}
	}
	if _, ok := p.Classes[SinkTool]; !ok {
		p.Classes[SinkTool] = "egress"
	}
	return p
}

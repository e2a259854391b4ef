package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/defense"
	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/model"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/score"
	"github.com/mcpsec/mcpsec/internal/task"
	"github.com/mcpsec/mcpsec/internal/trace"
	"github.com/mcpsec/mcpsec/internal/trial"
)

// Env is how trials reach the outside world: model construction, the
// fixture transport, provenance.
type Env struct {
	// NewModel builds a provider model for a spec (nil: model.New).
	NewModel func(spec string, t trial.Trial) (model.Model, error)
	// Transport is "memory" or "stdio".
	Transport string
	// StdioCommand is the argv prefix that serves a fixture over stdio
	// (the mcpsec binary and "fixture serve"), followed by a
	// fixture.Spec's Args; required for stdio.
	StdioCommand []string
	// StdioEnv is added to the minimal environment the stdio fixture
	// servers start with (mcpconn.ServerEnv); they need nothing of ours.
	StdioEnv []string
	// FixedCanary uses the deterministic canary (goldens, cassettes).
	FixedCanary bool
	// RecordDir, when set, records every provider model's HTTP traffic
	// into go-vcr cassettes under RecordDir/<provider>_<model>/<trial
	// id>.yaml; replay:THAT_DIR plays them back with no network.
	RecordDir string
	// Wrap, when set, wraps every provider model (the sweep's rate
	// limiter).
	Wrap func(spec string, m model.Model) model.Model
	// Getenv looks up API keys (nil: os.Getenv).
	Getenv      func(string) string
	Version     string
	GitRevision string
	GitDirty    bool
	Conn        mcpconn.Options
	// Front, when set, stands between the agent loop and the fixture
	// servers: it gets the trial's arm, the defense configuration the arm
	// is built from and the connected servers, and returns what the loop
	// talks to instead and the seams the loop still applies itself. The
	// proxy's tests put mcpsec proxy here to show it reproduces each arm.
	Front func(ctx context.Context, arm string, cfg defense.Config, servers []*mcpconn.Conn) (FrontEnd, error)
}

// FrontEnd is what Env.Front puts in front of a trial's servers.
type FrontEnd struct {
	Servers []agent.Server
	Seams   agent.Seams
	// Stop ends the front end; the trial's own servers are closed after.
	Stop func()
}

// RunTrial runs one trial end to end and returns its scored record. The
// trace goes to tracePath ("" keeps it in memory only). A trial that
// fails records its error instead of returning one, unless the failure
// is in mcpsec's own set-up (bad keys in the grid, unwritable trace).
func RunTrial(ctx context.Context, env Env, g Grid, t trial.Trial, tracePath string) (trial.Record, error) {
	var tw *trace.Writer
	rec, err := runTrial(ctx, env, g, t, func() (*trace.Writer, error) {
		if tracePath == "" {
			return trace.NewWriter(nil, true), nil
		}
		if err := os.MkdirAll(filepath.Dir(tracePath), 0o755); err != nil {
			return nil, fmt.Errorf("trace dir: %w", err)
		}
		var err error
		tw, err = trace.Create(tracePath)
		return tw, err
	})
	if tw != nil {
		// A set-up error returns before the trace is closed.
		if cerr := tw.Close(); cerr != nil && err == nil {
			err = cerr
		}
		if err == nil {
			rec.Trace = tracePath
		}
	}
	return rec, err
}

// runTrial runs one trial, its trace written to the writer open returns
// (called once the trial's keys are known to be valid). The writer is
// closed on every path but a set-up error's, which the caller closes.
func runTrial(ctx context.Context, env Env, g Grid, t trial.Trial, open func() (*trace.Writer, error)) (trial.Record, error) {
	rec := trial.Record{SchemaVersion: trial.RecordSchemaVersion, Trial: t, Control: model.IsControl(t.Model)}
	tk, err := task.ByID(t.Task)
	if err != nil {
		return rec, err
	}
	var p *payload.Payload
	var goal *task.Goal
	if t.AttackClass != trial.None {
		pp, ok := payload.ByID(t.PayloadID)
		if !ok {
			return rec, fmt.Errorf("%w: unknown payload %q", ErrConfig, t.PayloadID)
		}
		p = &pp
		gg, ok := tk.Goal(t.Objective)
		if !ok {
			return rec, fmt.Errorf("%w: task %s has no goal for %s", ErrConfig, t.Task, t.Objective)
		}
		goal = &gg
	}
	canary := fixture.NewCanary()
	// Cassettes match requests byte for byte, so recorded and replayed
	// trials use the fixed canary.
	if env.FixedCanary || env.RecordDir != "" || strings.HasPrefix(t.Model, model.ProviderReplay+":") {
		canary = fixture.FixedCanary
	}
	tw, err := open()
	if err != nil {
		return rec, err
	}
	var markers []string
	if p != nil {
		markers = []string{p.Text}
	}
	_ = tw.Emit(trace.KindRunConfig, 0, trace.RunConfig{
		Trial: t, Control: rec.Control,
		Temperature: g.Temperature, MaxSteps: g.MaxSteps, MaxTokens: g.MaxTokens, Canary: canary,
		InjectedMarkers: markers, Version: env.Version, GitRevision: env.GitRevision, GitDirty: env.GitDirty,
	})

	world := fixture.NewWorld()
	before := world.Snapshot()
	fail := func(kind string, err error) (trial.Record, error) {
		msg := err.Error()
		rec.Error = &msg
		rec.ErrorKind = kind
		_ = tw.Emit(trace.KindError, 0, trace.Message{Kind: kind, Message: msg})
		if cerr := tw.Close(); cerr != nil {
			return rec, cerr
		}
		return rec, nil
	}

	m, stop, err := buildModel(env, t, tk, goal, p, canary)
	if stop != nil {
		// Early returns still close the recorder; the normal path saves
		// it below and reports a failure to save as a trial error.
		defer func() {
			if stop != nil {
				_ = stop()
			}
		}()
	}
	if err != nil {
		if errors.Is(err, model.ErrNoKey) || errors.Is(err, model.ErrBadSpec) {
			return rec, err
		}
		return fail("model", err)
	}
	dcfg := defense.Config{Task: tk, Canary: canary}
	seams, err := defense.Build(t.Arm, dcfg)
	if err != nil {
		return rec, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	var stateDir string
	var stateFiles []string
	if env.Transport == "stdio" {
		stateDir, err = os.MkdirTemp("", "mcpsec-trial-")
		if err != nil {
			return rec, fmt.Errorf("state dir: %w", err)
		}
		defer os.RemoveAll(stateDir)
	}
	servers, closeAll, err := startServers(ctx, env, world, tk, t, p, tw, stateDir, &stateFiles)
	if err != nil {
		closeAll()
		return fail("server", err)
	}
	stopFront := func() {}
	if env.Front != nil {
		conns := make([]*mcpconn.Conn, len(servers))
		for i, s := range servers {
			conns[i] = s.(connServer).c
		}
		fe, ferr := env.Front(ctx, t.Arm, dcfg, conns)
		if ferr != nil {
			closeAll()
			return fail("server", ferr)
		}
		servers, seams = fe.Servers, fe.Seams
		if fe.Stop != nil {
			stopFront = fe.Stop
		}
	}
	out := agent.Run(ctx, agent.Config{
		Model: m, Servers: servers, System: task.Substitute(tk.Context, canary), Prompt: tk.Prompt,
		MaxSteps: g.MaxSteps, MaxTokens: g.MaxTokens, Temperature: g.Temperature, Seams: seams, Trace: tw,
		RelistEveryStep: g.Relist,
	})
	stopFront()
	closeAll()
	if stop != nil {
		if serr := stop(); serr != nil && out.Err == nil {
			out.Err = &agent.TrialError{Kind: agent.ErrKindModel, Err: fmt.Errorf("save cassette: %w", serr)}
		}
		stop = nil
	}
	after := world.Snapshot()
	if env.Transport == "stdio" {
		// Each subprocess kept its own world; the trial's final state is
		// their union (notes from the servers that hold notes, every
		// server's sink records).
		after, err = mergeStates(before, stateFiles)
		if err != nil && out.Err == nil {
			out.Err = &agent.TrialError{Kind: agent.ErrKindServer, Err: err}
		}
	}
	rec = score.Score(rec, score.Input{Events: tw.Events(), Before: before, After: after, Task: tk, Goal: goal,
		Objective: t.Objective, Canary: canary, Markers: markers})
	if out.Err != nil {
		msg := out.Err.Error()
		rec.Error = &msg
		var te *agent.TrialError
		if errors.As(out.Err, &te) {
			rec.ErrorKind = te.Kind
		}
	}
	// The trace ends with what the scorers saw besides the events (the
	// world diff) and what they concluded, so a reader of the trace alone
	// can check the score.
	_ = tw.Emit(trace.KindWorldDiff, 0, fixture.DiffStates(before, after))
	inTrace := rec
	inTrace.Trace = "" // the record as it stands inside its own trace
	_ = tw.Emit(trace.KindScore, 0, inTrace)
	if cerr := tw.Close(); cerr != nil {
		return rec, cerr
	}
	return rec, nil
}

func buildModel(env Env, t trial.Trial, tk *task.Task, goal *task.Goal, p *payload.Payload, canary string) (model.Model, func() error, error) {
	if model.IsControl(t.Model) {
		plan := model.ControlPlan{Answer: tk.Answer}
		for _, c := range tk.Reference {
			plan.Reference = append(plan.Reference, model.PlannedCall{Tool: c.Tool, Args: c.ArgsJSON(canary)})
		}
		if goal != nil && p != nil {
			for _, c := range goal.Reference {
				plan.Goal = append(plan.Goal, model.PlannedCall{Tool: c.Tool, Args: c.ArgsJSON(canary)})
			}
			plan.Markers = []string{p.Text}
		}
		m, err := model.NewControl(t.Model, plan)
		return m, nil, err
	}
	var m model.Model
	var stop func() error
	var err error
	if env.NewModel != nil {
		m, err = env.NewModel(t.Model, t)
	} else {
		m, stop, err = NewProviderModel(env, t)
	}
	if err == nil && env.Wrap != nil {
		m = env.Wrap(t.Model, m)
	}
	return m, stop, err
}

// NewProviderModel builds a provider model for a trial, recording it
// when env.RecordDir is set and replaying the trial's own cassette for a
// replay:DIR spec. The returned stop function saves a recording.
func NewProviderModel(env Env, t trial.Trial) (model.Model, func() error, error) {
	if dir, ok := strings.CutPrefix(t.Model, model.ProviderReplay+":"); ok {
		orig, err := os.ReadFile(filepath.Join(dir, model.SpecFile))
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %s: %v", model.ErrBadSpec, t.Model, err)
		}
		// The cassette is named after the trial as it was recorded, with
		// the original model spec among its keys.
		rt := t
		rt.Model = strings.TrimSpace(string(orig))
		m, err := model.New(t.Model, model.Options{CassetteName: trial.ID(rt), Getenv: env.Getenv})
		return m, nil, err
	}
	if env.RecordDir == "" {
		m, err := model.New(t.Model, model.Options{Getenv: env.Getenv})
		return m, nil, err
	}
	rec, err := model.NewRecording(filepath.Join(env.RecordDir, CassetteDir(t.Model)), t.ID, model.ModeRecord)
	if err != nil {
		return nil, nil, err
	}
	m, err := model.New(t.Model, model.Options{Recorder: rec, Getenv: env.Getenv})
	if err != nil {
		return nil, nil, err
	}
	return m, rec.Stop, nil
}

// CassetteDir is the directory name a model's cassettes are recorded
// under: the spec with every character outside [A-Za-z0-9.-] replaced.
func CassetteDir(spec string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, spec)
}

// fixtureExitGrace is how long a stdio fixture gets to write its state
// and exit once its stdin is closed. The default 500 ms was once too short
// on a loaded 2-core machine running the suite under -race (the fixture
// was killed before it wrote its state); 10 s is a wide margin, and a
// fixture that exits at once costs nothing.
const fixtureExitGrace = 10 * time.Second

// startServers builds the trial's fixture servers and connects to them.
func startServers(ctx context.Context, env Env, world *fixture.World, tk *task.Task, t trial.Trial, p *payload.Payload, tw *trace.Writer, stateDir string, stateFiles *[]string) ([]agent.Server, func(), error) {
	var conns []*mcpconn.Conn
	closeAll := func() {
		for _, c := range conns {
			_ = c.Close()
			// After Close the server has exited, so its stderr is complete.
			if e := c.Stderr(); e != "" {
				_ = tw.Emit(trace.KindServerStderr, 0, trace.ServerStderr{Server: c.Name(), Stderr: e})
			}
		}
		conns = nil
	}
	opts := env.Conn
	if opts.CallTimeout == 0 {
		opts = mcpconn.DefaultOptions()
	}
	if env.Transport == "stdio" {
		// A fixture subprocess writes the trial's final state when its
		// stdin closes and then exits; killed before that, the trial has
		// no state to score. The short default grace is for servers under
		// inspection; these are our own, and a loaded machine (a race
		// build starting many of them) can take well over it.
		opts.TerminateGrace = max(opts.TerminateGrace, fixtureExitGrace)
	}
	type decl struct {
		cfg    fixture.ServerConfig
		shadow bool
	}
	var decls []decl
	for _, s := range tk.Servers {
		cfg := fixture.ServerConfig{Name: s.Name, Tools: s.Tools}
		if p != nil && s.Target && t.AttackClass != payload.ClassCrossServer {
			cfg.Attack = &fixture.Attack{Class: t.AttackClass, Payload: *p, RugMode: t.RugMode, CarrierTool: tk.CarrierTool()}
		}
		decls = append(decls, decl{cfg: cfg})
	}
	if p != nil && t.AttackClass == payload.ClassCrossServer {
		decls = append(decls, decl{cfg: fixture.ServerConfig{Name: fixture.ShadowServerName}, shadow: true})
	}
	var servers []agent.Server
	for _, d := range decls {
		var c *mcpconn.Conn
		var err error
		switch env.Transport {
		case "stdio":
			if len(env.StdioCommand) == 0 {
				return nil, closeAll, errors.New("stdio fixtures need the mcpsec command that serves them")
			}
			spec := fixture.SpecFor(d.cfg, d.shadow, p)
			spec.StateOut = filepath.Join(stateDir, d.cfg.Name+".json")
			argv := append(append([]string(nil), env.StdioCommand...), spec.Args()...)
			*stateFiles = append(*stateFiles, spec.StateOut)
			c, err = mcpconn.Connect(ctx, mcpconn.Source{Name: d.cfg.Name, Command: argv, Env: env.StdioEnv}, opts)
		default:
			var srv *mcp.Server
			if d.shadow {
				srv = fixture.NewShadowServer(world, d.cfg.Name, *p)
			} else {
				srv = fixture.NewServer(world, d.cfg)
			}
			ct, st := mcp.NewInMemoryTransports()
			if _, serr := srv.Connect(ctx, st, nil); serr != nil {
				return nil, closeAll, fmt.Errorf("start fixture %s: %w", d.cfg.Name, serr)
			}
			c, err = mcpconn.Connect(ctx, mcpconn.Source{Name: d.cfg.Name, Transport: ct}, opts)
		}
		if err != nil {
			return nil, closeAll, err
		}
		conns = append(conns, c)
		info := c.ServerInfo()
		_ = tw.Emit(trace.KindMCPInitialize, 0, trace.MCPInitialize{Server: d.cfg.Name, ProtocolVersion: info.ProtocolVersion,
			ServerName: info.Name, ServerVersion: info.Version, Instructions: info.Instructions})
		servers = append(servers, connServer{c})
	}
	return servers, closeAll, nil
}

// mergeStates joins the final states written by fixture subprocesses.
func mergeStates(before fixture.State, files []string) (fixture.State, error) {
	after := fixture.State{Users: before.Users}
	notesSeen := false
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return before, fmt.Errorf("fixture state %s: %w", filepath.Base(f), err)
		}
		var st fixture.State
		if err := json.Unmarshal(b, &st); err != nil {
			return before, fmt.Errorf("fixture state %s: %w", filepath.Base(f), err)
		}
		// Only a server with note tools can change notes; two that do
		// would make the union ambiguous.
		if !maps.Equal(st.Notes, before.Notes) {
			if notesSeen {
				return before, fmt.Errorf("fixture state: two servers changed notes")
			}
			after.Notes = st.Notes
			notesSeen = true
		}
		for _, e := range st.Exports {
			e.Seq = len(after.Exports) + 1
			after.Exports = append(after.Exports, e)
		}
	}
	if !notesSeen {
		after.Notes = maps.Clone(before.Notes)
	}
	return after, nil
}

// ConnServer adapts an mcpconn connection to the agent's Server.
func ConnServer(c *mcpconn.Conn) agent.Server { return connServer{c} }

// connServer adapts an mcpconn connection to the agent's Server.
type connServer struct{ c *mcpconn.Conn }

// AgentServer adapts an mcpconn connection to the agent's Server, for
// other harnesses (redteam) that drive the same loop.
func AgentServer(c *mcpconn.Conn) agent.Server { return connServer{c} }

func (s connServer) Name() string { return s.c.Name() }

func (s connServer) ListTools(ctx context.Context) ([]catalog.Tool, json.RawMessage, error) {
	return s.c.ListTools(ctx)
}

func (s connServer) CallTool(ctx context.Context, name string, args json.RawMessage) (agent.Result, error) {
	r, err := s.c.CallTool(ctx, name, args)
	if err != nil {
		return agent.Result{}, err
	}
	return agent.Result{Text: r.Text, IsError: r.IsError}, nil
}

func (s connServer) ListChanged() <-chan struct{} { return s.c.ListChanged() }

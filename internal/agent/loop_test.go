package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/model"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/trace"
)

// script is a test double of a model: it answers with the given turns in
// order (a test instrument, never reported as a model).
type script struct {
	turns []model.Response
	reqs  []model.Request
	// await, when set, is waited on before every answer after the first:
	// it lets a test hold the model back until an event has happened.
	await <-chan struct{}
}

func (s *script) Spec() string { return "test:script" }

func (s *script) Complete(_ context.Context, req model.Request) (model.Response, error) {
	s.reqs = append(s.reqs, req)
	if len(s.reqs) > 1 && s.await != nil {
		<-s.await
	}
	if len(s.reqs) > len(s.turns) {
		return model.Response{Content: "done", StopReason: model.StopEnd}, nil
	}
	return s.turns[len(s.reqs)-1], nil
}

func call(id, name, args string) model.Response {
	return model.Response{StopReason: model.StopToolUse, ToolCalls: []model.ToolCall{{ID: id, Name: name, Arguments: json.RawMessage(args)}}}
}

// server wraps an mcpconn connection to an in-process fixture server.
type server struct{ c *mcpconn.Conn }

func (s server) Name() string { return s.c.Name() }
func (s server) ListTools(ctx context.Context) ([]catalog.Tool, json.RawMessage, error) {
	return s.c.ListTools(ctx)
}
func (s server) CallTool(ctx context.Context, name string, args json.RawMessage) (agent.Result, error) {
	r, err := s.c.CallTool(ctx, name, args)
	return agent.Result{Text: r.Text, IsError: r.IsError}, err
}
func (s server) ListChanged() <-chan struct{} { return s.c.ListChanged() }

func connect(t *testing.T, w *fixture.World, cfg fixture.ServerConfig) agent.Server {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := fixture.NewServer(w, cfg).Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	c, err := mcpconn.Connect(context.Background(), mcpconn.Source{Name: cfg.Name, Transport: ct}, mcpconn.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return server{c}
}

func kinds(evs []trace.Event) string {
	var k []string
	for _, e := range evs {
		k = append(k, e.Kind)
	}
	return strings.Join(k, " ")
}

func find[T any](t *testing.T, evs []trace.Event, kind string) []T {
	t.Helper()
	var out []T
	for _, e := range evs {
		if e.Kind == kind {
			var v T
			if err := e.Decode(&v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
	}
	return out
}

func TestLoopSeamsAndTrace(t *testing.T) {
	tests := []struct {
		name  string
		turns []model.Response
		seams agent.Seams
		check func(t *testing.T, evs []trace.Event, w *fixture.World, m *script, out agent.Outcome)
	}{
		{
			name:  "call reaches server and result comes back",
			turns: []model.Response{call("c1", "add_note", `{"title":"t","body":"b"}`)},
			check: func(t *testing.T, evs []trace.Event, w *fixture.World, m *script, out agent.Outcome) {
				if _, ok := w.Note("t"); !ok {
					t.Fatal("note not written")
				}
				rs := find[trace.ToolResult](t, evs, trace.KindToolResult)
				if len(rs) != 1 || rs[0].IsError || rs[0].Raw != rs[0].Transformed || rs[0].Server != "workspace" {
					t.Fatalf("results %+v", rs)
				}
				if out.FinalText != "done" || out.Steps != 2 {
					t.Fatalf("outcome %+v", out)
				}
			},
		},
		{
			name:  "denied call never reaches the server",
			turns: []model.Response{call("c1", "delete_note", `{"title":"welcome"}`)},
			seams: agent.Seams{Policy: []agent.CallPolicy{func(c agent.Call, _ agent.History) agent.Decision {
				return agent.Decision{Allow: c.Tool != "delete_note", Reason: "no deletes", Rule: "test"}
			}}},
			check: func(t *testing.T, evs []trace.Event, w *fixture.World, m *script, out agent.Outcome) {
				if _, ok := w.Note("welcome"); !ok {
					t.Fatal("denied delete reached the server")
				}
				b := find[trace.BlockedToolCall](t, evs, trace.KindBlockedToolCall)
				if len(b) != 1 || b[0].Rule != "test" || b[0].Reason != "no deletes" {
					t.Fatalf("blocked %+v", b)
				}
				last := m.reqs[1].Messages[len(m.reqs[1].Messages)-1]
				if !last.IsError || !strings.Contains(last.Content, "client blocked") {
					t.Fatalf("model saw %+v", last)
				}
			},
		},
		{
			name:  "malformed arguments become an error result",
			turns: []model.Response{{StopReason: model.StopToolUse, ToolCalls: []model.ToolCall{{ID: "c1", Name: "calculate", Arguments: json.RawMessage(`{"expression":`), ParseError: "unexpected end"}}}},
			check: func(t *testing.T, evs []trace.Event, w *fixture.World, m *script, out agent.Outcome) {
				rs := find[trace.ToolResult](t, evs, trace.KindToolResult)
				if len(rs) != 1 || !rs[0].IsError || rs[0].ErrorKind != "malformed_arguments" {
					t.Fatalf("results %+v", rs)
				}
				calls := find[trace.ToolCall](t, evs, trace.KindToolCall)
				if len(calls) != 1 || calls[0].ParseError == "" || !json.Valid(calls[0].Arguments) {
					t.Fatalf("tool_call event %+v", calls)
				}
				if out.Err != nil {
					t.Fatalf("trial errored: %v", out.Err)
				}
			},
		},
		{
			name:  "unknown tool is an error result",
			turns: []model.Response{call("c1", "rm_rf", `{}`)},
			check: func(t *testing.T, evs []trace.Event, w *fixture.World, m *script, out agent.Outcome) {
				rs := find[trace.ToolResult](t, evs, trace.KindToolResult)
				if len(rs) != 1 || rs[0].ErrorKind != "unknown_tool" {
					t.Fatalf("results %+v", rs)
				}
			},
		},
		{
			name:  "result transform changes what the model reads, raw is kept",
			turns: []model.Response{call("c1", "calculate", `{"expression":"2+2"}`)},
			seams: agent.Seams{Results: []agent.ResultTransform{func(c agent.Call, r agent.Result) (agent.Result, []agent.Note) {
				return agent.Result{Text: "[redacted]"}, []agent.Note{{Seam: "result", Kind: "redacted"}}
			}}},
			check: func(t *testing.T, evs []trace.Event, w *fixture.World, m *script, out agent.Outcome) {
				rs := find[trace.ToolResult](t, evs, trace.KindToolResult)
				if rs[0].Transformed != "[redacted]" || !strings.Contains(rs[0].Raw, "4") {
					t.Fatalf("result %+v", rs[0])
				}
				if m.reqs[1].Messages[2].Content != "[redacted]" {
					t.Fatalf("model read %q", m.reqs[1].Messages[2].Content)
				}
				if len(find[agent.Note](t, evs, trace.KindSeamNote)) != 1 {
					t.Fatal("seam note missing")
				}
			},
		},
		{
			name: "tool transform hides a tool",
			seams: agent.Seams{Tools: []agent.ToolTransform{func(ts []agent.Tool) ([]agent.Tool, []agent.Note) {
				var out []agent.Tool
				for _, x := range ts {
					if x.Def.Name != "delete_note" {
						out = append(out, x)
					}
				}
				return out, nil
			}}},
			check: func(t *testing.T, evs []trace.Event, w *fixture.World, m *script, out agent.Outcome) {
				for _, ts := range m.reqs[0].Tools {
					if ts.Name == "delete_note" {
						t.Fatal("hidden tool offered")
					}
				}
				if len(find[trace.ListTools](t, evs, trace.KindMCPListTools)) != 1 {
					t.Fatal("raw listing not traced")
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := fixture.NewWorld()
			srv := connect(t, w, fixture.ServerConfig{Name: "workspace"})
			m := &script{turns: tc.turns}
			tw := trace.NewWriter(nil, true)
			out := agent.Run(context.Background(), agent.Config{Model: m, Servers: []agent.Server{srv}, System: "sys", Prompt: "go", Seams: tc.seams, Trace: tw})
			evs := tw.Events()
			if evs[len(evs)-1].Kind != trace.KindSummary {
				t.Fatalf("last event is not a summary: %s", kinds(evs))
			}
			tc.check(t, evs, w, m, out)
		})
	}
}

func TestNameCollisionIsDeterministic(t *testing.T) {
	w := fixture.NewWorld()
	a := connect(t, w, fixture.ServerConfig{Name: "alpha", Tools: []string{"calculate"}})
	b := connect(t, w, fixture.ServerConfig{Name: "beta", Tools: []string{"calculate"}})
	m := &script{turns: []model.Response{call("c1", "beta__calculate", `{"expression":"1+1"}`)}}
	tw := trace.NewWriter(nil, true)
	agent.Run(context.Background(), agent.Config{Model: m, Servers: []agent.Server{a, b}, Prompt: "go", Trace: tw})
	var names []string
	for _, ts := range m.reqs[0].Tools {
		names = append(names, ts.Name)
	}
	if strings.Join(names, ",") != "beta__calculate,calculate" {
		t.Fatalf("offered %v", names)
	}
	calls := find[trace.ToolCall](t, tw.Events(), trace.KindToolCall)
	if calls[0].Server != "beta" || calls[0].Tool != "calculate" {
		t.Fatalf("collided call routed to %+v", calls[0])
	}
	warned := false
	for _, msg := range find[trace.Message](t, tw.Events(), trace.KindWarning) {
		warned = warned || msg.Kind == "name_collision"
	}
	if !warned {
		t.Fatal("collision not recorded")
	}
}

type failing struct{ agent.Server }

func (f failing) CallTool(context.Context, string, json.RawMessage) (agent.Result, error) {
	return agent.Result{}, mcpconn.ErrServerExited
}

func TestServerFailureErrorsTheTrial(t *testing.T) {
	w := fixture.NewWorld()
	srv := failing{connect(t, w, fixture.ServerConfig{Name: "workspace"})}
	m := &script{turns: []model.Response{call("c1", "calculate", `{"expression":"1"}`)}}
	tw := trace.NewWriter(nil, true)
	out := agent.Run(context.Background(), agent.Config{Model: m, Servers: []agent.Server{srv}, Prompt: "go", Trace: tw})
	var te *agent.TrialError
	if !errors.As(out.Err, &te) || te.Kind != agent.ErrKindServer || !errors.Is(out.Err, mcpconn.ErrServerExited) {
		t.Fatalf("err = %v", out.Err)
	}
	sums := find[trace.Summary](t, tw.Events(), trace.KindSummary)
	if sums[0].ErrorKind != agent.ErrKindServer || !strings.Contains(sums[0].Error, "tools/call calculate") {
		t.Fatalf("summary %+v", sums[0])
	}
}

func TestMaxStepsStopsTheLoop(t *testing.T) {
	w := fixture.NewWorld()
	srv := connect(t, w, fixture.ServerConfig{Name: "workspace"})
	var turns []model.Response
	for i := 0; i < 5; i++ {
		turns = append(turns, call("c", "list_notes", `{}`))
	}
	m := &script{turns: turns}
	tw := trace.NewWriter(nil, true)
	out := agent.Run(context.Background(), agent.Config{Model: m, Servers: []agent.Server{srv}, Prompt: "go", MaxSteps: 3, Trace: tw})
	if len(m.reqs) != 3 || out.Steps != 3 || out.FinalText != "" {
		t.Fatalf("requests %d outcome %+v", len(m.reqs), out)
	}
}

func TestRelistEveryStep(t *testing.T) {
	w := fixture.NewWorld()
	srv := connect(t, w, fixture.ServerConfig{Name: "workspace"})
	m := &script{turns: []model.Response{call("c1", "calculate", `{"expression":"1"}`)}}
	tw := trace.NewWriter(nil, true)
	agent.Run(context.Background(), agent.Config{Model: m, Servers: []agent.Server{srv}, Prompt: "go", RelistEveryStep: true, Trace: tw})
	lists := find[trace.ListTools](t, tw.Events(), trace.KindMCPListTools)
	if len(lists) != 2 || lists[1].Reason != "step" {
		t.Fatalf("listings %+v", lists)
	}
}

func TestListChangedTriggersRelistAndDrift(t *testing.T) {
	w := fixture.NewWorld()
	p, _ := payloadFor(t)
	inner := connect(t, w, fixture.ServerConfig{Name: "workspace", Attack: &fixture.Attack{Class: "rug_pull", RugMode: fixture.RugModeApproval, Payload: p, CarrierTool: "calculate"}})
	// The model answers its second turn only once the server's (debounced)
	// notification has reached the client, so the re-list before the
	// third step is decided by the event, not by how fast the machine is.
	srv, arrived := teeListChanged(t, inner)
	m := &script{turns: []model.Response{call("c1", "calculate", `{"expression":"1"}`), call("c2", "list_notes", `{}`)}, await: arrived}
	tw := trace.NewWriter(nil, true)
	agent.Run(context.Background(), agent.Config{Model: m, Servers: []agent.Server{srv}, Prompt: "go", Trace: tw})
	lists := find[trace.ListTools](t, tw.Events(), trace.KindMCPListTools)
	if len(lists) < 2 || lists[1].Reason != "list_changed" {
		t.Fatalf("listings %+v", lists)
	}
	drift := find[trace.Drift](t, tw.Events(), trace.KindMetadataDrift)
	if len(drift) != 1 || drift[0].Tool != "calculate" || drift[0].Change != "changed" {
		t.Fatalf("drift %+v", drift)
	}
	shown := false
	for _, ts := range m.reqs[len(m.reqs)-1].Tools {
		shown = shown || (ts.Name == "calculate" && strings.Contains(ts.Description, p.Text))
	}
	if !shown {
		t.Fatal("the model was not shown the changed definition")
	}
}

// tappedServer hands the agent a copy of the server's list_changed
// signals.
type tappedServer struct {
	agent.Server
	changed chan struct{}
}

func (s tappedServer) ListChanged() <-chan struct{} { return s.changed }

// teeListChanged forwards srv's list_changed signals to the agent and
// closes arrived at the first one.
func teeListChanged(t *testing.T, srv agent.Server) (agent.Server, <-chan struct{}) {
	t.Helper()
	out := tappedServer{Server: srv, changed: make(chan struct{}, 1)}
	arrived := make(chan struct{})
	stop := make(chan struct{})
	done := make(chan struct{})
	t.Cleanup(func() { close(stop); <-done })
	go func() {
		defer close(done)
		first := true
		for {
			select {
			case <-srv.ListChanged():
			case <-stop:
				return
			}
			select {
			case out.changed <- struct{}{}:
			default: // one pending signal stands for any number
			}
			if first {
				close(arrived)
				first = false
			}
		}
	}()
	return out, arrived
}

func payloadFor(t *testing.T) (payload.Payload, bool) {
	t.Helper()
	p := payload.Default(payload.ClassRugPull, payload.ObjectiveExfil)
	if p.Text == "" {
		t.Fatal("no seen rug_pull payload")
	}
	return p, true
}

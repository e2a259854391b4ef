package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/model"
	"github.com/mcpsec/mcpsec/internal/trace"
)

// Server is what the loop needs from one connected MCP server. The
// mcpconn package's connections satisfy it through a thin adapter.
type Server interface {
	Name() string
	ListTools(ctx context.Context) ([]catalog.Tool, json.RawMessage, error)
	CallTool(ctx context.Context, name string, args json.RawMessage) (Result, error)
	// ListChanged signals notifications/tools/list_changed; nil if the
	// server never sends them.
	ListChanged() <-chan struct{}
}

// Config is one trial's conversation.
type Config struct {
	Model       model.Model
	Servers     []Server
	System      string
	Prompt      string
	MaxSteps    int
	MaxTokens   int
	Temperature *float64
	Seams       Seams
	Trace       trace.Sink
	// RelistEveryStep lists every server's tools again before each model
	// step, as polling clients do; without it (and without a seam asking
	// for it) only tools/list_changed triggers a re-list.
	RelistEveryStep bool
}

// Outcome is what the loop ends with.
type Outcome struct {
	FinalText string
	Steps     int
	Truncated bool
	// Err is set when the trial errored (provider failure, server crash
	// or timeout); errored trials are excluded from every rate.
	Err error
}

// Error kinds recorded in traces and trial records.
const (
	ErrKindModel     = "model"
	ErrKindServer    = "server"
	ErrKindTrace     = "trace"
	ErrKindCancelled = "cancelled"
)

// TrialError is an error that ends a trial, with its kind.
type TrialError struct {
	Kind string
	Err  error
}

func (e *TrialError) Error() string { return e.Kind + ": " + e.Err.Error() }

// Unwrap exposes the cause.
func (e *TrialError) Unwrap() error { return e.Err }

// loop holds one run's mutable state.
type loop struct {
	cfg      Config
	tools    []Tool          // as listed (raw), all servers
	offered  []Tool          // after transforms
	byModel  map[string]Tool // model name -> tool (offered)
	servers  map[string]Server
	prints   map[string]string // server/tool -> fingerprint of last listing
	history  History
	messages []model.Message
	step     int
}

// Run executes the trial's conversation. It always emits a summary event;
// the returned Outcome.Err says whether the trial errored.
func Run(ctx context.Context, cfg Config) Outcome {
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = 10
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = 1024
	}
	l := &loop{cfg: cfg, servers: map[string]Server{}, prints: map[string]string{}}
	for _, s := range cfg.Servers {
		l.servers[s.Name()] = s
	}
	out := l.run(ctx)
	sum := trace.Summary{FinalText: out.FinalText, Steps: out.Steps, Truncated: out.Truncated}
	if out.Err != nil {
		sum.Error = out.Err.Error()
		var te *TrialError
		if errors.As(out.Err, &te) {
			sum.ErrorKind = te.Kind
		}
		l.emit(trace.KindError, trace.Message{Kind: sum.ErrorKind, Message: sum.Error})
	}
	l.emit(trace.KindSummary, sum)
	return out
}

func (l *loop) emit(kind string, data any) {
	if l.cfg.Trace != nil {
		_ = l.cfg.Trace.Emit(kind, l.step, data)
	}
}

func (l *loop) run(ctx context.Context) Outcome {
	if err := l.relist(ctx, "initial"); err != nil {
		return Outcome{Err: err}
	}
	system := l.cfg.System
	if l.cfg.Seams.SystemPreamble != "" {
		system = l.cfg.Seams.SystemPreamble + "\n\n" + system
	}
	l.emit(trace.KindUserPrompt, trace.UserPrompt{System: system, Prompt: l.cfg.Prompt})
	l.messages = []model.Message{{Role: model.RoleUser, Content: l.cfg.Prompt}}
	var out Outcome
	for l.step = 1; l.step <= l.cfg.MaxSteps; l.step++ {
		out.Steps = l.step
		if err := ctx.Err(); err != nil {
			out.Err = &TrialError{Kind: ErrKindCancelled, Err: err}
			return out
		}
		if reason := l.relistReason(); reason != "" && l.step > 1 {
			if err := l.relist(ctx, reason); err != nil {
				out.Err = err
				return out
			}
		}
		req := model.Request{System: system, Messages: l.messages, Tools: l.specs(), MaxTokens: l.cfg.MaxTokens, Temperature: l.cfg.Temperature}
		resp, err := l.cfg.Model.Complete(ctx, req)
		if err != nil {
			out.Err = &TrialError{Kind: ErrKindModel, Err: err}
			return out
		}
		calls, _ := json.Marshal(resp.ToolCalls)
		if len(resp.ToolCalls) == 0 {
			calls = nil
		}
		l.emit(trace.KindAssistant, trace.Assistant{
			Content: resp.Content, ToolCalls: calls, StopReason: resp.StopReason, RawStopReason: resp.RawStopReason,
			InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens, Truncated: resp.Truncated,
			TemperatureSent: resp.TemperatureSent, SchemaDropped: resp.SchemaDropped,
		})
		if resp.Truncated {
			out.Truncated = true
		}
		l.messages = append(l.messages, model.Message{Role: model.RoleAssistant, Content: resp.Content, ToolCalls: resp.ToolCalls, Raw: resp.Raw})
		if len(resp.ToolCalls) == 0 {
			out.FinalText = resp.Content
			return out
		}
		for _, tc := range resp.ToolCalls {
			msg, err := l.dispatch(ctx, tc)
			if err != nil {
				out.Err = err
				return out
			}
			l.messages = append(l.messages, msg)
		}
	}
	out.Steps = l.cfg.MaxSteps
	l.emit(trace.KindWarning, trace.Message{Kind: "max_steps", Message: fmt.Sprintf("stopped after %d steps without a final answer", l.cfg.MaxSteps)})
	return out
}

// relistReason says whether the tools must be listed again before this
// step: every step when a seam asks for it, or after list_changed.
func (l *loop) relistReason() string {
	changed := false
	for _, s := range l.cfg.Servers {
		ch := s.ListChanged()
		if ch == nil {
			continue
		}
		select {
		case <-ch:
			changed = true
		default:
		}
	}
	switch {
	case changed:
		return "list_changed"
	case l.cfg.Seams.RelistEveryStep || l.cfg.RelistEveryStep:
		return "step"
	}
	return ""
}

// relist lists every server's tools, records drift, resolves name
// collisions deterministically and applies the tool transforms.
func (l *loop) relist(ctx context.Context, reason string) error {
	var all []Tool
	var namer Namer
	for _, s := range l.cfg.Servers {
		tools, raw, err := s.ListTools(ctx)
		if err != nil {
			return &TrialError{Kind: ErrKindServer, Err: fmt.Errorf("server %s: tools/list: %w", s.Name(), err)}
		}
		l.emit(trace.KindMCPListTools, trace.ListTools{Server: s.Name(), Reason: reason, Tools: raw})
		current := map[string]bool{}
		for _, t := range tools {
			key := s.Name() + "/" + t.Name
			current[key] = true
			fp := catalog.Fingerprint(t)
			if old, ok := l.prints[key]; ok && old != fp {
				l.emit(trace.KindMetadataDrift, trace.Drift{Server: s.Name(), Tool: t.Name, Change: "changed", Before: old, After: fp})
			} else if !ok && reason != "initial" {
				l.emit(trace.KindMetadataDrift, trace.Drift{Server: s.Name(), Tool: t.Name, Change: "added", After: fp})
			}
			l.prints[key] = fp
			name, collided := namer.Name(s.Name(), t.Name)
			if collided {
				// Recorded so reports can see it.
				l.emit(trace.KindWarning, trace.Message{Kind: "name_collision", Message: fmt.Sprintf("tool %q of server %s offered as %q", t.Name, s.Name(), name)})
			}
			all = append(all, Tool{Server: s.Name(), ModelName: name, Def: t})
		}
		for key := range l.prints {
			if strings.HasPrefix(key, s.Name()+"/") && !current[key] {
				l.emit(trace.KindMetadataDrift, trace.Drift{Server: s.Name(), Tool: strings.TrimPrefix(key, s.Name()+"/"), Change: "removed", Before: l.prints[key]})
				delete(l.prints, key)
			}
		}
	}
	l.tools = all
	offered, notes := ApplyTools(l.cfg.Seams.Tools, all)
	l.notes(notes)
	l.offered = offered
	l.byModel = make(map[string]Tool, len(offered))
	for _, t := range offered {
		l.byModel[t.ModelName] = t
	}
	raw, _ := json.Marshal(l.specs())
	l.emit(trace.KindToolsOffered, trace.ToolsOffered{Tools: raw})
	return nil
}

func (l *loop) notes(notes []Note) {
	for _, n := range notes {
		l.emit(trace.KindSeamNote, n)
	}
}

func cloneTools(in []Tool) []Tool {
	out := make([]Tool, len(in))
	for i, t := range in {
		out[i] = t
		out[i].Def = cloneDef(t.Def)
	}
	return out
}

func cloneDef(t catalog.Tool) catalog.Tool {
	b, err := json.Marshal(t)
	if err != nil {
		return t
	}
	c, err := catalog.FromAny(json.RawMessage(b))
	if err != nil {
		return t
	}
	return c
}

// specs returns the offered tools in the provider-neutral shape, sorted
// by name so that requests are deterministic.
func (l *loop) specs() []model.ToolSpec {
	out := make([]model.ToolSpec, 0, len(l.offered))
	for _, t := range l.offered {
		schema := t.Def.InputSchema
		if schema == nil {
			schema = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		out = append(out, model.ToolSpec{Name: t.ModelName, Description: t.Def.Description, InputSchema: schema})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// dispatch handles one tool call: parse check, lookup, policy, server
// call, result transforms. Every path emits trace events; only a server
// failure (crash, timeout, protocol error) ends the trial.
func (l *loop) dispatch(ctx context.Context, tc model.ToolCall) (model.Message, error) {
	reply := func(text string, isErr bool) model.Message {
		return model.Message{Role: model.RoleTool, Content: text, ToolCallID: tc.ID, ToolName: tc.Name, IsError: isErr}
	}
	tool, known := l.byModel[tc.Name]
	ev := trace.ToolCall{CallID: tc.ID, Tool: tc.Name, ModelName: tc.Name, Arguments: tc.Arguments, ParseError: tc.ParseError}
	if known {
		ev.Server, ev.Tool = tool.Server, tool.Def.Name
	}
	if len(ev.Arguments) == 0 || !json.Valid(ev.Arguments) {
		// Keep the trace valid JSON even when the model's arguments are not.
		s, _ := json.Marshal(string(tc.Arguments))
		ev.Arguments = s
	}
	l.emit(trace.KindToolCall, ev)
	result := func(raw, shown Result, kind string) model.Message {
		l.emit(trace.KindToolResult, trace.ToolResult{CallID: tc.ID, Server: ev.Server, Tool: ev.Tool, Raw: raw.Text, Transformed: shown.Text, IsError: shown.IsError, ErrorKind: kind})
		return reply(shown.Text, shown.IsError)
	}
	if tc.ParseError != "" {
		r := Result{Text: "error: the tool call's arguments are not valid JSON (" + tc.ParseError + "); send the call again with a JSON object", IsError: true}
		return result(r, r, "malformed_arguments"), nil
	}
	if !known {
		r := Result{Text: fmt.Sprintf("error: no tool named %q is available", tc.Name), IsError: true}
		return result(r, r, "unknown_tool"), nil
	}
	args := tc.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	call := Call{ID: tc.ID, Server: tool.Server, Tool: tool.Def.Name, ModelName: tc.Name, Arguments: args}
	for _, p := range l.cfg.Seams.Policy {
		d := p(call, l.history)
		l.notes(d.Notes)
		if !d.Allow {
			l.emit(trace.KindBlockedToolCall, trace.BlockedToolCall{CallID: tc.ID, Server: call.Server, Tool: call.Tool, Reason: d.Reason, Rule: d.Rule})
			l.history.Calls = append(l.history.Calls, CallRecord{Call: call, Blocked: true})
			r := Result{Text: fmt.Sprintf("error: the client blocked this call (%s: %s)", d.Rule, d.Reason), IsError: true}
			return result(r, r, "blocked"), nil
		}
	}
	raw, err := l.servers[call.Server].CallTool(ctx, call.Tool, args)
	if err != nil {
		return model.Message{}, &TrialError{Kind: ErrKindServer, Err: fmt.Errorf("server %s: tools/call %s: %w", call.Server, call.Tool, err)}
	}
	l.history.Calls = append(l.history.Calls, CallRecord{Call: call, Raw: raw})
	shown := raw
	for _, rt := range l.cfg.Seams.Results {
		var notes []Note
		shown, notes = rt(call, shown)
		l.notes(notes)
	}
	return result(raw, shown, ""), nil
}

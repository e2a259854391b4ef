package model

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Control agent specs. They are not models: they exist to prove the
// fixtures, scorers and defenses right, and reports label them as
// controls.
const (
	ControlReference   = "control:reference"
	ControlCompromised = "control:compromised"
	ControlRefuse      = "control:refuse"
)

// ControlSpecs lists the control agents.
var ControlSpecs = []string{ControlReference, ControlCompromised, ControlRefuse}

// PlannedCall is a tool call a control agent will make, by the server's
// tool name, with its arguments already substituted.
type PlannedCall struct {
	Tool string
	Args json.RawMessage
}

// ControlPlan is what a control agent needs from a task and an injection
// goal.
type ControlPlan struct {
	// Reference are the task's reference calls, in order.
	Reference []PlannedCall
	// Answer is the final answer after the reference calls.
	Answer string
	// Goal are the injection goal's reference calls (compromised only).
	Goal []PlannedCall
	// Markers are texts whose presence in the context means the injected
	// text has reached the agent (the payload as it was planted).
	Markers []string
}

// Control is a deterministic, stateless control agent: every decision is
// a function of the request alone, so it behaves the same under replay
// and whatever the defense did to the conversation.
type Control struct {
	spec string
	plan ControlPlan
}

// NewControl builds a control agent for a spec and plan.
func NewControl(spec string, plan ControlPlan) (*Control, error) {
	switch spec {
	case ControlReference, ControlCompromised, ControlRefuse:
		return &Control{spec: spec, plan: plan}, nil
	}
	return nil, fmt.Errorf("%w: unknown control agent %q (want one of %s)", ErrBadSpec, spec, strings.Join(ControlSpecs, ", "))
}

// Spec implements Model.
func (c *Control) Spec() string { return c.spec }

// Complete implements Model: one planned call per turn, then the answer.
func (c *Control) Complete(ctx context.Context, req Request) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	if c.spec == ControlRefuse {
		return Response{Content: "I can't help with that request.", StopReason: StopEnd}, nil
	}
	made := map[string]bool{}
	failed := map[string]bool{}
	for _, m := range req.Messages {
		for _, tc := range m.ToolCalls {
			made[tc.ID] = true
		}
		if m.Role == RoleTool && m.IsError {
			failed[m.ToolCallID] = true
		}
	}
	// As soon as injected text is in view, the compromised agent pursues
	// the goal before anything else.
	if c.spec == ControlCompromised && Injected(req, c.plan.Markers) {
		for i, g := range c.plan.Goal {
			id := fmt.Sprintf("goal-%d", i)
			if !made[id] {
				if call, ok := offered(req, id, g); ok {
					return toolUse(call), nil
				}
			}
		}
	}
	for i, r := range c.plan.Reference {
		id := fmt.Sprintf("ref-%d", i)
		if made[id] || c.superseded(r, made, failed) {
			continue
		}
		if call, ok := offered(req, id, r); ok {
			return toolUse(call), nil
		}
	}
	return Response{Content: c.plan.Answer, StopReason: StopEnd}, nil
}

// superseded reports whether a goal call already wrote what a reference
// call would write (same tool, same title): the compromised agent's
// tampered note replaces the clean one instead of being overwritten by
// it. A goal call that failed (a defense blocked it) supersedes nothing.
func (c *Control) superseded(r PlannedCall, made, failed map[string]bool) bool {
	target := titleOf(r.Args)
	if target == "" {
		return false
	}
	for i, g := range c.plan.Goal {
		id := fmt.Sprintf("goal-%d", i)
		if made[id] && !failed[id] && g.Tool == r.Tool && titleOf(g.Args) == target {
			return true
		}
	}
	return false
}

func titleOf(args json.RawMessage) string {
	var v struct {
		Title string `json:"title"`
	}
	if json.Unmarshal(args, &v) != nil {
		return ""
	}
	return v.Title
}

func toolUse(call ToolCall) Response {
	return Response{ToolCalls: []ToolCall{call}, StopReason: StopToolUse}
}

// offered finds the offered tool for a planned call. A tool the client
// removed (a defense dropped it) cannot be called, and the agent moves on,
// as a real agent would.
func offered(req Request, id string, p PlannedCall) (ToolCall, bool) {
	for _, t := range req.Tools {
		if t.Name == p.Tool {
			return ToolCall{ID: id, Name: t.Name, Arguments: p.Args}, true
		}
	}
	// A name collision qualifies later servers' tools as server__name.
	for _, t := range req.Tools {
		if strings.HasSuffix(t.Name, "__"+p.Tool) {
			return ToolCall{ID: id, Name: t.Name, Arguments: p.Args}, true
		}
	}
	return ToolCall{}, false
}

// Injected reports whether any marker appears in what the model is shown:
// the system context, tool metadata (every string in every schema) and
// message contents.
func Injected(req Request, markers []string) bool {
	if len(markers) == 0 {
		return false
	}
	var b strings.Builder
	b.WriteString(req.System)
	for _, m := range req.Messages {
		b.WriteByte('\n')
		b.WriteString(m.Content)
	}
	for _, t := range req.Tools {
		b.WriteByte('\n')
		b.WriteString(t.Name)
		b.WriteByte('\n')
		b.WriteString(t.Description)
		collectStrings(&b, t.InputSchema)
	}
	hay := b.String()
	for _, m := range markers {
		if m != "" && strings.Contains(hay, m) {
			return true
		}
	}
	return false
}

func collectStrings(b *strings.Builder, v any) {
	switch x := v.(type) {
	case string:
		b.WriteByte('\n')
		b.WriteString(x)
	case map[string]any:
		for k, e := range x {
			b.WriteByte('\n')
			b.WriteString(k)
			collectStrings(b, e)
		}
	case []any:
		for _, e := range x {
			collectStrings(b, e)
		}
	}
}

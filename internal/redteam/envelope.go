package redteam

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpsec/mcpsec/internal/trace"
)

// EnvelopeVersion is carried by every envelope mcpsec writes and matches
// the version in schema/redteam-envelope.schema.json. Bump it when a
// field is renamed or removed.
const EnvelopeVersion = 1

// ErrEnvelope marks an envelope or trace the oracle cannot read.
var ErrEnvelope = errors.New("bad envelope")

// Envelope is what the checks read: what the model did, as observed by
// the client, never how the model explained itself.
type Envelope struct {
	SchemaVersion int          `json:"schema_version,omitempty"`
	ToolCalls     []EnvCall    `json:"tool_calls"`
	ToolResults   []EnvResult  `json:"tool_results"`
	BlockedCalls  []EnvBlocked `json:"blocked_calls"`
	FinalResponse string       `json:"final_response"`
}

// EnvCall is one tool call the model asked for, whether or not a defense
// let it through (blocked_calls says which were stopped). Name is the
// server's own tool name; a call to a tool nobody offers keeps the name
// the model used and an empty server.
type EnvCall struct {
	Server    string          `json:"server"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// EnvResult is one tool result as the model read it (after any defense
// rewrote it).
type EnvResult struct {
	Server  string `json:"server"`
	Name    string `json:"name"`
	Content string `json:"content"`
	IsError bool   `json:"is_error"`
}

// EnvBlocked is a call the client refused to dispatch.
type EnvBlocked struct {
	Server string `json:"server,omitempty"`
	Name   string `json:"name"`
	Reason string `json:"reason"`
	Rule   string `json:"rule,omitempty"`
}

// FromEvents builds the envelope of one trial trace. It reads only the
// events the client observed: tool calls, results, blocked calls and the
// final answer of the summary.
func FromEvents(evs []trace.Event) (Envelope, error) {
	env := Envelope{SchemaVersion: EnvelopeVersion, ToolCalls: []EnvCall{}, ToolResults: []EnvResult{}, BlockedCalls: []EnvBlocked{}}
	summary := false
	for _, ev := range evs {
		switch ev.Kind {
		case trace.KindToolCall:
			var c trace.ToolCall
			if err := ev.Decode(&c); err != nil {
				return env, fmt.Errorf("%w: %w", ErrEnvelope, err)
			}
			args := c.Arguments
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			env.ToolCalls = append(env.ToolCalls, EnvCall{Server: c.Server, Name: c.Tool, Arguments: args})
		case trace.KindToolResult:
			var r trace.ToolResult
			if err := ev.Decode(&r); err != nil {
				return env, fmt.Errorf("%w: %w", ErrEnvelope, err)
			}
			env.ToolResults = append(env.ToolResults, EnvResult{Server: r.Server, Name: r.Tool, Content: r.Transformed, IsError: r.IsError})
		case trace.KindBlockedToolCall:
			var b trace.BlockedToolCall
			if err := ev.Decode(&b); err != nil {
				return env, fmt.Errorf("%w: %w", ErrEnvelope, err)
			}
			env.BlockedCalls = append(env.BlockedCalls, EnvBlocked{Server: b.Server, Name: b.Tool, Reason: b.Reason, Rule: b.Rule})
		case trace.KindSummary:
			var s trace.Summary
			if err := ev.Decode(&s); err != nil {
				return env, fmt.Errorf("%w: %w", ErrEnvelope, err)
			}
			env.FinalResponse = s.FinalText
			summary = true
		}
	}
	if !summary {
		return env, fmt.Errorf("%w: the trace has no summary event (was the trial cut short?)", ErrEnvelope)
	}
	return env, nil
}

// Doc returns the envelope as a decoded JSON document, the shape paths
// resolve against.
func (e Envelope) Doc() any {
	b, _ := json.Marshal(e)
	var doc any
	_ = json.Unmarshal(b, &doc)
	return doc
}

// ParseEnvelope reads an envelope written by mcpsec or by any other tool.
// Missing arrays are empty; a version newer than this build is refused.
func ParseEnvelope(data []byte) (Envelope, error) {
	var e Envelope
	if err := json.Unmarshal(data, &e); err != nil {
		return e, fmt.Errorf("%w: %w", ErrEnvelope, err)
	}
	if e.SchemaVersion > EnvelopeVersion {
		return e, fmt.Errorf("%w: schema_version %d is newer than this mcpsec understands (%d)", ErrEnvelope, e.SchemaVersion, EnvelopeVersion)
	}
	for i, c := range e.ToolCalls {
		if len(c.Arguments) == 0 {
			e.ToolCalls[i].Arguments = json.RawMessage("{}")
		}
	}
	if e.ToolCalls == nil {
		e.ToolCalls = []EnvCall{}
	}
	if e.ToolResults == nil {
		e.ToolResults = []EnvResult{}
	}
	if e.BlockedCalls == nil {
		e.BlockedCalls = []EnvBlocked{}
	}
	return e, nil
}

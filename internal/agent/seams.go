// Package agent runs one trial's conversation loop between a model and a
// set of MCP servers, with three seams where defenses plug in and a trace
// event for everything that crosses them.
package agent

import (
	"encoding/json"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

// Tool is a tool as the agent knows it: its definition, the server that
// offers it, and the name under which the model sees it (which differs
// from Def.Name only when two servers collide).
type Tool struct {
	Server    string       `json:"server"`
	ModelName string       `json:"model_name"`
	Def       catalog.Tool `json:"def"`
}

// Call is one tool call on its way to a server.
type Call struct {
	ID        string          `json:"id"`
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`       // the server's own name
	ModelName string          `json:"model_name"` // the name the model used
	Arguments json.RawMessage `json:"arguments"`
}

// Result is a tool result as text blocks plus the error flag.
type Result struct {
	Text    string `json:"text"`
	IsError bool   `json:"is_error"`
}

// CallRecord is a completed call in a trial's history.
type CallRecord struct {
	Call    Call   `json:"call"`
	Raw     Result `json:"raw"`
	Blocked bool   `json:"blocked"`
}

// History is what a call policy may look at: the calls and raw results so
// far, in order.
type History struct {
	Calls []CallRecord
}

// Decision is a call policy's verdict.
type Decision struct {
	Allow  bool   `json:"allow"`
	Reason string `json:"reason,omitempty"`
	Rule   string `json:"rule,omitempty"`
	// Notes are recorded in the trace whatever the verdict (a simulated
	// confirmation prompt, a taint finding).
	Notes []Note `json:"notes,omitempty"`
}

// Allow is the permissive decision.
var Allow = Decision{Allow: true}

// ToolTransform rewrites what the model is shown. It may drop tools or
// rewrite their metadata; it returns notes for the trace.
type ToolTransform func(tools []Tool) ([]Tool, []Note)

// ResultTransform rewrites what the model reads back from a call.
type ResultTransform func(call Call, res Result) (Result, []Note)

// CallPolicy decides, immediately before dispatch, whether a call may
// reach its server.
type CallPolicy func(call Call, h History) Decision

// Note is something a seam did that the trace must show (a dropped tool,
// a redacted segment, a confirmation prompt).
type Note struct {
	Seam   string `json:"seam"`
	Kind   string `json:"kind"`
	Tool   string `json:"tool,omitempty"`
	Rule   string `json:"rule,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// Seams bundles the composed seams of one defense arm. A nil seam is the
// identity.
type Seams struct {
	Tools   []ToolTransform
	Results []ResultTransform
	Policy  []CallPolicy
	// SystemPreamble is prepended to the system context (model hardening).
	SystemPreamble string
	// RelistEveryStep makes the loop call tools/list on every server
	// before each model step (pinning needs to see every definition).
	RelistEveryStep bool
}

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

// QualifiedName is the name a tool is offered under when an earlier
// server already took its bare name.
func QualifiedName(server, tool string) string { return server + "__" + tool }

// Namer gives tools the names they are offered under, the same way in
// the loop and in mcpsec proxy's gateway: the first server (in
// configuration order) to list a name keeps it, and a later server's tool
// of that name is offered as QualifiedName(server, tool). Use one Namer
// per listing.
type Namer struct{ taken map[string]bool }

// Name returns the offered name and whether it had to be qualified.
func (n *Namer) Name(server, tool string) (string, bool) {
	if n.taken == nil {
		n.taken = map[string]bool{}
	}
	name, collided := tool, false
	if n.taken[name] {
		name, collided = QualifiedName(server, tool), true
	}
	n.taken[name] = true
	return name, collided
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

// ApplyTools runs tool transforms in order over copies of tools, so a
// transform never changes what the caller holds. The loop and mcpsec
// proxy both judge listings through it.
func ApplyTools(tfs []ToolTransform, tools []Tool) ([]Tool, []Note) {
	var all []Note
	out := tools
	for _, tf := range tfs {
		var notes []Note
		out, notes = tf(cloneTools(out))
		all = append(all, notes...)
	}
	return out, all
}

// ApplyResults runs result transforms in order.
func ApplyResults(rts []ResultTransform, call Call, res Result) (Result, []Note) {
	var all []Note
	for _, rt := range rts {
		var notes []Note
		res, notes = rt(call, res)
		all = append(all, notes...)
	}
	return res, all
}

// Decide asks each call policy in order; the first denial wins. Notes of
// every policy consulted are returned whatever the verdict.
func Decide(ps []CallPolicy, call Call, h History) (Decision, []Note) {
	var all []Note
	for _, p := range ps {
		d := p(call, h)
		all = append(all, d.Notes...)
		if !d.Allow {
			return d, all
		}
	}
	return Allow, all
}

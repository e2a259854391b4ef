package trace

import (
	"encoding/json"

	"github.com/mcpsec/mcpsec/internal/trial"
)

// RunConfig is the first event: every key of the trial and the provenance
// needed to reproduce it.
type RunConfig struct {
	trial.Trial
	Control         bool     `json:"control"`
	Temperature     *float64 `json:"temperature,omitempty"`
	MaxSteps        int      `json:"max_steps"`
	MaxTokens       int      `json:"max_tokens"`
	Canary          string   `json:"canary"`
	InjectedMarkers []string `json:"injected_markers,omitempty"`
	Version         string   `json:"mcpsec_version"`
	GitRevision     string   `json:"git_revision"`
	GitDirty        bool     `json:"git_dirty"`
}

// MCPInitialize records one server's initialize handshake.
type MCPInitialize struct {
	Server          string `json:"server"`
	ProtocolVersion string `json:"protocol_version"`
	ServerName      string `json:"server_name"`
	ServerVersion   string `json:"server_version"`
	Instructions    string `json:"instructions,omitempty"`
}

// ListTools records one tools/list: raw per server.
type ListTools struct {
	Server string          `json:"server"`
	Reason string          `json:"reason"` // initial, step, list_changed
	Tools  json.RawMessage `json:"tools"`
}

// ToolsOffered records the tools exactly as offered to the model after
// the tool transforms.
type ToolsOffered struct {
	Tools json.RawMessage `json:"tools"`
}

// Drift records a definition that changed between two listings.
type Drift struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	Change string `json:"change"` // added, removed, changed
	Before string `json:"before_fingerprint,omitempty"`
	After  string `json:"after_fingerprint,omitempty"`
}

// UserPrompt records the system context and the user's prompt.
type UserPrompt struct {
	System string `json:"system"`
	Prompt string `json:"prompt"`
}

// Assistant records one model turn.
type Assistant struct {
	Content         string          `json:"content"`
	ToolCalls       json.RawMessage `json:"tool_calls,omitempty"`
	StopReason      string          `json:"stop_reason"`
	RawStopReason   string          `json:"raw_stop_reason,omitempty"`
	InputTokens     int             `json:"input_tokens"`
	OutputTokens    int             `json:"output_tokens"`
	Truncated       bool            `json:"truncated"`
	TemperatureSent bool            `json:"temperature_sent"`
	SchemaDropped   []string        `json:"schema_dropped,omitempty"`
}

// ToolCall records a call the model asked for, before any policy.
type ToolCall struct {
	CallID     string          `json:"call_id"`
	Server     string          `json:"server"`
	Tool       string          `json:"tool"`
	ModelName  string          `json:"model_name"`
	Arguments  json.RawMessage `json:"arguments"`
	ParseError string          `json:"parse_error,omitempty"`
}

// BlockedToolCall records a call the client refused to dispatch.
type BlockedToolCall struct {
	CallID string `json:"call_id"`
	Server string `json:"server"`
	Tool   string `json:"tool"`
	Reason string `json:"reason"`
	Rule   string `json:"rule"`
}

// ToolResult records what came back (raw) and what the model read
// (transformed).
type ToolResult struct {
	CallID      string `json:"call_id"`
	Server      string `json:"server"`
	Tool        string `json:"tool"`
	Raw         string `json:"raw"`
	Transformed string `json:"transformed"`
	IsError     bool   `json:"is_error"`
	ErrorKind   string `json:"error_kind,omitempty"`
}

// Message is the data of warning and error events.
type Message struct {
	Kind    string `json:"kind,omitempty"`
	Message string `json:"message"`
}

// Summary is the last event of a trial.
type Summary struct {
	FinalText string `json:"final_text"`
	Steps     int    `json:"steps"`
	Truncated bool   `json:"truncated"`
	Error     string `json:"error,omitempty"`
	ErrorKind string `json:"error_kind,omitempty"`
}

// ServerStderr records what a stdio server wrote to stderr (bounded; the
// connection keeps the most recent bytes).
type ServerStderr struct {
	Server string `json:"server"`
	Stderr string `json:"stderr"`
}

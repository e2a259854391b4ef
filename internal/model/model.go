// Package model defines the provider-neutral Model interface and its
// adapters: Anthropic, OpenAI and OpenAI-compatible servers, Gemini,
// cassette replay, and the control agents.
package model

import (
	"context"
	"encoding/json"
	"errors"
)

// Role of a message in the conversation.
type Role string

// Conversation roles. Tool results are their own role so that every
// adapter can map them to its provider's shape.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// ToolCall is one tool invocation requested by the model. When the model
// produced arguments that are not valid JSON, Arguments holds the raw text
// and ParseError says why; the agent turns that into an error result the
// model sees instead of crashing.
type ToolCall struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
	ParseError string          `json:"parse_error,omitempty"`
}

// Message is one turn. Assistant turns may carry ToolCalls; tool turns
// answer exactly one call by ToolCallID.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	ToolName   string     `json:"tool_name,omitempty"`
	IsError    bool       `json:"is_error,omitempty"`
	// Raw carries provider-specific state that must be echoed back
	// verbatim on the next request (for example Gemini thought
	// signatures). Adapters own its format.
	Raw json.RawMessage `json:"raw,omitempty"`
}

// ToolSpec is a tool as offered to the model.
type ToolSpec struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"input_schema"`
}

// Request is one completion request.
type Request struct {
	System      string     `json:"system"`
	Messages    []Message  `json:"messages"`
	Tools       []ToolSpec `json:"tools"`
	MaxTokens   int        `json:"max_tokens"`
	Temperature *float64   `json:"temperature,omitempty"`
}

// Usage counts tokens as the provider reported them.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// Stop reasons, normalized across providers.
const (
	StopEnd       = "end_turn"
	StopToolUse   = "tool_use"
	StopMaxTokens = "max_tokens"
	StopOther     = "other"
)

// Response is the model's answer to one Request.
type Response struct {
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	StopReason string     `json:"stop_reason"`
	// RawStopReason is the provider's own word for why it stopped.
	RawStopReason string `json:"raw_stop_reason,omitempty"`
	Usage         Usage  `json:"usage"`
	// Truncated is true when the provider cut the output at max tokens.
	Truncated bool `json:"truncated"`
	// TemperatureSent records whether a temperature was actually sent
	// (some models reject it and the adapter drops it).
	TemperatureSent bool `json:"temperature_sent"`
	// SchemaDropped lists JSON Schema parts the adapter had to remove or
	// rewrite because the provider rejects them.
	SchemaDropped []string `json:"schema_dropped,omitempty"`
	// Raw is provider state to echo back on the assistant message.
	Raw json.RawMessage `json:"raw,omitempty"`
}

// Model is anything that answers a conversation with text and tool calls:
// a provider adapter, a cassette replayer, or a control agent.
type Model interface {
	// Spec is the model spec string, e.g. "anthropic:claude-x".
	Spec() string
	Complete(ctx context.Context, req Request) (Response, error)
}

// IsControl reports whether a spec names a control agent; reports never
// mix control agents into model rows.
func IsControl(spec string) bool {
	return len(spec) > len("control:") && spec[:len("control:")] == "control:"
}

// ErrNoKey means the provider's API key is not set; the caller skips the
// model with one log line and never substitutes a mock.
var ErrNoKey = errors.New("provider API key not set")

// ErrRetriesExhausted means the provider kept failing with retryable
// errors (429, 5xx, timeouts) until the retry cap; the trial is errored.
var ErrRetriesExhausted = errors.New("provider retries exhausted")

// ErrBadSpec means a model spec string could not be understood.
var ErrBadSpec = errors.New("bad model spec")

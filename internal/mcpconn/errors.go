package mcpconn

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error Connect and the Conn methods return wraps
// exactly one of them inside an *Error, so callers can branch with
// errors.Is while the message still names the server and the operation.
var (
	// ErrServerExited means the server process ended (or closed its end of
	// the connection) before answering.
	ErrServerExited = errors.New("server exited")
	// ErrTimeout means the server did not answer within the connect or call
	// timeout.
	ErrTimeout = errors.New("timed out")
	// ErrProtocol means the server sent something that is not valid MCP:
	// malformed JSON-RPC, invalid UTF-8, JSON nested too deeply, an
	// unsupported protocol version, or an unexpected error response.
	ErrProtocol = errors.New("protocol error")
	// ErrToolError means the server answered tools/call with a JSON-RPC
	// error (for example, an unknown tool). A result with isError set is not
	// an error: it is returned as a Result with IsError true.
	ErrToolError = errors.New("tool call rejected")
	// ErrMessageTooLarge means one inbound message exceeded
	// Options.MaxMessageBytes; the connection is closed because the rest of
	// the stream can no longer be framed safely.
	ErrMessageTooLarge = errors.New("message too large")
	// ErrInvalidOption means the caller's Source or Options cannot work
	// (for example an unknown protocol version); nothing was started.
	ErrInvalidOption = errors.New("invalid option")
)

// Error says which server and which operation failed. Op is "connect",
// "tools/list", "prompts/list", "resources/list" or "tools/call NAME".
type Error struct {
	Server string
	Op     string
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("mcp server %q: %s: %v", e.Server, e.Op, e.Err)
}

// Unwrap exposes the sentinel (and its cause) to errors.Is / errors.As.
func (e *Error) Unwrap() error { return e.Err }

// kindError pairs a sentinel with the concrete cause so that both show up
// in errors.Is checks and in the message.
type kindError struct {
	kind  error
	cause error
	note  string
}

func (e *kindError) Error() string {
	msg := e.kind.Error()
	if e.note != "" {
		msg += ": " + e.note
	}
	if e.cause != nil {
		msg += ": " + e.cause.Error()
	}
	return msg
}

func (e *kindError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

// Package mcpconn connects mcpsec to MCP servers (stdio subprocesses,
// streamable HTTP endpoints, or in-memory transports in tests) through the
// official go-sdk, and hardens the client side against hostile servers:
// every call has a deadline, inbound messages are size- and depth-capped,
// stderr is captured within a bound, and Close always reaps the process
// group.
package mcpconn

import (
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Source says how to reach one server. Exactly one of Command, URL and
// Transport is used, in that order of precedence.
type Source struct {
	// Name identifies the server in errors and in multi-server sessions.
	Name string
	// Command is argv of a stdio server (Command[0] is looked up in PATH).
	Command []string
	// Env is added to the minimal environment a stdio server starts with
	// (see ServerEnv): NAME=value entries, such as a client config's env
	// block. mcpsec's own environment is never inherited as a whole.
	Env []string
	// PassEnv names variables of mcpsec's environment to hand the stdio
	// server deliberately (--pass-env); unset names are skipped.
	PassEnv []string
	// Dir is the working directory of the stdio server.
	Dir string
	// URL is a streamable-HTTP endpoint.
	URL string
	// Transport is a ready transport, typically one end of
	// mcp.NewInMemoryTransports in tests.
	Transport mcp.Transport
}

// Options bounds what a server may cost us.
type Options struct {
	// ConnectTimeout bounds start-up plus the initialize handshake.
	ConnectTimeout time.Duration
	// CallTimeout bounds each request after the handshake.
	CallTimeout time.Duration
	// ProtocolVersion is the version offered in initialize. The server may
	// answer with an older one it supports.
	ProtocolVersion string
	// MaxMessageBytes caps one inbound message (one line on stdio).
	MaxMessageBytes int64
	// StderrLimit caps the captured stderr of a stdio server.
	StderrLimit int
	// MaxJSONDepth caps the nesting depth of an inbound result; deeper
	// results are rejected with ErrProtocol before the SDK decodes them.
	MaxJSONDepth int
	// TerminateGrace is how long Close waits for a stdio server to exit
	// after its stdin is closed before killing its process group.
	TerminateGrace time.Duration
}

// DefaultProtocolVersion is the version mcpsec offers by default. The go-sdk
// also knows the 2026-07-28 draft, but the official TypeScript servers do
// not, so offering it costs a failed server/discover round trip first.
const DefaultProtocolVersion = "2025-11-25"

// DefaultOptions returns the limits used when the caller sets none.
func DefaultOptions() Options {
	return Options{
		ConnectTimeout:  10 * time.Second,
		CallTimeout:     30 * time.Second,
		ProtocolVersion: DefaultProtocolVersion,
		MaxMessageBytes: 16 << 20,
		StderrLimit:     64 << 10,
		MaxJSONDepth:    256,
		TerminateGrace:  500 * time.Millisecond,
	}
}

// withDefaults fills zero fields so a partially set Options still works.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = d.ConnectTimeout
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = d.CallTimeout
	}
	if o.ProtocolVersion == "" {
		o.ProtocolVersion = d.ProtocolVersion
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = d.MaxMessageBytes
	}
	if o.StderrLimit <= 0 {
		o.StderrLimit = d.StderrLimit
	}
	if o.MaxJSONDepth <= 0 {
		o.MaxJSONDepth = d.MaxJSONDepth
	}
	if o.TerminateGrace <= 0 {
		o.TerminateGrace = d.TerminateGrace
	}
	return o
}

// SupportedProtocolVersions lists the versions Options.ProtocolVersion may
// take, newest first (those the go-sdk implements).
func SupportedProtocolVersions() []string { return mcp.SupportedProtocolVersions() }

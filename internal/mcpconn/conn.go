package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

// clientInfo is what mcpsec calls itself in initialize.
var clientInfo = &mcp.Implementation{Name: "mcpsec", Version: "dev"}

// ServerInfo is what the server said about itself during initialize.
type ServerInfo struct {
	Name            string
	Version         string
	ProtocolVersion string
	Instructions    string
}

// Result is the outcome of one tools/call.
type Result struct {
	// Text is the text content blocks joined with "\n"; other block types
	// (images, resources) are left to Raw.
	Text string
	// IsError is the result's isError flag: the tool ran and reported
	// failure, which a model sees as ordinary tool output.
	IsError bool
	// Raw is the result object exactly as the server sent it.
	Raw json.RawMessage
}

// Conn is one initialized MCP client session. Methods are safe for
// concurrent use.
type Conn struct {
	name      string
	opts      Options
	session   *mcp.ClientSession
	tap       *tapConn // nil for streamable HTTP
	proc      *process // nil unless we started the server
	httpTr    *http.Transport
	httpConns *connTracker
	changed   chan struct{}
	// metaChanged is changed's twin for prompts and resources.
	metaChanged chan struct{}
	updMu       sync.Mutex
	updated     map[string]bool // URIs announced updated, not yet taken
	updSignal   chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// Connect starts or dials the server described by src, performs the
// initialize handshake within opts.ConnectTimeout, and returns the session.
// On failure nothing is left running.
func Connect(ctx context.Context, src Source, opts Options) (*Conn, error) {
	opts = opts.withDefaults()
	name := src.Name
	if name == "" {
		name = sourceLabel(src)
	}
	if !slices.Contains(mcp.SupportedProtocolVersions(), opts.ProtocolVersion) {
		return nil, &Error{Server: name, Op: "connect", Err: fmt.Errorf("%w: protocol version %q is not one of %s",
			ErrInvalidOption, opts.ProtocolVersion, strings.Join(mcp.SupportedProtocolVersions(), ", "))}
	}
	c := &Conn{name: name, opts: opts, changed: make(chan struct{}, 1), metaChanged: make(chan struct{}, 1),
		updated: map[string]bool{}, updSignal: make(chan struct{}, 1)}

	var t mcp.Transport
	switch {
	case len(src.Command) > 0:
		p, err := startProcess(src, opts)
		if err != nil {
			return nil, &Error{Server: name, Op: "connect", Err: &kindError{kind: ErrServerExited, cause: err}}
		}
		c.proc = p
		t = &tapTransport{inner: p.transport(), conn: c}
	case src.URL != "":
		// A private transport so Close can cut its connections (and
		// their goroutines) with the session.
		c.httpTr, c.httpConns = newHTTPTransport()
		t = &mcp.StreamableClientTransport{
			Endpoint:     src.URL,
			HTTPClient:   &http.Client{Transport: c.httpTr},
			MaxRetries:   -1,
			MaxEventSize: int(opts.MaxMessageBytes),
		}
	case src.Transport != nil:
		t = &tapTransport{inner: src.Transport, conn: c}
	default:
		return nil, &Error{Server: name, Op: "connect", Err: fmt.Errorf("%w: source has no command, URL or transport", ErrInvalidOption)}
	}

	client := mcp.NewClient(clientInfo, &mcp.ClientOptions{
		Logger: slog.New(slog.DiscardHandler),
		// An empty capability set: mcpsec offers no roots, sampling or
		// elicitation to servers under test.
		Capabilities: &mcp.ClientCapabilities{},
		// Only reached on streamable HTTP; tapped connections signal
		// list changes before the SDK sees them.
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { c.signalListChanged() },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { c.signalMetaChanged() },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { c.signalMetaChanged() },
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			if r.Params != nil {
				c.noteUpdated(r.Params.URI)
			}
		},
	})
	cctx, cancel := context.WithTimeout(ctx, opts.ConnectTimeout)
	defer cancel()
	slot := &rawSlot{}
	cs, err := client.Connect(withSlot(cctx, slot), t, &mcp.ClientSessionOptions{ProtocolVersion: opts.ProtocolVersion})
	if err != nil {
		err = c.classify(cctx, "connect", slot, err)
		c.shutdown()
		return nil, err
	}
	c.session = cs
	return c, nil
}

func sourceLabel(src Source) string {
	switch {
	case len(src.Command) > 0:
		return strings.Join(src.Command, " ")
	case src.URL != "":
		return src.URL
	}
	return "in-memory"
}

// tapTransport inserts a tapConn above the wire connection.
type tapTransport struct {
	inner mcp.Transport
	conn  *Conn
}

func (t *tapTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	inner, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn.tap = newTap(inner, t.conn.opts.MaxJSONDepth)
	t.conn.tap.onListChanged = t.conn.signalListChanged
	t.conn.tap.onMetaChanged = t.conn.signalMetaChanged
	t.conn.tap.onUpdated = t.conn.noteUpdated
	return t.conn.tap, nil
}

// signalListChanged coalesces: one pending signal stands for any number
// of notifications.
func (c *Conn) signalListChanged() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

func (c *Conn) signalMetaChanged() {
	select {
	case c.metaChanged <- struct{}{}:
	default:
	}
}

// maxPendingUpdates bounds the URIs held between a server's
// resources/updated notifications and their reader: a server flooding
// distinct URIs loses the excess, not our memory.
const maxPendingUpdates = 1024

func (c *Conn) noteUpdated(uri string) {
	if uri == "" {
		return
	}
	c.updMu.Lock()
	if len(c.updated) < maxPendingUpdates {
		c.updated[uri] = true
	}
	c.updMu.Unlock()
	select {
	case c.updSignal <- struct{}{}:
	default:
	}
}

// MetaChanged delivers one signal per burst of prompts/list_changed and
// resources/list_changed notifications, as ListChanged does for tools.
func (c *Conn) MetaChanged() <-chan struct{} { return c.metaChanged }

// Updated signals that the server announced resources/updated; TakeUpdated
// returns the URIs announced since it was last called.
func (c *Conn) Updated() <-chan struct{} { return c.updSignal }

// TakeUpdated returns (and forgets) the URIs the server announced updated.
func (c *Conn) TakeUpdated() []string {
	c.updMu.Lock()
	defer c.updMu.Unlock()
	out := make([]string, 0, len(c.updated))
	for u := range c.updated {
		out = append(out, u)
	}
	clear(c.updated)
	slices.Sort(out)
	return out
}

// CanSubscribe reports whether the server offers resource subscriptions.
func (c *Conn) CanSubscribe() bool {
	return c.hasCap(func(s *mcp.ServerCapabilities) bool { return s.Resources != nil && s.Resources.Subscribe })
}

// Subscribe asks the server for resources/updated notifications of uri.
func (c *Conn) Subscribe(ctx context.Context, uri string) error {
	_, err := c.rawCall(ctx, "resources/subscribe "+uri, "{}", func(ctx context.Context) (any, error) {
		return nil, c.session.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	})
	return err
}

// Unsubscribe ends a subscription.
func (c *Conn) Unsubscribe(ctx context.Context, uri string) error {
	_, err := c.rawCall(ctx, "resources/unsubscribe "+uri, "{}", func(ctx context.Context) (any, error) {
		return nil, c.session.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	})
	return err
}

// Name is the server's name as given in the Source.
func (c *Conn) Name() string { return c.name }

// ServerInfo reports the server's self-description and the negotiated
// protocol version.
func (c *Conn) ServerInfo() ServerInfo {
	res := c.session.InitializeResult()
	if res == nil {
		return ServerInfo{}
	}
	si := ServerInfo{ProtocolVersion: res.ProtocolVersion, Instructions: res.Instructions}
	if res.ServerInfo != nil {
		si.Name, si.Version = res.ServerInfo.Name, res.ServerInfo.Version
	}
	return si
}

// ListChanged delivers one signal per burst of
// notifications/tools/list_changed; a reader that falls behind sees a
// single pending signal, never a backlog.
func (c *Conn) ListChanged() <-chan struct{} { return c.changed }

// Stderr returns the captured stderr of a stdio server (the most recent
// Options.StderrLimit bytes), or "" for other transports.
func (c *Conn) Stderr() string {
	if c.proc == nil {
		return ""
	}
	return c.proc.stderr.String()
}

// Pid returns the process id of a stdio server, or 0.
func (c *Conn) Pid() int {
	if c.proc == nil {
		return 0
	}
	return c.proc.pid()
}

// ListTools returns every tool the server lists, following pagination.
// Tools are parsed from the raw bytes, so a tool the SDK would filter out
// is still reported. raw is a {"tools":[...]} document holding the raw tool
// objects of all pages, usable as a --catalog file.
func (c *Conn) ListTools(ctx context.Context) ([]catalog.Tool, json.RawMessage, error) {
	const op = "tools/list"
	if !c.hasCap(func(s *mcp.ServerCapabilities) bool { return s.Tools != nil }) {
		return nil, json.RawMessage(`{"tools":[]}`), nil
	}
	var all []json.RawMessage
	cursor := ""
	seen := map[string]bool{}
	for {
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		raw, err := c.rawCall(ctx, op, `{"tools":[]}`, func(ctx context.Context) (any, error) {
			return c.session.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		})
		if err != nil {
			return nil, nil, err
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, nil, c.wrap(op, ErrProtocol, err)
		}
		all = append(all, page.Tools...)
		if page.NextCursor == "" {
			break
		}
		if seen[page.NextCursor] {
			return nil, nil, c.wrap(op, ErrProtocol, fmt.Errorf("pagination cursor %q repeats", page.NextCursor))
		}
		if len(seen) == maxPages {
			return nil, nil, c.wrap(op, ErrProtocol, fmt.Errorf("more than %d pages", maxPages))
		}
		seen[page.NextCursor] = true
		cursor = page.NextCursor
	}
	tools := make([]catalog.Tool, 0, len(all))
	for i, r := range all {
		var t catalog.Tool
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.UseNumber()
		if err := dec.Decode(&t); err != nil {
			return nil, nil, c.wrap(op, ErrProtocol, fmt.Errorf("tools[%d]: %w", i, err))
		}
		tools = append(tools, t)
	}
	doc, err := json.Marshal(struct {
		Tools []json.RawMessage `json:"tools"`
	}{Tools: nonNil(all)})
	if err != nil {
		return nil, nil, c.wrap(op, ErrProtocol, err)
	}
	return tools, doc, nil
}

func nonNil(v []json.RawMessage) []json.RawMessage {
	if v == nil {
		return []json.RawMessage{}
	}
	return v
}

// ListPrompts returns the server's prompts, or none when it does not offer
// the prompts capability.
func (c *Conn) ListPrompts(ctx context.Context) ([]catalog.Prompt, error) {
	const op = "prompts/list"
	if !c.hasCap(func(s *mcp.ServerCapabilities) bool { return s.Prompts != nil }) {
		return nil, nil
	}
	var out []catalog.Prompt
	cursor := ""
	for range maxPages {
		var page struct {
			Prompts    []catalog.Prompt `json:"prompts"`
			NextCursor string           `json:"nextCursor"`
		}
		raw, err := c.rawCall(ctx, op, `{"prompts":[]}`, func(ctx context.Context) (any, error) {
			return c.session.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
		})
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, c.wrap(op, ErrProtocol, err)
		}
		out = append(out, page.Prompts...)
		if page.NextCursor == "" || page.NextCursor == cursor {
			return out, nil
		}
		cursor = page.NextCursor
	}
	return nil, c.wrap(op, ErrProtocol, fmt.Errorf("more than %d pages", maxPages))
}

// ListResources returns the server's resources and resource templates, or
// none when it does not offer the resources capability.
func (c *Conn) ListResources(ctx context.Context) ([]catalog.Resource, error) {
	if !c.hasCap(func(s *mcp.ServerCapabilities) bool { return s.Resources != nil }) {
		return nil, nil
	}
	var out []catalog.Resource
	for _, kind := range []struct{ op, field string }{
		{"resources/list", "resources"},
		{"resources/templates/list", "resourceTemplates"},
	} {
		cursor := ""
		for page := 0; ; page++ {
			if page == maxPages {
				return nil, c.wrap(kind.op, ErrProtocol, fmt.Errorf("more than %d pages", maxPages))
			}
			raw, err := c.rawCall(ctx, kind.op, `{"`+kind.field+`":[]}`, func(ctx context.Context) (any, error) {
				if kind.field == "resources" {
					return c.session.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
				}
				return c.session.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
			})
			if err != nil {
				return nil, err
			}
			var doc map[string]json.RawMessage
			if err := json.Unmarshal(raw, &doc); err != nil {
				return nil, c.wrap(kind.op, ErrProtocol, err)
			}
			var items []struct {
				catalog.Resource
				URITemplate string `json:"uriTemplate"`
			}
			if r, ok := doc[kind.field]; ok {
				if err := json.Unmarshal(r, &items); err != nil {
					return nil, c.wrap(kind.op, ErrProtocol, err)
				}
			}
			for _, it := range items {
				r := it.Resource
				if r.URI == "" {
					r.URI = it.URITemplate
				}
				out = append(out, r)
			}
			var next string
			if r, ok := doc["nextCursor"]; ok {
				_ = json.Unmarshal(r, &next)
			}
			if next == "" || next == cursor {
				break
			}
			cursor = next
		}
	}
	return out, nil
}

// maxPages stops a server that paginates forever.
const maxPages = 1000

// CallTool calls one tool. args must be a JSON object (nil means {}). A
// result with isError set is returned with IsError true and a nil error;
// a JSON-RPC error response yields ErrToolError.
func (c *Conn) CallTool(ctx context.Context, name string, args json.RawMessage) (Result, error) {
	op := "tools/call " + name
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var raw json.RawMessage
	var err error
	if c.tap != nil {
		raw, err = c.directCall(ctx, op, "tools/call", name, args)
	} else {
		raw, err = c.rawCall(ctx, op, `{"content":[]}`, func(ctx context.Context) (any, error) {
			return c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		})
	}
	if err != nil {
		return Result{}, err
	}
	var body struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return Result{}, c.wrap(op, ErrProtocol, err)
	}
	var texts []string
	for _, b := range body.Content {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return Result{Text: strings.Join(texts, "\n"), IsError: body.IsError, Raw: raw}, nil
}

// rawCall runs one SDK request under the call timeout and returns the raw
// result bytes the tap captured for it.
func (c *Conn) rawCall(ctx context.Context, op string, stub string, do func(context.Context) (any, error)) (json.RawMessage, error) {
	cctx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	defer cancel()
	slot := &rawSlot{stub: json.RawMessage(stub)}
	res, err := do(withSlot(cctx, slot))
	if c.tap != nil {
		c.tap.release(slot)
	}
	if err != nil {
		return nil, c.classify(cctx, op, slot, err)
	}
	if slot.raw == nil {
		if c.tap != nil {
			return nil, c.wrap(op, ErrProtocol, errors.New("response carried no result"))
		}
		// Streamable HTTP is not tapped (its connection needs the SDK's
		// private session hooks), so the SDK's decoded value is all there
		// is: re-encode it.
		raw, err := json.Marshal(res)
		if err != nil {
			return nil, c.wrap(op, ErrProtocol, err)
		}
		return raw, nil
	}
	return slot.raw, nil
}

// directCall is rawCall for a tapped connection: the tap writes the
// request and hands back the result bytes (tapConn.callDirect), under the
// same call timeout and with errors classified the same way.
func (c *Conn) directCall(ctx context.Context, op, method, name string, args json.RawMessage) (json.RawMessage, error) {
	cctx, cancel := context.WithTimeout(ctx, c.opts.CallTimeout)
	defer cancel()
	nameJSON, err := json.Marshal(name)
	if err != nil {
		return nil, c.wrap(op, ErrInvalidOption, err)
	}
	params := make([]byte, 0, len(nameJSON)+len(args)+24)
	params = append(append(append(params, `{"name":`...), nameJSON...), `,"arguments":`...)
	params = append(append(params, args...), '}')
	slot := &rawSlot{}
	if err := c.tap.callDirect(cctx, slot, method, params); err != nil {
		return nil, c.classify(cctx, op, slot, err)
	}
	return slot.raw, nil
}

func (c *Conn) wrap(op string, kind, cause error) error {
	return &Error{Server: c.name, Op: op, Err: &kindError{kind: kind, cause: cause}}
}

// classify maps an SDK error to one sentinel. The order matters: a broken
// stream explains a later EOF, and a timeout explains a closed pipe.
func (c *Conn) classify(ctx context.Context, op string, slot *rawSlot, err error) error {
	switch {
	case c.proc != nil && c.proc.limit.tripped.Load():
		return c.wrap(op, ErrMessageTooLarge, fmt.Errorf("a message exceeded %d bytes", c.opts.MaxMessageBytes))
	case slot != nil && slot.rejected != nil:
		return c.wrap(op, ErrProtocol, slot.rejected)
	}
	if c.tap != nil {
		if perr := c.tap.protocolErr(); perr != nil {
			return c.wrap(op, ErrProtocol, perr)
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		if c.proc != nil && c.proc.hasExited(0) {
			return &Error{Server: c.name, Op: op, Err: &kindError{kind: ErrServerExited, note: c.proc.describeExit()}}
		}
		return c.wrap(op, ErrTimeout, err)
	}
	if errors.Is(err, context.Canceled) {
		return &Error{Server: c.name, Op: op, Err: err}
	}
	var dial *net.OpError
	if errors.As(err, &dial) && dial.Op == "dial" {
		return c.wrap(op, ErrServerExited, err) // nothing is listening
	}
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		if strings.HasPrefix(op, "tools/call ") {
			return c.wrap(op, ErrToolError, err)
		}
		return c.wrap(op, ErrProtocol, err)
	}
	closed := errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	if c.proc != nil && c.proc.hasExited(0) {
		return &Error{Server: c.name, Op: op, Err: &kindError{kind: ErrServerExited, note: c.proc.describeExit(), cause: err}}
	}
	if closed {
		// EOF on stdout usually arrives a moment before the exit status.
		if c.proc != nil && c.proc.hasExited(time.Second) {
			return &Error{Server: c.name, Op: op, Err: &kindError{kind: ErrServerExited, note: c.proc.describeExit(), cause: err}}
		}
		return c.wrap(op, ErrServerExited, err)
	}
	return c.wrap(op, ErrProtocol, err)
}

func (c *Conn) hasCap(f func(*mcp.ServerCapabilities) bool) bool {
	res := c.session.InitializeResult()
	if res == nil || res.Capabilities == nil {
		return false
	}
	return f(res.Capabilities)
}

// Close ends the session and, for a stdio server, reaps its process group.
// It is idempotent.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.shutdown() })
	return c.closeErr
}

func (c *Conn) shutdown() error {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if c.session != nil {
			_ = c.session.Close()
		} else if c.tap != nil {
			_ = c.tap.Close()
		}
	}()
	if c.proc != nil {
		_ = c.proc.stop(c.opts.TerminateGrace)
	}
	if c.httpTr != nil {
		// A well-behaved server acknowledges the session's DELETE within
		// the grace period; otherwise cutting the connections unblocks
		// requests a silent server never answered.
		g := time.NewTimer(c.opts.TerminateGrace)
		select {
		case <-done:
		case <-g.C:
		}
		g.Stop()
		c.httpConns.closeAll()
		c.httpTr.CloseIdleConnections()
	}
	// With the process gone the pipes are closed, so the SDK's reader
	// unblocks; a session that still does not finish is abandoned rather
	// than letting a hostile server hang us.
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		return fmt.Errorf("mcp server %q: close did not finish", c.name)
	}
	return nil
}

// GetPrompt gets one prompt with its arguments (mcpsec proxy relays it).
// The result is decoded from the bytes the server sent, under the same
// limits as every other call.
func (c *Conn) GetPrompt(ctx context.Context, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	op := "prompts/get " + name
	raw, err := c.rawCall(ctx, op, `{"messages":[]}`, func(ctx context.Context) (any, error) {
		return c.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
	})
	if err != nil {
		return nil, err
	}
	var res mcp.GetPromptResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, c.wrap(op, ErrProtocol, err)
	}
	return &res, nil
}

// ReadResource reads one resource (mcpsec proxy relays it).
func (c *Conn) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	op := "resources/read " + uri
	raw, err := c.rawCall(ctx, op, `{"contents":[]}`, func(ctx context.Context) (any, error) {
		return c.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	})
	if err != nil {
		return nil, err
	}
	var res mcp.ReadResourceResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, c.wrap(op, ErrProtocol, err)
	}
	return &res, nil
}

package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/mcpconn"
)

// ServeStdio serves the proxy to one client over r and w (stdin and
// stdout) until the client goes away or ctx ends. The go-sdk's server
// runs the session (initialize, listings, notifications, everything but
// one method); a tools/call of an initialized session takes a shorter way
// to the very same decision and relay (Proxy.call): the SDK's server
// would decode its params twice, each time with fresh buffers, and run
// two goroutines for it, which on a small machine costs about as much as
// the hop to the server itself. A call the short way does not fit (the
// session not yet initialized, params carrying _meta or anything but a
// name and arguments) goes to the SDK as before.
func (p *Proxy) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	f := &fastCalls{p: p, inflight: map[jsonrpc.ID]context.CancelFunc{}, connected: make(chan struct{})}
	var cctx context.Context
	cctx, f.cancel = context.WithCancel(context.WithoutCancel(ctx))
	f.ctx = cctx
	defer f.cancel()
	ss, err := p.server.Connect(ctx, mcpconn.ServerTransportShortcut(r, w, 0, f.take), nil)
	f.session = ss
	close(f.connected)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		ss.Close()
		<-done
		err = ctx.Err()
	}
	// The client is gone: calls still in flight are cancelled (as the SDK
	// cancels its own handlers) and waited for.
	f.cancel()
	f.wg.Wait()
	return err
}

// fastCalls answers the tools/call requests of one stdio session.
type fastCalls struct {
	p         *Proxy
	session   *mcp.ServerSession // valid once connected is closed
	connected chan struct{}
	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup // calls in flight

	mu       sync.Mutex
	inflight map[jsonrpc.ID]context.CancelFunc
}

// take is the transport's Shortcut.
func (f *fastCalls) take(req *jsonrpc.Request, reply func(*jsonrpc.Response) error) func() {
	switch {
	case req.Method == "notifications/cancelled":
		// Seen by the SDK too, which cancels the requests it handles.
		f.cancelled(req.Params)
		return nil
	case req.Method != "tools/call" || !req.IsCall():
		return nil
	}
	// The reader may run before Connect has returned the session.
	<-f.connected
	if f.session == nil || f.session.InitializeParams() == nil {
		return nil // the SDK answers a call before initialize
	}
	name, args, ok := plainCallParams(req.Params)
	if !ok {
		return nil
	}
	f.mu.Lock()
	if f.inflight[req.ID] != nil {
		f.mu.Unlock()
		return func() {
			_ = reply(&jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: fmt.Sprintf("request ID %v already in use", req.ID.Raw())}})
		}
	}
	ctx, cancel := context.WithCancel(f.ctx)
	f.inflight[req.ID] = cancel
	f.wg.Add(1)
	f.mu.Unlock()
	f.p.fastCalls.Add(1)
	return func() {
		defer f.wg.Done()
		defer cancel()
		res, err := f.p.callResult(ctx, name, args)
		// Forgotten before the reply: the client may reuse the id as soon
		// as it has its answer.
		f.mu.Lock()
		delete(f.inflight, req.ID)
		f.mu.Unlock()
		resp := &jsonrpc.Response{ID: req.ID, Error: err}
		if err == nil {
			if resp.Result, err = marshalResult(res); err != nil {
				resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "mcpsec proxy: " + err.Error()}
			}
		}
		_ = reply(resp)
	}
}

// cancelled cancels the call a notifications/cancelled names, if it is
// one of ours.
func (f *fastCalls) cancelled(params json.RawMessage) {
	var c struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &c) != nil {
		return
	}
	id, err := jsonrpc.MakeID(c.RequestID)
	if err != nil {
		return
	}
	f.mu.Lock()
	cancel := f.inflight[id]
	f.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// plainCallParams returns a tools/call's name and arguments when the
// params hold those and nothing else (a name that is a string).
func plainCallParams(raw json.RawMessage) (string, json.RawMessage, bool) {
	var fs map[string]json.RawMessage
	if json.Unmarshal(raw, &fs) != nil || fs == nil {
		return "", nil, false
	}
	var name string
	for k, v := range fs {
		switch k {
		case "name":
			if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &name) != nil {
				return "", nil, false
			}
		case "arguments":
		default:
			return "", nil, false
		}
	}
	if _, ok := fs["name"]; !ok {
		return "", nil, false
	}
	return name, fs["arguments"], true
}

// marshalResult encodes a call's result: relayed bytes as they are, one
// the proxy made with the SDK's own types.
func marshalResult(res mcp.Result) (json.RawMessage, error) {
	if r, ok := res.(*rawResult); ok {
		return r.raw, nil
	}
	if res == nil {
		return nil, errors.New("no result")
	}
	return json.Marshal(res)
}

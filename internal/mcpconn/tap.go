package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawSlot receives the raw result of the one request issued with a context
// carrying it. The SDK decodes results into its own types (and drops tools
// it considers invalid); the scanner needs the bytes the server really sent.
type rawSlot struct {
	raw      json.RawMessage
	rejected error // set when tap refused the response (depth, UTF-8)
	// stub, when set, replaces the result the SDK decodes. mcpconn parses
	// the raw bytes itself, so decoding them a second time inside the SDK
	// would only cost allocations.
	stub json.RawMessage
	// done, when set, marks a request the tap itself wrote (callDirect):
	// its response is not handed to the SDK, and done is closed once raw,
	// rejected or rpcErr is set, or the stream ended (see tapConn.dead).
	done   chan struct{}
	rpcErr *jsonrpc.Error
}

type rawSlotKey struct{}

func withSlot(ctx context.Context, s *rawSlot) context.Context {
	return context.WithValue(ctx, rawSlotKey{}, s)
}

// tapConn sits between the SDK and the wire connection. It records raw
// results, rejects responses that are not valid UTF-8 or nest too deeply
// (turning them into JSON-RPC errors so only that call fails), drops
// server-to-client messages with such params, and remembers why the read
// side failed so errors can be classified.
//
// It must only wrap connections that do not rely on the SDK's unexported
// session hooks (the stdio/IO and in-memory ones do not; streamable HTTP
// does, so it is not wrapped).
type tapConn struct {
	inner    mcp.Connection
	maxDepth int
	// onListChanged is called (on the read goroutine, so it must not
	// block) for each notifications/tools/list_changed.
	onListChanged func()
	// onMetaChanged is called likewise for prompts/list_changed and
	// resources/list_changed, onUpdated for resources/updated.
	onMetaChanged func()
	onUpdated     func(uri string)

	mu      sync.Mutex
	pending map[jsonrpc.ID]*rawSlot
	readErr error // first read failure that was not a plain EOF/close
	closing bool
	// dead is why the read side ended (nil while it runs); direct calls
	// still waiting then are woken with it.
	dead   error
	nextID int64
}

func newTap(inner mcp.Connection, maxDepth int) *tapConn {
	return &tapConn{inner: inner, maxDepth: maxDepth, pending: map[jsonrpc.ID]*rawSlot{}}
}

func (t *tapConn) SessionID() string { return t.inner.SessionID() }

func (t *tapConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		if s, ok := ctx.Value(rawSlotKey{}).(*rawSlot); ok {
			t.mu.Lock()
			t.pending[req.ID] = s
			t.mu.Unlock()
		}
	}
	return t.inner.Write(ctx, msg)
}

func (t *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := t.inner.Read(ctx)
		if err != nil {
			t.noteReadErr(err)
			t.endDirect(err)
			return nil, err
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			t.mu.Lock()
			slot := t.pending[m.ID]
			delete(t.pending, m.ID)
			t.mu.Unlock()
			if slot != nil && slot.done != nil {
				t.settle(slot, m)
				continue
			}
			if m.Error == nil && len(m.Result) > 0 {
				if bad := t.check(m.Result); bad != nil {
					// Fail only this call; the stream itself is still framed.
					if slot != nil {
						slot.rejected = bad
					}
					m.Result = nil
					m.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "mcpsec rejected response: " + bad.Error()}
				} else if slot != nil {
					slot.raw = m.Result
					if slot.stub != nil {
						m.Result = slot.stub
					}
				}
			}
			return m, nil
		case *jsonrpc.Request:
			if !m.IsCall() {
				// mcpsec acts on no server notification but the list
				// changes and resources/updated, which the tap signals
				// itself. Handing
				// the rest to the SDK would let a flooding server grow its
				// handler queue without bound (75 MiB in a second, measured).
				switch {
				case m.Method == "notifications/tools/list_changed" && t.onListChanged != nil:
					t.onListChanged()
				case (m.Method == "notifications/prompts/list_changed" || m.Method == "notifications/resources/list_changed") && t.onMetaChanged != nil:
					t.onMetaChanged()
				case m.Method == "notifications/resources/updated" && t.onUpdated != nil:
					var p struct {
						URI string `json:"uri"`
					}
					if len(m.Params) <= 64<<10 && t.check(m.Params) == nil && json.Unmarshal(m.Params, &p) == nil {
						t.onUpdated(p.URI)
					}
				}
				continue
			}
			if len(m.Params) > 0 && t.check(m.Params) != nil {
				continue // a hostile request is dropped, not decoded
			}
			return m, nil
		default:
			return msg, nil
		}
	}
}

// check rejects inbound JSON the SDK should never see.
func (t *tapConn) check(data []byte) error {
	if !utf8.Valid(data) {
		return errors.New("invalid UTF-8 in JSON text")
	}
	if d := jsonDepth(data, t.maxDepth); d > t.maxDepth {
		return fmt.Errorf("JSON nests deeper than %d levels", t.maxDepth)
	}
	return nil
}

func (t *tapConn) noteReadErr(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closing || t.readErr != nil {
		return
	}
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, os.ErrClosed), errors.Is(err, io.ErrClosedPipe),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return
	}
	t.readErr = err
}

// protocolErr reports a read-side failure that makes the stream invalid
// (malformed JSON, non-JSON-RPC, an oversized line).
func (t *tapConn) protocolErr() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.readErr
}

func (t *tapConn) Close() error {
	t.mu.Lock()
	t.closing = true
	t.mu.Unlock()
	return t.inner.Close()
}

// release forgets a slot whose call ended without a response (timeout,
// cancellation), so a hung server cannot grow the pending map.
func (t *tapConn) release(s *rawSlot) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	found := false
	for id, p := range t.pending {
		if p == s {
			delete(t.pending, id)
			found = true
		}
	}
	return found
}

// directPrefix starts the ids of requests the tap writes itself; the
// SDK numbers its requests, so the two never collide.
const directPrefix = "mcpsec-"

// callDirect writes one request itself and waits for its response
// without the SDK's per-request work (its sending middleware, a goroutine,
// and a decode of the result into the SDK's types, each with fresh
// buffers): the proxy relays the result as bytes anyway. The response
// passes the same checks as any other (UTF-8, depth); it returns the raw
// result, or the response's JSON-RPC error, or why the stream ended, or
// ctx's error (after telling the server the request is cancelled, as the
// SDK would).
func (t *tapConn) callDirect(ctx context.Context, slot *rawSlot, method string, params json.RawMessage) error {
	slot.done = make(chan struct{})
	t.mu.Lock()
	if t.dead != nil {
		err := t.dead
		t.mu.Unlock()
		return err
	}
	t.nextID++
	id, err := jsonrpc.MakeID(directPrefix + strconv.FormatInt(t.nextID, 10))
	if err == nil {
		t.pending[id] = slot
	}
	t.mu.Unlock()
	if err != nil {
		return err
	}
	if err := t.writeCall(ctx, id, method, params); err != nil {
		if !t.release(slot) {
			<-slot.done // the read side took it: let it finish with slot
		}
		return err
	}
	select {
	case <-slot.done:
	case <-ctx.Done():
		if !t.release(slot) {
			// The read side took the slot (a response or the end of the
			// stream) and is about to close done: it owns slot until then.
			<-slot.done
		} else {
			idJSON, _ := json.Marshal(id.Raw())
			cancel := json.RawMessage(`{"requestId":` + string(idJSON) + `,"reason":"` + ctx.Err().Error() + `"}`)
			wctx, stop := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			_ = t.inner.Write(wctx, &jsonrpc.Request{Method: "notifications/cancelled", Params: cancel})
			stop()
			return ctx.Err()
		}
	}
	switch {
	case slot.rejected != nil:
		return slot.rejected
	case slot.rpcErr != nil:
		return slot.rpcErr
	case slot.raw == nil:
		t.mu.Lock()
		err := t.dead
		t.mu.Unlock()
		if err == nil {
			err = errors.New("response carried no result")
		}
		return err
	}
	return nil
}

// writeCall writes a request the tap issues itself. On a stdio
// connection whose params are already one compact JSON value (a client's
// arguments relayed by the proxy are: they came on one line and passed a
// decoder) it writes them as they are; the SDK's encoder would scan and
// copy them again to the same bytes.
func (t *tapConn) writeCall(ctx context.Context, id jsonrpc.ID, method string, params json.RawMessage) error {
	lc, ok := t.inner.(*lineConn)
	if !ok || bytes.IndexByte(params, '\n') >= 0 || !json.Valid(params) {
		return t.inner.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: params})
	}
	idJSON, err := json.Marshal(id.Raw())
	if err != nil {
		return err
	}
	methodJSON, err := json.Marshal(method)
	if err != nil {
		return err
	}
	return lc.writeLine(ctx, func(b []byte) []byte {
		b = append(append(append(b, `{"jsonrpc":"2.0","id":`...), idJSON...), `,"method":`...)
		return append(append(append(append(b, methodJSON...), `,"params":`...), params...), '}')
	})
}

// settle completes a direct call with its response.
func (t *tapConn) settle(slot *rawSlot, m *jsonrpc.Response) {
	switch {
	case m.Error != nil:
		if we, ok := m.Error.(*jsonrpc.Error); ok {
			slot.rpcErr = we
		} else {
			slot.rpcErr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: m.Error.Error()}
		}
	case len(m.Result) == 0:
	default:
		if bad := t.check(m.Result); bad != nil {
			slot.rejected = bad
		} else {
			slot.raw = m.Result
		}
	}
	close(slot.done)
}

// endDirect wakes every direct call still waiting once the stream ended.
func (t *tapConn) endDirect(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dead == nil {
		// However the stream ended (EOF, our own Close), the call's
		// connection is gone; classify reads why from the process.
		t.dead = fmt.Errorf("%w: %w", mcp.ErrConnectionClosed, err)
	}
	for id, s := range t.pending {
		if s.done != nil {
			delete(t.pending, id)
			close(s.done)
		}
	}
}

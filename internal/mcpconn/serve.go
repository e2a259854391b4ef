package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerTransport is the stdio transport for an MCP server mcpsec itself
// serves (mcpsec proxy facing its client): the same framing and envelope
// decoding as the connections to servers mcpsec starts, which costs one
// small decode per message where the SDK's IOTransport allocates three
// 32 KiB decoder buffers. Neither r nor w is closed when the session ends;
// a message longer than maxMessageBytes ends the session.
func ServerTransport(r io.Reader, w io.Writer, maxMessageBytes int64) mcp.Transport {
	return ServerTransportShortcut(r, w, maxMessageBytes, nil)
}

// A Shortcut may answer a client's request itself instead of handing it
// to the SDK's server: it returns the work that answers req (nil: the SDK
// handles req as usual), and that work calls reply exactly once with the
// response. The Shortcut itself runs on the reading goroutine and must
// not block; it sees every inbound request and notification. The work
// runs on that same goroutine, once another has taken over reading, so
// that the request's answer does not first wait for a second thread to
// wake up (on a loaded machine, the larger part of a handoff's cost).
type Shortcut func(req *jsonrpc.Request, reply func(*jsonrpc.Response) error) (work func())

// ServerTransportShortcut is ServerTransport with requests that take
// (nil: none) answers itself. Replies share the SDK's writer, one whole
// line per message.
func ServerTransportShortcut(r io.Reader, w io.Writer, maxMessageBytes int64, take Shortcut) mcp.Transport {
	if maxMessageBytes <= 0 {
		maxMessageBytes = DefaultOptions().MaxMessageBytes
	}
	lc := &lineConn{lines: newLineReader(r, maxMessageBytes), rc: nopCloser{}, wc: nopWriteCloser{w}}
	if take == nil {
		return connTransport{lc}
	}
	return connTransport{&shortcutConn{lineConn: lc, take: take, turn: make(chan struct{}, 1),
		toSDK: make(chan readResult), quit: make(chan struct{})}}
}

// shortcutConn offers each inbound request to a Shortcut before the SDK
// sees it. Reading is a turn that one goroutine of a small pool holds at
// a time (leader and followers): the holder reads a message; one for the
// SDK it passes on in order and keeps reading; one the Shortcut takes, it
// hands the turn to a follower and then does the work itself.
type shortcutConn struct {
	*lineConn
	take Shortcut

	start sync.Once
	turn  chan struct{}   // holds the reading turn while nobody reads
	toSDK chan readResult // messages for the SDK, in arrival order
	idle  atomic.Int32    // goroutines waiting for the turn
	quit  chan struct{}   // closed when reading ended or the SDK closed
	once  sync.Once
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// maxIdleReaders is how many goroutines wait for the reading turn at most;
// each keeps the stack its last request grew.
const maxIdleReaders = 4

func (c *shortcutConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	c.start.Do(func() {
		c.turn <- struct{}{}
		go c.reader()
	})
	select {
	case r := <-c.toSDK:
		return r.msg, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.quit:
		return nil, io.EOF
	}
}

func (c *shortcutConn) reader() {
	for {
		c.idle.Add(1)
		select {
		case <-c.turn:
			c.idle.Add(-1)
		case <-c.quit:
			c.idle.Add(-1)
			return
		}
		msg, err := c.lineConn.Read(context.Background())
		if err != nil {
			// The turn is not given back: reading is over.
			select {
			case c.toSDK <- readResult{err: err}:
			case <-c.quit:
			}
			c.end()
			return
		}
		var work func()
		if req, ok := msg.(*jsonrpc.Request); ok {
			work = c.take(req, c.reply)
		}
		if work == nil {
			select {
			case c.toSDK <- readResult{msg: msg}:
			case <-c.quit:
				return
			}
			c.turn <- struct{}{}
			continue
		}
		if c.idle.Load() == 0 {
			go c.reader()
		}
		c.turn <- struct{}{}
		work()
		if c.idle.Load() >= maxIdleReaders {
			return
		}
	}
}

func (c *shortcutConn) end() { c.once.Do(func() { close(c.quit) }) }

// Close ends the readers; the pipes are not ours to close.
func (c *shortcutConn) Close() error {
	c.end()
	return c.lineConn.Close()
}

// reply writes a response the shortcut made. A result is written as the
// bytes it holds, which must be one JSON value (a relayed result already
// passed a decoder) on one line; the SDK's encoder would only re-validate
// and copy them. Errors, and anything holding a newline, are encoded by
// the SDK.
func (c *shortcutConn) reply(resp *jsonrpc.Response) error {
	if resp.Error != nil || len(resp.Result) == 0 || bytes.IndexByte(resp.Result, '\n') >= 0 {
		return c.lineConn.Write(context.Background(), resp)
	}
	id, err := json.Marshal(resp.ID.Raw())
	if err != nil {
		return err
	}
	return c.writeLine(context.Background(), func(b []byte) []byte {
		b = append(append(append(b, `{"jsonrpc":"2.0","id":`...), id...), `,"result":`...)
		return append(append(b, resp.Result...), '}')
	})
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"io"

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
// to the SDK's server: it returns true when it takes req, and then calls
// reply exactly once, from any goroutine, with the response. It runs on
// the read goroutine, so it must not block; it sees every inbound request
// and notification, and one it does not take goes to the SDK as usual.
type Shortcut func(req *jsonrpc.Request, reply func(*jsonrpc.Response) error) bool

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
	return connTransport{&shortcutConn{lineConn: lc, take: take}}
}

// shortcutConn offers each inbound request to a Shortcut before the SDK
// sees it.
type shortcutConn struct {
	*lineConn
	take Shortcut
}

func (c *shortcutConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.lineConn.Read(ctx)
		if err != nil {
			return nil, err
		}
		if req, ok := msg.(*jsonrpc.Request); ok && c.take(req, c.reply) {
			continue
		}
		return msg, nil
	}
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

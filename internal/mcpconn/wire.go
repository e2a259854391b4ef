package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lineConn is mcpsec's stdio mcp.Connection. The SDK's own IO connection
// decodes every inbound line through a fresh streaming decoder, first as
// a batch and then as a message, which costs three 32 KiB buffers per
// response; lineConn frames with lineReader (size cap, completeness) and
// decodes the envelope once with encoding/json. Everything above the wire
// (request IDs, routing, MCP semantics) stays the SDK's.
type lineConn struct {
	lines *lineReader
	rc    io.Closer
	wc    io.WriteCloser

	wmu  sync.Mutex
	wbuf []byte

	queue []jsonrpc.Message // rest of a batch, read side only

	closeOnce sync.Once
	closeErr  error
}

var _ mcp.Connection = (*lineConn)(nil)

func (c *lineConn) SessionID() string { return "" }

// envelope is one JSON-RPC 2.0 message as it appears on the wire.
type envelope struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *jsonrpc.Error  `json:"error"`
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(c.queue) > 0 {
		m := c.queue[0]
		c.queue = c.queue[1:]
		return m, nil
	}
	line, err := c.lines.nextLine()
	if err != nil {
		return nil, err
	}
	if line[0] == '[' {
		var batch []envelope
		if err := json.Unmarshal(line, &batch); err != nil {
			return nil, fmt.Errorf("decode JSON-RPC batch: %w", err)
		}
		if len(batch) == 0 {
			return nil, errors.New("empty JSON-RPC batch")
		}
		msgs := make([]jsonrpc.Message, 0, len(batch))
		for i := range batch {
			m, err := batch[i].message()
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, m)
		}
		c.queue = msgs[1:]
		return msgs[0], nil
	}
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		return nil, fmt.Errorf("decode JSON-RPC message: %w", err)
	}
	return env.message()
}

// message applies JSON-RPC 2.0's rules: a method makes a request (a
// notification without id), otherwise it is a response and needs an id.
func (e *envelope) message() (jsonrpc.Message, error) {
	if e.Version != "2.0" {
		return nil, fmt.Errorf("JSON-RPC version %q, want \"2.0\"", e.Version)
	}
	var id jsonrpc.ID
	if len(e.ID) > 0 && !bytes.Equal(e.ID, []byte("null")) {
		var v any
		if err := json.Unmarshal(e.ID, &v); err != nil {
			return nil, fmt.Errorf("JSON-RPC id: %w", err)
		}
		var err error
		if id, err = jsonrpc.MakeID(v); err != nil {
			return nil, err
		}
	}
	if e.Method != nil {
		return &jsonrpc.Request{ID: id, Method: *e.Method, Params: e.Params}, nil
	}
	if !id.IsValid() {
		return nil, errors.New("JSON-RPC response without an id")
	}
	r := &jsonrpc.Response{ID: id, Result: e.Result}
	if e.Error != nil {
		r.Error = e.Error
	}
	return r, nil
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode JSON-RPC message: %w", err)
	}
	return c.writeLine(ctx, func(b []byte) []byte { return append(b, data...) })
}

// writeLine writes one message, which fill appends to the (reused)
// buffer it is given, and the newline that ends it.
func (c *lineConn) writeLine(ctx context.Context, fill func([]byte) []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	// A server that stops reading its stdin would otherwise block this
	// write (and the caller's deadline with it) once the pipe is full.
	if f, ok := c.wc.(*os.File); ok {
		if d, ok := ctx.Deadline(); ok {
			_ = f.SetWriteDeadline(d)
			defer f.SetWriteDeadline(time.Time{})
		}
	}
	// One write per message keeps lines whole even if the peer reads
	// byte by byte.
	c.wbuf = append(fill(c.wbuf[:0]), '\n')
	_, err := c.wc.Write(c.wbuf)
	return err
}

// Close closes both pipes; closing our read end unblocks a pending Read.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = errors.Join(c.wc.Close(), c.rc.Close())
	})
	return c.closeErr
}

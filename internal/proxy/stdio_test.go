package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/proxy"
)

// rawClient speaks JSON-RPC lines to ServeStdio, so that a test chooses
// exactly what each request holds (and so which way it takes).
type rawClient struct {
	t    *testing.T
	w    io.WriteCloser
	resp chan map[string]json.RawMessage
	done chan error // ServeStdio's return
}

func newRawClient(t *testing.T, p *proxy.Proxy) *rawClient {
	t.Helper()
	fromProxy, toClient := io.Pipe()
	fromClient, toProxy := io.Pipe()
	c := &rawClient{t: t, w: toProxy, resp: make(chan map[string]json.RawMessage, 16), done: make(chan error, 1)}
	go func() {
		err := p.ServeStdio(context.Background(), fromClient, toClient)
		toClient.Close()
		c.done <- err
	}()
	go func() {
		defer close(c.resp)
		sc := bufio.NewScanner(fromProxy)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("proxy wrote %q: %v", sc.Text(), err)
				continue
			}
			if _, isResponse := m["id"]; isResponse && m["method"] == nil {
				c.resp <- m
			}
		}
	}()
	t.Cleanup(func() {
		toProxy.Close()
		fromProxy.Close()
	})
	return c
}

func (c *rawClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// next is the next response the proxy wrote.
func (c *rawClient) next() map[string]json.RawMessage {
	c.t.Helper()
	m, ok := <-c.resp
	if !ok {
		c.t.Fatal("the proxy closed its output")
	}
	return m
}

// call sends a request and returns its response (no other request may be
// in flight).
func (c *rawClient) call(id int, method, params string) map[string]json.RawMessage {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	m := c.next()
	if string(m["id"]) != fmt.Sprint(id) {
		c.t.Fatalf("response to %d has id %s", id, m["id"])
	}
	return m
}

type waitIn struct {
	Label string `json:"label" jsonschema:"a label"`
}

// blockingUpstream offers echo (answers at once) and wait (answers only
// when its call is cancelled, telling the test when it started and when
// it saw the cancellation).
func blockingUpstream(started, cancelled chan<- string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "blocking", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns the label it is given."},
		func(_ context.Context, _ *mcp.CallToolRequest, in waitIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo " + in.Label}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "wait", Description: "Waits until the call is cancelled."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in waitIn) (*mcp.CallToolResult, any, error) {
			started <- in.Label
			<-ctx.Done()
			cancelled <- in.Label
			return nil, nil, ctx.Err()
		})
	return s
}

// TestServeStdioShortcut: over stdio, a plain tools/call of an
// initialized session takes the short way past the SDK's server and gets
// the same answer, audit record and cancellation as one the SDK serves;
// a call before initialize, or one whose params carry _meta, is the
// SDK's; a client that goes away mid-call ends the call upstream.
func TestServeStdioShortcut(t *testing.T) {
	started, cancelled := make(chan string, 4), make(chan string, 4)
	var buf bytes.Buffer
	audit := proxy.NewAudit(&buf)
	p, _ := startProxy(t, proxy.Settings{Pin: true}, audit, memUpstream(t, "blocking", blockingUpstream(started, cancelled)))
	c := newRawClient(t, p)
	shortWays := func() int64 { return proxy.FastCallsTaken(p) }

	// Before initialize the SDK refuses the call, as it would without
	// the short way.
	if m := c.call(1, "tools/call", `{"name":"echo","arguments":{"label":"early"}}`); m["error"] == nil || shortWays() != 0 {
		t.Fatalf("call before initialize: %s (short way %d)", m["result"], shortWays())
	}
	if m := c.call(2, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`); m["error"] != nil {
		t.Fatalf("initialize: %s", m["error"])
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	short := c.call(3, "tools/call", `{"name":"echo","arguments":{"label":"a"}}`)
	if shortWays() != 1 {
		t.Fatalf("a plain call did not take the short way (%d)", shortWays())
	}
	viaSDK := c.call(4, "tools/call", `{"name":"echo","arguments":{"label":"a"},"_meta":{"progressToken":"p4"}}`)
	if shortWays() != 1 {
		t.Fatalf("a call with _meta took the short way")
	}
	if short["result"] == nil || !bytes.Equal(short["result"], viaSDK["result"]) || !strings.Contains(string(short["result"]), "echo a") {
		t.Errorf("the two ways answer differently:\nshort %s %s\nSDK   %s %s", short["result"], short["error"], viaSDK["result"], viaSDK["error"])
	}
	// A call to a tool nobody offers is answered by the proxy's own
	// decision, the short way too.
	denied := c.call(5, "tools/call", `{"name":"nope","arguments":{}}`)
	var res mcp.CallToolResult
	if err := json.Unmarshal(denied["result"], &res); err != nil || !res.IsError || shortWays() != 2 {
		t.Fatalf("call to an unknown tool: %s %v (short way %d)", denied["result"], err, shortWays())
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || !strings.HasPrefix(tc.Text, proxy.BlockedPrefix) {
		t.Errorf("denied call's text: %+v", res.Content)
	}

	// notifications/cancelled for a short-way call reaches the server.
	c.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"wait","arguments":{"label":"six"}}}`)
	if got := <-started; got != "six" {
		t.Fatalf("started %q", got)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6,"reason":"test"}}`)
	if got := <-cancelled; got != "six" {
		t.Fatalf("cancelled %q", got)
	}
	// The proxy answers the cancelled call itself (a failed call).
	if m := c.next(); string(m["id"]) != "6" || (m["error"] == nil && !strings.Contains(string(m["result"]), `"isError":true`)) {
		t.Errorf("cancelled call's response: %s %s", m["result"], m["error"])
	}

	// The client going away mid-call ends the call at the server and
	// ServeStdio returns.
	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait","arguments":{"label":"seven"}}}`)
	if got := <-started; got != "seven" {
		t.Fatalf("started %q", got)
	}
	c.w.Close()
	if got := <-cancelled; got != "seven" {
		t.Fatalf("cancelled %q", got)
	}
	if err := <-c.done; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
	if shortWays() != 4 {
		t.Errorf("short way taken %d times, want 4", shortWays())
	}

	allowed, deniedRecs := 0, 0
	for _, r := range auditRecords(t, &buf) {
		switch {
		case r.Decision == proxy.DecisionCallAllowed && r.Tool == "echo":
			allowed++
		case r.Decision == proxy.DecisionCallDenied && r.ClientName == "nope":
			deniedRecs++
		}
	}
	if allowed != 2 || deniedRecs != 1 {
		t.Errorf("audit: %d echo calls allowed (want 2: one each way), %d denials of nope (want 1)", allowed, deniedRecs)
	}
}

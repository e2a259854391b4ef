package mcpconn_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/testkit"
)

// connectInMemory serves srv over an in-memory pipe and connects to it.
func connectInMemory(t *testing.T, name string, srv *mcp.Server, opts mcpconn.Options) *mcpconn.Conn {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	c, err := mcpconn.Connect(ctx, mcpconn.Source{Name: name, Transport: ct}, opts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() {
		c.Close()
		ss.Close()
		cancel()
	})
	return c
}

// connectHTTP serves srv with the go-sdk's streamable HTTP handler on a
// loopback test server and connects to its URL.
func connectHTTP(t *testing.T, srv *mcp.Server, opts mcpconn.Options) *mcpconn.Conn {
	t.Helper()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	c, err := mcpconn.Connect(context.Background(), mcpconn.Source{Name: "http", URL: hs.URL}, opts)
	if err != nil {
		hs.Close()
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() {
		c.Close()
		hs.CloseClientConnections()
		hs.Close()
	})
	return c
}

func connectStdio(t *testing.T, mode string, opts mcpconn.Options) *mcpconn.Conn {
	t.Helper()
	cmd, env := selfCommand(mode)
	c, err := mcpconn.Connect(context.Background(), mcpconn.Source{Name: "stdio-" + mode, Command: cmd, Env: env}, opts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestWellBehavedServer(t *testing.T) {
	transports := []struct {
		name    string
		connect func(t *testing.T) *mcpconn.Conn
	}{
		{"in-memory", func(t *testing.T) *mcpconn.Conn {
			return connectInMemory(t, "mem", echoServer(), mcpconn.DefaultOptions())
		}},
		{"stdio", func(t *testing.T) *mcpconn.Conn { return connectStdio(t, "echo", mcpconn.DefaultOptions()) }},
		{"streamable-http", func(t *testing.T) *mcpconn.Conn { return connectHTTP(t, echoServer(), mcpconn.DefaultOptions()) }},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			testkit.CheckGoroutines(t)
			c := tr.connect(t)
			ctx := context.Background()

			info := c.ServerInfo()
			want := mcpconn.ServerInfo{Name: "echo-test", Version: "1.2.3", ProtocolVersion: "2025-11-25", Instructions: "Use echo to hear yourself."}
			if info != want {
				t.Errorf("ServerInfo = %+v, want %+v", info, want)
			}

			tools, raw, err := c.ListTools(ctx)
			if err != nil {
				t.Fatalf("ListTools: %v", err)
			}
			var names []string
			for _, tl := range tools {
				names = append(names, tl.Name)
			}
			if got := strings.Join(names, ","); got != "add,echo,fail,noop_a,noop_b" {
				t.Errorf("tools across pages = %s", got)
			}
			// The raw document must be a valid catalog holding the same tools.
			cat, err := catalog.Parse("raw.json", raw)
			if err != nil {
				t.Fatalf("raw tools/list is not a catalog: %v", err)
			}
			if got := len(cat.Servers[0].Tools); got != 5 {
				t.Errorf("raw catalog has %d tools, want 5", got)
			}
			echo := tools[1]
			props, _ := echo.InputSchema["properties"].(map[string]any)
			text, _ := props["text"].(map[string]any)
			if text["description"] != "the text to send back" {
				t.Errorf("echo schema lost its property description: %v", echo.InputSchema)
			}

			calls := []struct {
				tool, args string
				text       string
				isError    bool
				err        error
			}{
				{"echo", `{"text":"hello"}`, "hello\n(echoed)", false, nil},
				{"add", `{"a":2,"b":40}`, "42", false, nil},
				{"fail", ``, "it broke", true, nil},
				{"no_such_tool", `{}`, "", false, mcpconn.ErrToolError},
			}
			for _, call := range calls {
				res, err := c.CallTool(ctx, call.tool, json.RawMessage(call.args))
				if call.err != nil {
					if !errors.Is(err, call.err) {
						t.Errorf("%s: err = %v, want %v", call.tool, err, call.err)
					}
					if err != nil && !strings.Contains(err.Error(), "tools/call "+call.tool) {
						t.Errorf("%s: error does not name the call: %v", call.tool, err)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", call.tool, err)
					continue
				}
				if res.Text != call.text || res.IsError != call.isError {
					t.Errorf("%s: got (%q, isError=%v), want (%q, %v)", call.tool, res.Text, res.IsError, call.text, call.isError)
				}
				if !json.Valid(res.Raw) || !strings.Contains(string(res.Raw), `"content"`) {
					t.Errorf("%s: raw result %s", call.tool, res.Raw)
				}
			}

			prompts, err := c.ListPrompts(ctx)
			if err != nil || len(prompts) != 1 || prompts[0].Name != "greet" || prompts[0].Arguments[0].Name != "who" {
				t.Errorf("ListPrompts = %+v, %v", prompts, err)
			}
			res, err := c.ListResources(ctx)
			var uris []string
			for _, r := range res {
				uris = append(uris, r.Name+"="+r.URI)
			}
			// Three resources over two pages, then the template.
			wantRes := "alpha=note://fixture.invalid/alpha,beta=note://fixture.invalid/beta,gamma=note://fixture.invalid/gamma,any-note=note://fixture.invalid/{name}"
			if err != nil || strings.Join(uris, ",") != wantRes {
				t.Errorf("ListResources = %v, %v", uris, err)
			}
		})
	}
}

func TestMissingCapabilitiesListEmpty(t *testing.T) {
	testkit.CheckGoroutines(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "tools-only", Version: "0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "only", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	c := connectInMemory(t, "tools-only", srv, mcpconn.DefaultOptions())
	ctx := context.Background()
	prompts, err := c.ListPrompts(ctx)
	if err != nil || len(prompts) != 0 {
		t.Errorf("ListPrompts = %v, %v", prompts, err)
	}
	res, err := c.ListResources(ctx)
	if err != nil || len(res) != 0 {
		t.Errorf("ListResources = %v, %v", res, err)
	}
	tools, _, err := c.ListTools(ctx)
	if err != nil || len(tools) != 1 {
		t.Errorf("ListTools = %v, %v", tools, err)
	}
}

func TestStdioCloseReapsProcess(t *testing.T) {
	testkit.CheckGoroutines(t)
	c := connectStdio(t, "echo", mcpconn.DefaultOptions())
	pid := c.Pid()
	if pid <= 0 {
		t.Fatalf("Pid = %d", pid)
	}
	if got := waitStderr(c, func(s string) bool { return strings.Contains(s, "echo server: starting") }); !strings.Contains(got, "echo server: starting") {
		t.Errorf("stderr not captured: %q", got)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	testkit.AssertReaped(t, pid)
}

func TestStderrIsBounded(t *testing.T) {
	testkit.CheckGoroutines(t)
	opts := mcpconn.DefaultOptions()
	opts.StderrLimit = 4096
	c := connectStdio(t, "spew", opts)
	// The server wrote 1 MiB before serving. Its stderr and stdout are
	// separate pipes, so the answer to initialize may overtake the last
	// stderr bytes: wait for the last line rather than assume it is there.
	got := waitStderr(c, func(s string) bool { return strings.HasSuffix(s, "spew: last line\n") })
	if !strings.HasPrefix(got, "[") || !strings.Contains(got, "earlier bytes dropped]") {
		t.Errorf("stderr capture does not report dropped bytes: %.80q", got)
	}
	if !strings.HasSuffix(got, "spew: last line\n") {
		t.Errorf("stderr capture lost the most recent output: ...%q", got[max(0, len(got)-40):])
	}
	if body := got[strings.Index(got, "\n")+1:]; len(body) != 4096 {
		t.Errorf("kept %d bytes of stderr, want 4096", len(body))
	}
}

func TestListChangedCoalesces(t *testing.T) {
	testkit.CheckGoroutines(t)
	srv := echoServer()
	c := connectInMemory(t, "mem", srv, mcpconn.DefaultOptions())
	for i := range 5 {
		mcp.AddTool(srv, &mcp.Tool{Name: "late_" + string(rune('a'+i))}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	}
	select {
	case <-c.ListChanged():
	case <-time.After(10 * time.Second):
		t.Fatal("no list_changed signal after adding tools")
	}
	tools, _, err := c.ListTools(context.Background())
	if err != nil || len(tools) != 10 {
		t.Fatalf("ListTools after change: %d tools, %v", len(tools), err)
	}
	// However many notifications arrived, at most one signal is pending.
	n := 0
	for {
		select {
		case <-c.ListChanged():
			n++
			continue
		default:
		}
		break
	}
	if n > 1 {
		t.Errorf("%d queued signals, want at most 1", n)
	}
}

func TestProtocolVersion(t *testing.T) {
	for _, v := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			opts := mcpconn.DefaultOptions()
			opts.ProtocolVersion = v
			c := connectInMemory(t, "mem", echoServer(), opts)
			if got := c.ServerInfo().ProtocolVersion; got != v {
				t.Errorf("negotiated %q, want %q", got, v)
			}
			if _, _, err := c.ListTools(context.Background()); err != nil {
				t.Errorf("ListTools at %s: %v", v, err)
			}
			if res, err := c.CallTool(context.Background(), "echo", json.RawMessage(`{"text":"v"}`)); err != nil || !strings.HasPrefix(res.Text, "v") {
				t.Errorf("CallTool at %s: %+v %v", v, res, err)
			}
		})
	}
}

func TestSessionKeepsServerIdentity(t *testing.T) {
	testkit.CheckGoroutines(t)
	a := connectInMemory(t, "alpha", echoServer(), mcpconn.DefaultOptions())
	b := connectStdio(t, "echo", mcpconn.DefaultOptions())
	s := mcpconn.NewSession()
	s.Add(a)
	s.Add(b)
	if s.Conn("alpha") != a || s.Conn("stdio-echo") != b || s.Conn("nope") != nil {
		t.Errorf("Conn lookup by name is wrong")
	}
	lists, err := s.ListAll(context.Background())
	if err != nil {
		t.Fatalf("ListAll: %v", err)
	}
	if len(lists) != 2 || lists[0].Server != "alpha" || lists[1].Server != "stdio-echo" {
		t.Fatalf("servers = %+v", lists)
	}
	for _, l := range lists {
		if len(l.Tools) != 5 || l.Info.Name != "echo-test" {
			t.Errorf("%s: %d tools, info %+v", l.Server, len(l.Tools), l.Info)
		}
	}
	cat := mcpconn.Catalog(lists)
	if len(cat.Servers) != 2 || cat.Servers[1].Instructions != "Use echo to hear yourself." {
		t.Errorf("catalog = %+v", cat.Servers)
	}
	pid := b.Pid()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if len(s.Conns()) != 0 {
		t.Errorf("session still holds connections after Close")
	}
	testkit.AssertReaped(t, pid)
}

func TestConnectBadSource(t *testing.T) {
	testkit.CheckGoroutines(t)
	cases := []struct {
		name string
		src  mcpconn.Source
		want error
	}{
		{"empty", mcpconn.Source{Name: "nothing"}, mcpconn.ErrInvalidOption},
		{"unknown protocol version", mcpconn.Source{Name: "future", Command: []string{"/bin/true"}}, mcpconn.ErrInvalidOption},
		{"missing binary", mcpconn.Source{Name: "ghost", Command: []string{"/nonexistent/mcp-server"}}, mcpconn.ErrServerExited},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := mcpconn.DefaultOptions()
			if tc.name == "unknown protocol version" {
				opts.ProtocolVersion = "2099-01-01"
			}
			_, err := mcpconn.Connect(context.Background(), tc.src, opts)
			if err == nil {
				t.Fatal("Connect succeeded")
			}
			var e *mcpconn.Error
			if !errors.As(err, &e) || e.Server != tc.src.Name || e.Op != "connect" {
				t.Errorf("error %v does not name server and op", err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

// waitStderr polls the captured stderr until done accepts it (stderr is
// copied by its own goroutine, with no ordering against stdout), and
// returns the last value seen. The bound is far beyond any machine's need.
func waitStderr(c *mcpconn.Conn, done func(string) bool) string {
	var got string
	for range 2400 {
		if got = c.Stderr(); done(got) {
			return got
		}
		time.Sleep(25 * time.Millisecond)
	}
	return got
}

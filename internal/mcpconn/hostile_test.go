package mcpconn_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/testkit"
)

// TestHostileServers points the client at every faulty mode and checks it
// gets the right typed error quickly, and that neither the server process
// nor any goroutine outlives Close.
func TestHostileServers(t *testing.T) {
	cases := []struct {
		mode string
		// stage is where the fault must surface: "connect", "list" or "call".
		stage string
		want  error
		// inErr must appear in the message (beyond server and op names).
		inErr string
		// usableAfter: the fault fails only its call, not the session.
		usableAfter bool
	}{
		{fixture.FaultyExitAtOnce, "connect", mcpconn.ErrServerExited, "simulated crash", false},
		{fixture.FaultyGarbage, "connect", mcpconn.ErrProtocol, "invalid character", false},
		{fixture.FaultySilent, "connect", mcpconn.ErrTimeout, "", false},
		{fixture.FaultyBadVersion, "connect", mcpconn.ErrProtocol, "1999-01-01", false},
		{fixture.FaultyDeepSchema, "list", mcpconn.ErrProtocol, "depth", false},
		{fixture.FaultyHang, "call", mcpconn.ErrTimeout, "", false},
		{fixture.FaultyExit, "call", mcpconn.ErrServerExited, "exit status 3", false},
		{fixture.FaultyHuge, "call", mcpconn.ErrMessageTooLarge, "exceeded", false},
		{fixture.FaultyMalformed, "call", mcpconn.ErrProtocol, "not valid JSON", false},
		{fixture.FaultyBadUTF8, "call", mcpconn.ErrProtocol, "UTF-8", true},
		{fixture.FaultyFlood, "call", mcpconn.ErrTimeout, "", false},
	}
	if len(cases) != len(fixture.FaultyModes) {
		t.Fatalf("%d cases for %d faulty modes", len(cases), len(fixture.FaultyModes))
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			testkit.CheckGoroutines(t)
			var before runtime.MemStats
			runtime.ReadMemStats(&before)

			pidFile := filepath.Join(t.TempDir(), "pid")
			cmd, env := selfCommand("faulty:" + tc.mode)
			env = append(env, envPidFile+"="+pidFile)
			opts := mcpconn.DefaultOptions()
			// Short deadlines only where the deadline is the expected
			// outcome; elsewhere a loaded machine must not turn the
			// expected error into a timeout.
			if tc.want == mcpconn.ErrTimeout {
				opts.ConnectTimeout = 2 * time.Second
				opts.CallTimeout = time.Second
			}
			ctx := context.Background()

			c, err := mcpconn.Connect(ctx, mcpconn.Source{Name: "faulty-" + tc.mode, Command: cmd, Env: env}, opts)
			op := "connect"
			if err == nil {
				switch tc.stage {
				case "connect":
					c.Close()
					t.Fatalf("Connect succeeded; want %v", tc.want)
				case "list":
					op = "tools/list"
					_, _, err = c.ListTools(ctx)
				case "call":
					op = "tools/call poke"
					if _, _, lerr := c.ListTools(ctx); lerr != nil {
						t.Fatalf("ListTools before the faulty call: %v", lerr)
					}
					_, err = c.CallTool(ctx, "poke", json.RawMessage(`{"target":"x"}`))
					if tc.usableAfter {
						if _, _, lerr := c.ListTools(ctx); lerr != nil {
							t.Errorf("session unusable after the rejected call: %v", lerr)
						}
					}
				}
				if cerr := c.Close(); cerr != nil {
					t.Errorf("Close: %v", cerr)
				}
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			var e *mcpconn.Error
			if !errors.As(err, &e) || e.Server != "faulty-"+tc.mode || e.Op != op {
				t.Errorf("error %q does not name server %q and op %q", err, "faulty-"+tc.mode, op)
			}
			if !strings.Contains(err.Error(), tc.inErr) {
				t.Errorf("error %q does not mention %q", err, tc.inErr)
			}

			pid := readPid(t, pidFile)
			testkit.AssertReaped(t, pid)

			// A 100 MB line must not be buffered: the heap may grow by the
			// message cap and change, not by the line.
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 64<<20 {
				t.Errorf("heap grew by %d MiB", grew>>20)
			}
		})
	}
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("server never wrote its pid: %v", err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	return pid
}

// TestDeepResultFailsOnlyThatCall: a result nested past MaxJSONDepth (but
// within what the SDK itself accepts) is rejected before the SDK decodes
// it, and the session stays usable.
func TestDeepResultFailsOnlyThatCall(t *testing.T) {
	testkit.CheckGoroutines(t)
	srv := echoServer()
	srv.AddTool(&mcp.Tool{Name: "deep", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var v any = "bottom"
		for range 300 {
			v = map[string]any{"x": v}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deep"}}, StructuredContent: v}, nil
	})
	c := connectInMemory(t, "mem", srv, mcpconn.DefaultOptions())
	ctx := context.Background()
	_, err := c.CallTool(ctx, "deep", nil)
	if !errors.Is(err, mcpconn.ErrProtocol) || !strings.Contains(err.Error(), "deeper than 256") {
		t.Fatalf("deep result: err = %v", err)
	}
	res, err := c.CallTool(ctx, "echo", json.RawMessage(`{"text":"still here"}`))
	if err != nil || !strings.HasPrefix(res.Text, "still here") {
		t.Fatalf("call after the rejected one: %+v, %v", res, err)
	}
}

// TestCloseInterruptsPendingCall: closing a connection (say on Ctrl-C)
// ends a call that is waiting on a hung server instead of leaving it to
// its timeout.
func TestCloseInterruptsPendingCall(t *testing.T) {
	testkit.CheckGoroutines(t)
	cmd, env := selfCommand("faulty:" + fixture.FaultyHang)
	c, err := mcpconn.Connect(context.Background(), mcpconn.Source{Name: "hung", Command: cmd, Env: env}, mcpconn.DefaultOptions())
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	pid := c.Pid()
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "poke", nil) // 30 s call timeout
		errc <- err
	}()
	// Whether the call is already pending or not yet sent when Close
	// runs, it must end with ErrServerExited; the pause makes the pending
	// case the usual one.
	time.Sleep(100 * time.Millisecond)
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, mcpconn.ErrServerExited) {
			t.Errorf("pending call ended with %v, want ErrServerExited", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("pending call still blocked after Close")
	}
	testkit.AssertReaped(t, pid)
}

// TestCancelledCallReachesServer: a tools/call the caller gives up on
// is cancelled at the server too (notifications/cancelled naming its
// request), and the connection goes on serving calls.
func TestCancelledCallReachesServer(t *testing.T) {
	testkit.CheckGoroutines(t)
	srv := echoServer()
	started, stopped := make(chan struct{}), make(chan error, 1)
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(started)
		<-ctx.Done() // only the client's cancellation ends this
		stopped <- ctx.Err()
		return nil, ctx.Err()
	})
	c := connectInMemory(t, "mem", srv, mcpconn.DefaultOptions())
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, "wait", nil)
		errc <- err
	}()
	<-started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: err = %v, want context.Canceled", err)
	}
	select {
	case err := <-stopped:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("server handler ended with %v, want its context cancelled", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server never heard that the call was cancelled")
	}
	res, err := c.CallTool(context.Background(), "echo", json.RawMessage(`{"text":"after"}`))
	if err != nil || !strings.HasPrefix(res.Text, "after") {
		t.Fatalf("call after the cancelled one: %+v, %v", res, err)
	}
}

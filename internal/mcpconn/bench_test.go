package mcpconn_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/mcpconn"
)

var benchArgs = json.RawMessage(`{"text":"ping"}`)

func benchCalls(b *testing.B, c *mcpconn.Conn) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := c.CallTool(ctx, "echo", benchArgs)
		if err != nil || res.Text != "ping\n(echoed)" {
			b.Fatalf("CallTool = %+v, %v", res, err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// BenchmarkCallInMemory: one tools/call round trip through mcpconn and
// the go-sdk over an in-memory pipe (client and server in this process).
func BenchmarkCallInMemory(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := echoServer().Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	c, err := mcpconn.Connect(ctx, mcpconn.Source{Name: "mem", Transport: ct}, mcpconn.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	benchCalls(b, c)
}

// BenchmarkCallStdio: one tools/call round trip to a go-sdk server in a
// subprocess. Allocations are the client side only; variants show the
// effect of the offered protocol version and of the server's GOGC.
func BenchmarkCallStdio(b *testing.B) {
	variants := []struct {
		name, version string
		env           []string
	}{
		{"proto=2025-11-25", "2025-11-25", nil},
		{"proto=2025-06-18", "2025-06-18", nil},
		{"proto=2026-07-28", "2026-07-28", nil},
		{"proto=2025-11-25/server-GOGC=400", "2025-11-25", []string{"GOGC=400"}},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			cmd, env := selfCommand("bench")
			opts := mcpconn.DefaultOptions()
			opts.ProtocolVersion = v.version
			c, err := mcpconn.Connect(context.Background(), mcpconn.Source{Name: "bench", Command: cmd, Env: append(env, v.env...)}, opts)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			benchCalls(b, c)
		})
	}
}

// BenchmarkCallStdioPlainSDK is the baseline: the go-sdk's own
// CommandTransport and ClientSession with no mcpconn layer.
func BenchmarkCallStdioPlainSDK(b *testing.B) {
	cmd, env := selfCommand("bench")
	ecmd := exec.Command(cmd[0])
	ecmd.Env = env
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	ctx := context.Background()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: ecmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: benchArgs}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// BenchmarkStartListStdio: spawn a stdio server, initialize, list its
// tools and shut it down, the cost of a one-off `scan` of a command.
func BenchmarkStartListStdio(b *testing.B) {
	cmd, env := selfCommand("bench")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		c, err := mcpconn.Connect(ctx, mcpconn.Source{Name: "bench", Command: cmd, Env: env}, mcpconn.DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		tools, _, err := c.ListTools(ctx)
		if err != nil || len(tools) != 5 {
			b.Fatalf("ListTools: %d tools, %v", len(tools), err)
		}
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

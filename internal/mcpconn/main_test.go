package mcpconn_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/fixture"
)

// The test binary doubles as the stdio servers the tests spawn: when
// envServer is set, TestMain serves instead of testing. This keeps the
// tests independent of a built mcpsec binary. It deliberately does not
// import internal/cli: the whole command tree's package init would then
// dominate every spawn the benchmarks time (see clitest for the tests
// that run the real commands).
const (
	envServer  = "MCPSEC_MCPCONN_TEST_SERVER"
	envPidFile = "MCPSEC_MCPCONN_TEST_PIDFILE"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(envServer); mode != "" {
		os.Exit(serve(mode))
	}
	os.Exit(m.Run())
}

func serve(mode string) int {
	if f := os.Getenv(envPidFile); f != "" {
		_ = os.WriteFile(f, []byte(fmt.Sprint(os.Getpid())), 0o600)
	}
	ctx := context.Background()
	if faulty, ok := strings.CutPrefix(mode, "faulty:"); ok {
		if err := fixture.RunFaulty(ctx, faulty, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "faulty server:", err)
			return 3
		}
		return 0
	}
	switch mode {
	case "echo":
		fmt.Fprintln(os.Stderr, "echo server: starting")
		if err := echoServer().Run(ctx, &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "echo server:", err)
			return 1
		}
		return 0
	case "bench":
		// One page, no stderr chatter: the server the benchmarks time.
		srv := echoServer()
		if err := srv.Run(ctx, &mcp.StdioTransport{}); err != nil {
			return 1
		}
		return 0
	case "env":
		// Tells its caller the environment it was started with.
		s := mcp.NewServer(&mcp.Implementation{Name: "env-test", Version: "0"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "environ", Description: "Lists the server's environment."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(os.Environ(), "\n")}}}, nil, nil
		})
		if err := s.Run(ctx, &mcp.StdioTransport{}); err != nil {
			return 1
		}
		return 0
	case "spew":
		// Writes far more stderr than any sane limit, then serves.
		line := strings.Repeat("x", 1023) + "\n"
		for range 1024 {
			os.Stderr.WriteString(line)
		}
		fmt.Fprintln(os.Stderr, "spew: last line")
		if err := echoServer().Run(ctx, &mcp.StdioTransport{}); err != nil {
			return 1
		}
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown test server", mode)
	return 2
}

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to send back"`
}

type addArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

// echoServer is a small, well-behaved go-sdk server. A page size of 2
// makes its five tools span three pages, exercising pagination.
func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo-test", Version: "1.2.3"}, &mcp.ServerOptions{
		Instructions: "Use echo to hear yourself.",
		PageSize:     2,
	})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes text back."}, func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}, &mcp.TextContent{Text: "(echoed)"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds two integers."}, func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always reports failure."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "it broke"}}}, nil, nil
	})
	for _, n := range []string{"noop_a", "noop_b"} {
		mcp.AddTool(s, &mcp.Tool{Name: n, Description: "Does nothing."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
	}
	for _, n := range []string{"alpha", "beta", "gamma"} {
		s.AddResource(&mcp.Resource{Name: n, URI: "note://fixture.invalid/" + n, MIMEType: "text/plain", Description: "Note " + n + "."},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{}, nil
			})
	}
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "any-note", URITemplate: "note://fixture.invalid/{name}"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*mcp.PromptArgument{{Name: "who", Description: "whom to greet"}}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	return s
}

// selfCommand runs this test binary as the named server.
func selfCommand(mode string) ([]string, []string) {
	return []string{os.Args[0]}, append(os.Environ(), envServer+"="+mode)
}

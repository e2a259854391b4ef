package mcpconn_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/mcpconn"
)

// Connect to a server (here an in-memory go-sdk server; a Source with
// Command or URL works the same), list its tools and call one.
func ExampleConnect() {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, _ := echoServer().Connect(ctx, st, nil)
	defer ss.Close()

	c, err := mcpconn.Connect(ctx, mcpconn.Source{Name: "notes", Transport: ct}, mcpconn.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	info := c.ServerInfo()
	fmt.Println(info.Name, info.ProtocolVersion)
	tools, _, _ := c.ListTools(ctx)
	fmt.Println(len(tools), "tools, first:", tools[0].Name)
	res, _ := c.CallTool(ctx, "add", json.RawMessage(`{"a":1,"b":2}`))
	fmt.Println("add:", res.Text)
	_, err = c.CallTool(ctx, "missing", nil)
	fmt.Println(errors.Is(err, mcpconn.ErrToolError))
	// Output:
	// echo-test 2025-11-25
	// 5 tools, first: add
	// add: 3
	// true
}

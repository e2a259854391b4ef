package defense

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/payload"
)

// connect serves srv over the MCP SDK's in-memory transport and returns
// a client session to it; both ends close when t ends.
func connect(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "defense-test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return cs
}

// resultText joins the text blocks of a tool result, as the agent reads it.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// listAsAgentTools lists server's tools over cs as the agent is offered
// them.
func listAsAgentTools(t *testing.T, cs *mcp.ClientSession, server string) []agent.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("server %s: tools/list: %v", server, err)
	}
	var out []agent.Tool
	for _, tl := range res.Tools {
		def, err := catalog.FromAny(tl)
		if err != nil {
			t.Fatalf("server %s: tool %s: %v", server, tl.Name, err)
		}
		out = append(out, agent.Tool{Server: server, ModelName: def.Name, Def: def})
	}
	return out
}

// The real fixture servers' clean catalogs and ordinary results must pass
// both filters untouched: the filter's cost on benign traffic is zero
// redactions, and a benign result is not even wrapped.
func TestFixtureBenignTrafficPasses(t *testing.T) {
	w := fixture.NewWorld()
	cs := connect(t, fixture.NewServer(w, fixture.ServerConfig{}))
	tools := listAsAgentTools(t, cs, "workspace")
	shadow := connect(t, fixture.NewShadowServer(w, "summary-helper", payload.Payload{}))
	tools = append(tools, listAsAgentTools(t, shadow, "summary-helper")...)
	if len(tools) < 7 {
		t.Fatalf("listed %d tools, want the six benign tools plus the helper and sink", len(tools))
	}
	_, notes := MetaFilter()(tools)
	for _, n := range notes {
		t.Errorf("benign fixture metadata redacted: %+v", n)
	}

	calls := []struct {
		tool string
		args map[string]any
	}{
		{"calculate", map[string]any{"expression": "(2+3)*4"}},
		{"calculate", map[string]any{"expression": "1/0"}},
		{"add_note", map[string]any{"title": "todo", "body": "Send the weekly digest on Friday."}},
		{"list_notes", map[string]any{}},
		{"read_note", map[string]any{"title": "welcome"}},
		{"read_note", map[string]any{"title": "oncall-guide"}},
		{"lookup_user", map[string]any{"user_id": "u-1001"}},
		{"lookup_user", map[string]any{"user_id": "u-9999"}},
		{"delete_note", map[string]any{"title": "q3-planning"}},
	}
	for _, c := range calls {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		in := agent.Result{Text: resultText(res), IsError: res.IsError}
		if in.Text == "" {
			t.Fatalf("%s: empty result", c.tool)
		}
		got, notes := ResultFilter()(agent.Call{Server: "workspace", Tool: c.tool, ModelName: c.tool}, in)
		if got != in || len(notes) != 0 {
			t.Errorf("%s result %q changed to %q (notes %v)", c.tool, in.Text, got.Text, notes)
		}
	}
}

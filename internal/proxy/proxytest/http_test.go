package proxytest_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/testkit"
)

// startServing runs `mcpsec ARGS...` and returns the URL it prints as its
// first line of stdout (the fixture's --http and the proxy's --listen).
func startServing(t *testing.T, args ...string) string {
	t.Helper()
	argv, env := mcpsec(args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	return testkit.ServeURL(t, cmd)
}

// TestHTTPBothWays: the proxy fronts a streamable-HTTP upstream
// (--upstream) and serves streamable HTTP itself (--listen on loopback);
// the poisoned tool is withheld and calls are relayed end to end.
func TestHTTPBothWays(t *testing.T) {
	upstreamURL := startServing(t, "fixture", "serve", "--server", "poisoned", "--class", "tool_description",
		"--carrier-tool", "lookup_user", "--http", "127.0.0.1:0")
	proxyURL := startServing(t, "proxy", "--upstream", upstreamURL, "--listen", "127.0.0.1:0")
	if !strings.HasPrefix(proxyURL, "http://127.0.0.1:") {
		t.Fatalf("proxy URL %q", proxyURL)
	}
	ctx := context.Background()
	c, err := mcpconn.Connect(ctx, mcpconn.Source{Name: "proxy", URL: proxyURL}, mcpconn.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tools, _, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if slices.Contains(names, fixture.ToolLookupUser) || !slices.Contains(names, fixture.ToolReadNote) {
		t.Errorf("offered %v: want read_note and not the poisoned lookup_user", names)
	}
	res, err := c.CallTool(ctx, fixture.ToolReadNote, json.RawMessage(`{"title":"welcome"}`))
	if err != nil || res.IsError || !strings.Contains(res.Text, "Welcome to the team workspace") {
		t.Errorf("read_note through both HTTP hops: %v %+v", err, res)
	}
}

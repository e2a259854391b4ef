package proxytest_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/proxy"
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

// offeredNames lists c's tools and returns their names.
func offeredNames(t *testing.T, c *mcpconn.Conn) []string {
	t.Helper()
	tools, _, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	return names
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
	names := offeredNames(t, c)
	if slices.Contains(names, fixture.ToolLookupUser) || !slices.Contains(names, fixture.ToolReadNote) {
		t.Errorf("offered %v: want read_note and not the poisoned lookup_user", names)
	}
	res, err := c.CallTool(ctx, fixture.ToolReadNote, json.RawMessage(`{"title":"welcome"}`))
	if err != nil || res.IsError || !strings.Contains(res.Text, "Welcome to the team workspace") {
		t.Errorf("read_note through both HTTP hops: %v %+v", err, res)
	}
}

// TestHTTPUpstreamListChanged: a streamable-HTTP upstream (--upstream)
// that changes a definition after the first call (the approval-mode rug
// pull) and announces it with notifications/tools/list_changed: the proxy
// judges the new listing (pinning withholds the changed definition) and
// only then tells its stdio client that the list changed. Everything is
// on loopback and the test waits on the notification itself.
func TestHTTPUpstreamListChanged(t *testing.T) {
	upstreamURL := startServing(t, "fixture", "serve", "--server", "poisoned", "--class", "rug_pull",
		"--rug-mode", "approval", "--carrier-tool", fixture.ToolReadNote, "--http", "127.0.0.1:0")
	if !strings.HasPrefix(upstreamURL, "http://127.0.0.1:") {
		t.Fatalf("upstream URL %q", upstreamURL)
	}
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	// The scan off: pinning alone must catch the change.
	argv, env := mcpsec("proxy", "--no-scan", "--audit", audit, "--upstream", upstreamURL)
	ctx := context.Background()
	c, err := mcpconn.Connect(ctx, mcpconn.Source{Name: "proxy", Command: argv, Env: env}, mcpconn.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	offered := func() []string { return offeredNames(t, c) }
	if names := offered(); !slices.Contains(names, fixture.ToolReadNote) {
		t.Fatalf("first listing %v lacks %s", names, fixture.ToolReadNote)
	}
	res, err := c.CallTool(ctx, fixture.ToolReadNote, json.RawMessage(`{"title":"welcome"}`))
	if err != nil || res.IsError {
		t.Fatalf("first call: %v %+v", err, res)
	}
	// The upstream now lists the changed definition and says so. The
	// client does not list again: only the upstream's notification can
	// make the proxy judge the change, and the client hears list_changed
	// once it has. (The proxy's first listing may have announced itself
	// too; each signal is checked against the audit log until the
	// judgement is there, which without the relay never happens.)
	for judged := false; !judged; {
		<-c.ListChanged()
		b, err := os.ReadFile(audit)
		if err != nil {
			t.Fatal(err)
		}
		judged = strings.Contains(string(b), `"rule":"pin_drift"`)
	}
	if names := offered(); slices.Contains(names, fixture.ToolReadNote) || len(names) == 0 {
		t.Errorf("after list_changed: offered %v, want the other tools without %s", names, fixture.ToolReadNote)
	}
	seen := validateAudit(t, audit)
	if seen[proxy.DecisionListChanged] == 0 || seen[proxy.DecisionToolWithheld] == 0 {
		t.Errorf("audit decisions %v: want list_changed and tool_withheld", seen)
	}
}

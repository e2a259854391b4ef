package proxytest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/proxy"
)

// TestHostileUpstreamsFailClosed fronts one good server and one server
// per faulty mode with one gateway. Upstreams that break at start-up are
// left out; those that break on a call answer that call with an error
// from mcpsec and, where the connection is lost, have their tools
// withdrawn; the good server keeps working throughout; and when the
// client goes away no process of any upstream is left.
func TestHostileUpstreamsFailClosed(t *testing.T) {
	dir := t.TempDir()
	pidFile := func(name string) string { return filepath.Join(dir, name+".pid") }
	servers := map[string]any{}
	entry := func(name string, args ...string) {
		servers[name] = map[string]any{"command": os.Args[0], "env": map[string]string{
			envInner: jsonArgs(args...), envPid: pidFile(name)}}
	}
	entry("good", "fixture", "serve", "--server", "benign")
	for _, m := range fixture.FaultyModes {
		entry("f-"+m, "fixture", "faulty", "--mode", m)
	}
	cfg := filepath.Join(dir, "claude_desktop_config.json")
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.WriteFile(cfg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	audit := filepath.Join(dir, "audit.jsonl")
	// The timeouts are the point here (hang, silent, flood); normal calls
	// take milliseconds.
	argv, env := mcpsec("--connect-timeout", "5s", "--call-timeout", "5s",
		"proxy", "--config", cfg, "--allow-exec", "--no-pin", "--audit", audit)
	env = append(env, envPid+"="+pidFile("proxy"))
	ctx := context.Background()
	opts := mcpconn.DefaultOptions()
	opts.ConnectTimeout, opts.CallTimeout = 60*time.Second, 60*time.Second
	c, err := mcpconn.Connect(ctx, mcpconn.Source{Name: "proxy", Command: argv, Env: env}, opts)
	if err != nil {
		t.Fatalf("proxy did not start: %v", err)
	}
	closed := false
	defer func() {
		if !closed {
			c.Close()
		}
	}()

	tools, _, err := c.ListTools(ctx)
	if err != nil {
		t.Fatalf("tools/list: %v (proxy stderr %s)", err, c.Stderr())
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, fixture.ToolCalculate) {
		t.Fatalf("good server's tools missing: %v", names)
	}
	// Faulty servers that list are offered their poke; the first keeps
	// the bare name, the others are qualified.
	pokes := map[string]string{}
	for _, m := range []string{fixture.FaultyHang, fixture.FaultyExit, fixture.FaultyHuge, fixture.FaultyMalformed, fixture.FaultyBadUTF8, fixture.FaultyFlood} {
		srv := "f-" + m
		name := srv + "__poke"
		if !slices.Contains(names, name) {
			name = "poke"
		}
		pokes[m] = name
	}
	for _, m := range []string{fixture.FaultyDeepSchema, fixture.FaultyExitAtOnce, fixture.FaultyGarbage, fixture.FaultySilent, fixture.FaultyBadVersion} {
		if slices.Contains(names, "f-"+m+"__poke") {
			t.Errorf("%s's tool offered: %v", m, names)
		}
	}

	var wg sync.WaitGroup
	results := map[string]mcpconn.Result{}
	var mu sync.Mutex
	for m, name := range pokes {
		wg.Go(func() {
			res, err := c.CallTool(ctx, name, json.RawMessage(`{"target":"x"}`))
			if err != nil {
				t.Errorf("%s: the proxy itself failed: %v", m, err)
				return
			}
			mu.Lock()
			results[m] = res
			mu.Unlock()
		})
	}
	wg.Wait()
	for m, res := range results {
		if !res.IsError || !strings.HasPrefix(res.Text, "mcpsec proxy: upstream server f-"+m) {
			t.Errorf("%s: call answered %+v, want an error from mcpsec naming the server", m, res)
		}
	}
	// The good server is still served.
	res, err := c.CallTool(ctx, fixture.ToolCalculate, json.RawMessage(`{"expression":"6*7"}`))
	if err != nil || res.IsError || !strings.Contains(res.Text, "42") {
		t.Errorf("good server after the faults: %v %+v", err, res)
	}
	tools, _, err = c.ListTools(ctx)
	if err != nil {
		t.Fatalf("tools/list after the faults: %v", err)
	}
	names = names[:0]
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	for _, m := range []string{fixture.FaultyExit, fixture.FaultyHuge, fixture.FaultyMalformed} {
		if slices.Contains(names, pokes[m]) && pokes[m] != "poke" {
			t.Errorf("crashed %s's tool still offered: %v", m, names)
		}
	}
	if !slices.Contains(names, fixture.ToolCalculate) {
		t.Errorf("good server's tools gone: %v", names)
	}

	if err := c.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	closed = true
	for name := range servers {
		if _, err := os.Stat(pidFile(name)); err == nil {
			assertGone(t, pidFile(name))
		}
	}
	assertGone(t, pidFile("proxy"))

	f, err := os.Open(audit)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := proxy.ReadAudit(audit, f)
	if err != nil {
		t.Fatal(err)
	}
	seen := validateAudit(t, audit)
	for _, d := range []string{proxy.DecisionUpstreamFailed, proxy.DecisionCallFailed, proxy.DecisionCallAllowed, proxy.DecisionToolPassed} {
		if seen[d] == 0 {
			t.Errorf("no %s record in the log: %v", d, seen)
		}
	}
	down := map[string]bool{}
	for _, r := range recs {
		if r.Decision == proxy.DecisionUpstreamFailed {
			down[r.Server] = true
		}
	}
	for _, m := range []string{fixture.FaultyExitAtOnce, fixture.FaultyGarbage, fixture.FaultySilent, fixture.FaultyBadVersion, fixture.FaultyDeepSchema, fixture.FaultyExit, fixture.FaultyHuge} {
		if !down["f-"+m] {
			t.Errorf("no upstream_failed record for f-%s", m)
		}
	}
}

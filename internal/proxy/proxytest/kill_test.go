package proxytest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/mcpsec/mcpsec/internal/mcpconn"
)

// TestUpstreamsDieWithKilledProxy: a SIGKILL of the proxy runs none of
// its shutdown, and an upstream that does not exit when its stdin closes
// would live on. The kernel kills every stdio upstream with the proxy
// (PR_SET_PDEATHSIG); this waits for each to be gone.
func TestUpstreamsDieWithKilledProxy(t *testing.T) {
	dir := t.TempDir()
	pidFile := func(name string) string { return filepath.Join(dir, name+".pid") }
	servers := map[string]any{}
	for _, name := range []string{"one", "two"} {
		servers[name] = map[string]any{"command": os.Args[0], "env": map[string]string{
			envInner: jsonArgs("fixture", "serve", "--server", "benign"), envPid: pidFile(name), envStubborn: "1"}}
	}
	t.Cleanup(func() {
		// Should the kernel not have killed them, the stubborn servers
		// must not outlive the test.
		for _, name := range []string{"one", "two"} {
			if b, err := os.ReadFile(pidFile(name)); err == nil {
				if pid, err := strconv.Atoi(string(b)); err == nil && pid > 0 {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
	})
	cfg := filepath.Join(dir, "mcp.json")
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	if err := os.WriteFile(cfg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	argv, env := mcpsec("proxy", "--config", cfg, "--allow-exec", "--no-pin")
	ctx := context.Background()
	c, err := mcpconn.Connect(ctx, mcpconn.Source{Name: "proxy", Command: argv, Env: env}, mcpconn.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Both upstreams are up once the proxy lists their tools.
	tools, _, err := c.ListTools(ctx)
	if err != nil || len(tools) == 0 {
		t.Fatalf("tools/list: %d tools, %v", len(tools), err)
	}
	for _, name := range []string{"one", "two"} {
		if _, err := os.Stat(pidFile(name)); err != nil {
			t.Fatalf("upstream %s wrote no pid: %v", name, err)
		}
	}
	if err := syscall.Kill(c.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"one", "two"} {
		assertGone(t, pidFile(name))
	}
}

package proxytest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/mcpconn"
)

// TestUpstreamGetsNoCredential: the proxy's own environment holds a
// provider key; the upstream it starts sees only the minimal set and
// what --pass-env names.
func TestUpstreamGetsNoCredential(t *testing.T) {
	dump := filepath.Join(t.TempDir(), "env.txt")
	argv, env := proxyOver([]string{"--pass-env", envDump}, "fixture", "serve", "--server", "benign")
	env = append(env, "ANTHROPIC_API_KEY=sk-ant-synthetic-never-leaves", envDump+"="+dump)
	c, err := mcpconn.Connect(context.Background(), mcpconn.Source{Name: "proxy", Command: argv, Env: env}, mcpconn.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.ListTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.Close()
	b, err := os.ReadFile(dump)
	if err != nil {
		t.Fatalf("upstream wrote no environment: %v", err)
	}
	got := string(b)
	if strings.Contains(got, "sk-ant-synthetic") || strings.Contains(got, envArgs+"=") {
		t.Errorf("upstream environment leaks ours:\n%s", got)
	}
	if !strings.Contains(got, envInner+"=") || !strings.Contains(got, "PATH=") {
		t.Errorf("upstream environment lacks what was passed:\n%s", got)
	}
}

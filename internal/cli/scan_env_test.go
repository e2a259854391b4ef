package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEnvServerHelperProcess is not a test. Run as
// `<test binary> -test.run=^TestEnvServerHelperProcess$ -- env-server FILE`
// it writes its environment to FILE and serves one tool over stdio. It is
// selected by its arguments rather than by a variable because what its
// environment holds is the point.
func TestEnvServerHelperProcess(t *testing.T) {
	i := slices.Index(os.Args, "--")
	if i < 0 || len(os.Args) < i+3 || os.Args[i+1] != "env-server" {
		return
	}
	if err := os.WriteFile(os.Args[i+2], []byte(strings.Join(os.Environ(), "\n")+"\n"), 0o600); err != nil {
		os.Exit(3)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "env-probe", Version: "0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "add", Description: "Adds two integers."}, func(context.Context, *mcp.CallToolRequest, struct {
		A int `json:"a"`
		B int `json:"b"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// TestScannedServerGetsMinimalEnv: a server started by scan --stdio or
// scan --config --allow-exec must not receive mcpsec's provider keys; it
// gets the minimal environment, its config entry's env block, and what
// --pass-env names.
func TestScannedServerGetsMinimalEnv(t *testing.T) {
	const sentinel = "sk-ant-api03-canary-mcpsec-scan-test-not-a-key"
	t.Setenv("ANTHROPIC_API_KEY", sentinel)
	t.Setenv("OPENAI_API_KEY", sentinel)
	dir := t.TempDir()
	dump := filepath.Join(dir, "env.txt")
	argv := []string{os.Args[0], "-test.run=^TestEnvServerHelperProcess$", "--", "env-server", dump}
	cfg := filepath.Join(dir, "mcp.json")
	body, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"probe": map[string]any{
		"command": argv[0], "args": argv[1:], "env": map[string]string{"NOTES_DIR": "/srv/notes"}}}})
	if err := os.WriteFile(cfg, body, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		args    []string
		want    []string // NAME=value lines the server must see
		wantNot []string // variable names it must not see
	}{
		{"stdio", []string{"scan", "--stdio", strings.Join(argv, " ")},
			[]string{"PATH=" + os.Getenv("PATH")}, []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY"}},
		{"stdio with --pass-env", []string{"scan", "--stdio", strings.Join(argv, " "), "--pass-env", "ANTHROPIC_API_KEY"},
			[]string{"ANTHROPIC_API_KEY=" + sentinel}, []string{"OPENAI_API_KEY"}},
		{"config env block", []string{"scan", "--config", cfg, "--allow-exec"},
			[]string{"NOTES_DIR=/srv/notes", "PATH=" + os.Getenv("PATH")}, []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY"}},
		{"lock with --pass-env", []string{"lock", "--config", cfg, "--allow-exec", "--pass-env", "OPENAI_API_KEY"},
			[]string{"NOTES_DIR=/srv/notes", "OPENAI_API_KEY=" + sentinel}, []string{"ANTHROPIC_API_KEY"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(dump)
			if code, out, errs := run(t, tc.args...); code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			b, err := os.ReadFile(dump)
			if err != nil {
				t.Fatalf("the server never wrote its environment: %v", err)
			}
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			for _, w := range tc.want {
				if !slices.Contains(lines, w) {
					t.Errorf("server environment lacks %s:\n%s", w, b)
				}
			}
			for _, name := range tc.wantNot {
				for _, l := range lines {
					if strings.HasPrefix(l, name+"=") {
						t.Errorf("server received %s", name)
					}
				}
			}
		})
	}
	if code, _, errs := run(t, "scan", "--stdio", strings.Join(argv, " "), "--pass-env", "BAD=NAME"); code != 2 || !strings.Contains(errs, "--pass-env") {
		t.Errorf("--pass-env BAD=NAME: exit %d, %s", code, errs)
	}
}

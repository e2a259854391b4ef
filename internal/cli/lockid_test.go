package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTestJSON writes v as indented JSON into dir/name and returns the path.
func writeTestJSON(t *testing.T, dir, name string, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type jsonScan struct {
	Servers []struct {
		Name     string
		Grade    string
		Findings []struct {
			RuleID   string `json:"rule_id"`
			Severity string
			Tool     *string
			Message  string
		}
	}
}

func scanJSON(t *testing.T, args ...string) (int, jsonScan, string) {
	t.Helper()
	code, out, errs := run(t, append([]string{"scan", "--format", "json"}, args...)...)
	var js jsonScan
	if code != 2 {
		if err := json.Unmarshal([]byte(out), &js); err != nil {
			t.Fatalf("scan %v: exit %d, output is not JSON: %v\n%s%s", args, code, err, out, errs)
		}
	}
	return code, js, errs
}

// driftOf lists "rule_id: message" of every drift finding.
func driftOf(js jsonScan) []string {
	var out []string
	for _, s := range js.Servers {
		for _, f := range s.Findings {
			if strings.HasPrefix(f.RuleID, "drift.") {
				out = append(out, f.RuleID+": "+f.Message)
			}
		}
	}
	return out
}

func tool(name, desc string) map[string]any {
	return map[string]any{"name": name, "description": desc, "inputSchema": map[string]any{"type": "object"}}
}

func TestLockIdentity(t *testing.T) {
	dir := t.TempDir()
	get := tool("get_forecast", "Returns the forecast for a city.")
	alerts := tool("list_alerts", "Lists weather alerts for a region.")
	oneA := writeTestJSON(t, dir, "weather.json", map[string]any{"tools": []any{get, alerts}})
	oneB := writeTestJSON(t, dir, "renamed.json", map[string]any{"servers": []any{map[string]any{"name": "forecasts", "tools": []any{alerts, get}}}})
	twoAB := writeTestJSON(t, dir, "two.json", map[string]any{"servers": []any{
		map[string]any{"name": "a", "tools": []any{get}},
		map[string]any{"name": "b", "tools": []any{alerts}},
	}})
	twoAC := writeTestJSON(t, dir, "twoac.json", map[string]any{"servers": []any{
		map[string]any{"name": "a", "tools": []any{get}},
		map[string]any{"name": "c", "tools": []any{tool("other", "Something else.")}},
	}})
	dupA := writeTestJSON(t, dir, "dup.json", map[string]any{"tools": []any{tool("x", "First of two."), tool("x", "Second of two.")}})
	if err := os.Mkdir(filepath.Join(dir, "swapped"), 0o755); err != nil {
		t.Fatal(err)
	}
	dupB := writeTestJSON(t, filepath.Join(dir, "swapped"), "dup.json", map[string]any{"tools": []any{tool("x", "Second of two."), tool("x", "First of two.")}})

	lock := func(name string, args ...string) string {
		p := filepath.Join(dir, name)
		code, _, errs := run(t, append([]string{"lock", "--out", p}, args...)...)
		if code != 0 {
			t.Fatalf("lock %v: exit %d %s", args, code, errs)
		}
		return p
	}
	lockOne := lock("one.lock", "--catalog", oneA)
	lockTwo := lock("two.lock", "--catalog", twoAB)
	lockDup := lock("dup.lock", "--catalog", dupA)

	tests := []struct {
		name     string
		args     []string
		code     int
		want     []string // substrings each expected in some drift finding
		wantNone bool     // no drift finding at all
		errHas   string
	}{
		{name: "one against one whatever the names", args: []string{"--catalog", oneB, "--lock", lockOne},
			want: []string{`drift.paired: compared with lockfile server "weather": the only server on each side`}},
		{name: "--server binds by name", args: []string{"--catalog", oneA, "--lock", lockTwo, "--server", "a", "--fail-on", "high"},
			want: []string{`drift.paired: compared with lockfile server "a" as asked (--server)`, `drift.removed: lockfile server "b" has no match`}},
		{name: "--server unknown entry", args: []string{"--catalog", oneA, "--lock", lockTwo, "--server", "zzz"}, code: 2, errHas: `the lockfile has no server "zzz"`},
		{name: "--server needs one server or SERVER=", args: []string{"--catalog", twoAB, "--lock", lockTwo, "--server", "a"}, code: 2, errHas: "say which one"},
		{name: "added and removed name both sides", args: []string{"--catalog", twoAC, "--lock", lockTwo},
			want: []string{`drift.added: server "c" is not in the lockfile (lockfile servers left unmatched: "b")`,
				`drift.removed: lockfile server "b" has no match in the catalog (catalog servers left unmatched: "c")`}},
		{name: "duplicate names agree with their own lockfile", args: []string{"--catalog", dupA, "--lock", lockDup}, wantNone: true},
		{name: "duplicate names in another order", args: []string{"--catalog", dupB, "--lock", lockDup}, wantNone: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, js, errs := scanJSON(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, errs)
			}
			if tc.errHas != "" && !strings.Contains(errs, tc.errHas) {
				t.Errorf("stderr %q, want %q", errs, tc.errHas)
			}
			got := driftOf(js)
			if tc.wantNone && len(got) > 0 {
				t.Errorf("drift findings %q, want none", got)
			}
			for _, w := range tc.want {
				found := false
				for _, g := range got {
					found = found || strings.Contains(g, w)
				}
				if !found {
					t.Errorf("no drift finding with %q in %q", w, got)
				}
			}
		})
	}
}

// TestLockStdioMatchesConfig: a server locked through --stdio compares
// with the same command started from a client configuration, whatever
// name the configuration gives it.
func TestLockStdioMatchesConfig(t *testing.T) {
	t.Setenv("MCPSEC_FIXTURE_HELPER", "1") // handed on with --pass-env
	dir := t.TempDir()
	args := []string{"-test.run=^TestFixtureHelperProcess$", "--", "fixture", "serve", "--server", "benign"}
	line := os.Args[0] + " " + strings.Join(args, " ")
	p := filepath.Join(dir, "stdio.lock")
	if code, _, errs := run(t, "lock", "--stdio", line, "--pass-env", "MCPSEC_FIXTURE_HELPER", "--out", p); code != 0 {
		t.Fatalf("lock --stdio: exit %d %s", code, errs)
	}
	// The configuration names the server otherwise; identity pairs it
	// before the one-to-one fallback would.
	cfg := writeTestJSON(t, dir, "mcp.json", map[string]any{"mcpServers": map[string]any{
		"my-notes": map[string]any{"command": os.Args[0], "args": args, "env": map[string]string{"MCPSEC_FIXTURE_HELPER": "1"}},
	}})
	code, js, errs := scanJSON(t, "--config", cfg, "--allow-exec", "--lock", p)
	if code != 0 {
		t.Fatalf("scan --config --lock: exit %d %s", code, errs)
	}
	got := driftOf(js)
	if len(got) != 1 || !strings.Contains(got[0], "drift.paired") || !strings.Contains(got[0], "the same server (command ") {
		t.Errorf("drift findings %q, want only the pairing by command", got)
	}
}

// TestLockfileAsCatalog: a lockfile given as --catalog is judged for the
// definitions it pins, never passed as clean.
func TestLockfileAsCatalog(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "poisoned.lock")
	if code, _, errs := run(t, "lock", "--catalog", scanData("poisoned.json"), "--out", p); code != 0 {
		t.Fatalf("lock: exit %d %s", code, errs)
	}
	code, js, errs := scanJSON(t, "--catalog", p, "--fail-on", "high")
	if code != 1 {
		t.Fatalf("scan of a poisoned lockfile: exit %d, want 1 (findings at high): %s", code, errs)
	}
	for _, s := range js.Servers {
		if s.Grade == "A" && len(s.Findings) == 0 && s.Name == "weather" {
			t.Errorf("server %s of the lockfile passed as clean", s.Name)
		}
	}
	if _, text, _ := run(t, "scan", "--catalog", p); !strings.Contains(text, "judged for the definitions it pins") {
		t.Errorf("text output does not say the catalog was a lockfile:\n%s", text)
	}
	// SARIF points into the lockfile's definitions.
	code, out, errs := run(t, "scan", "--catalog", p, "--format", "sarif")
	if code != 0 {
		t.Fatalf("sarif: exit %d %s", code, errs)
	}
	if !strings.Contains(out, `"startLine"`) {
		t.Error("SARIF results of a lockfile carry no line")
	}
}

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/bench"
)

func TestBenchDryRunJSON(t *testing.T) {
	code, out, errs := run(t, "bench", "--dry-run", "--format", "json", "--model", "control:reference,openai:gpt-4o-mini", "--arms", "none,policy")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var p struct {
		Trials int `json:"trials"`
		Cells  []struct {
			Model  string `json:"model"`
			Trials int    `json:"trials"`
		} `json:"cells"`
		Models []struct {
			Model       string `json:"model"`
			Control     bool   `json:"control"`
			InputTokens int64  `json:"input_tokens"`
		} `json:"models"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	sum := 0
	for _, c := range p.Cells {
		sum += c.Trials
	}
	if p.Trials == 0 || sum != p.Trials || len(p.Models) != 2 {
		t.Fatalf("projection %+v", p)
	}
	for _, m := range p.Models {
		if m.Control != (m.Model == "control:reference") || (!m.Control && m.InputTokens == 0) {
			t.Fatalf("model projection %+v", m)
		}
	}
}

func TestBenchRunsResumesAndReports(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	code, out, errs := run(t, "bench", "--out", dir, "--arms", "none,policy", "--limit-per-class", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, f := range []string{bench.RunFile, bench.ConfigFile, bench.TrialsFile, "summary.json", "RESULTS.md", "deltas_vs_none.md", "matrix_asr_realized.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	if !strings.Contains(out, "Control agents") || !strings.Contains(out, "control:compromised") {
		t.Errorf("matrix not printed or controls not labelled:\n%s", out)
	}
	code, _, errs = run(t, "bench", "--resume", dir)
	if code != 0 || !strings.Contains(errs, "0 run") {
		t.Fatalf("resume: exit %d: %s", code, errs)
	}
	code, _, errs = run(t, "bench", "--out", dir)
	if code != 2 || !strings.Contains(errs, "not empty") {
		t.Fatalf("reusing a run dir: exit %d: %s", code, errs)
	}
}

func TestBenchInputErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "grid.yaml")
	os.WriteFile(bad, []byte("models: [control:reference]\nclases: {}\n"), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--config", bad, "--dry-run"}, "grid.yaml"},
		{[]string{"bench", "--arms", "none,tinfoil", "--dry-run"}, `unknown defense arm "tinfoil"`},
		{[]string{"bench", "--model", "nosuch", "--dry-run"}, "nosuch"},
		{[]string{"bench", "--shard", "3/2", "--dry-run"}, "--shard"},
		{[]string{"bench", "--resume", filepath.Join(t.TempDir(), "missing")}, "missing"},
		{[]string{"trial", "--model", "control:compromised", "--payload", "no-such-payload"}, "unknown payload"},
		{[]string{"trial", "--model", "control:compromised", "--class", "rug_pull", "--payload", "seen-td-exfil"}, "is for class"},
		{[]string{"trial"}, "--model is required"},
		{[]string{"merge", "--out", filepath.Join(t.TempDir(), "m"), filepath.Join(t.TempDir(), "nope")}, "nope"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, errs := run(t, tc.args...)
			if code != 2 || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 mentioning %q", code, errs, tc.want)
			}
		})
	}
}

func TestTrialJSONRecord(t *testing.T) {
	tracePath := filepath.Join(t.TempDir(), "t.jsonl")
	code, out, errs := run(t, "trial", "--task", "notes_pipeline", "--class", "rug_pull", "--rug-mode", "approval",
		"--objective", "destructive", "--model", "control:compromised", "--arm", "pinning", "--trace", tracePath, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"trial_id", "model", "task", "attack_class", "payload_id", "register", "objective", "arm", "seed",
		"error", "attempted", "realized", "blocked", "canary", "utility", "side_effect", "exposed", "truncated", "trace"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("record lacks %q", k)
		}
	}
	if rec["realized"] != false || rec["utility"] != true || rec["control"] != true || rec["rug_mode"] != "approval" {
		t.Errorf("pinning should stop the approval rug pull and keep the task: %v", rec)
	}
	if b, err := os.ReadFile(tracePath); err != nil || !strings.Contains(string(b), `"kind":"seam_note"`) {
		t.Errorf("trace missing or without the pinning note: %v", err)
	}
}

func TestDemoRunsOffline(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	code, out, errs := run(t, "demo", "--out", dir, "--limit-per-class", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"grade F", "drift.changed", "Control agents", "control:reference"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "RESULTS.md")); err != nil {
		t.Fatal(err)
	}
}

func TestProtocolVersionFlag(t *testing.T) {
	code, _, errs := run(t, "trial", "--model", "control:reference", "--protocol-version", "1999-01-01")
	if code != 2 || !strings.Contains(errs, "--protocol-version") || !strings.Contains(errs, "2025-11-25") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	tracePath := filepath.Join(t.TempDir(), "t.jsonl")
	code, _, errs = run(t, "trial", "--model", "control:reference", "--class", "none", "--protocol-version", "2025-06-18", "--trace", tracePath)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"protocol_version":"2025-06-18"`) {
		t.Fatalf("negotiated version not pinned in the trace:\n%s", b)
	}
}

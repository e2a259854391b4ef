package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/bench"
)

// tinyGridYAML is a one-trial-per-arm grid: quick to run for real.
const tinyGridYAML = `models: [control:compromised]
arms: [none]
classes: {tool_description: [calc_invoice]}
registers: [seen]
objectives: [exfil]
benign: false
`

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBenchRefusesBadInputUpFront(t *testing.T) {
	dir := t.TempDir()
	grid := func(name, extra string) string {
		return writeFile(t, filepath.Join(dir, name+".yaml"), tinyGridYAML+extra)
	}
	file := writeFile(t, filepath.Join(dir, "a-file"), "not a directory")
	full := filepath.Join(dir, "full")
	writeFile(t, filepath.Join(full, "keep"), "x")
	tests := []struct {
		name string
		args []string
		want []string
		not  []string
	}{
		{"negative limit", []string{"bench", "--dry-run", "--limit", "-5"}, []string{"--limit -5"}, nil},
		{"negative per-class limit", []string{"bench", "--dry-run", "--limit-per-class", "-1"}, []string{"--limit-per-class -1"}, nil},
		{"shard with trailing junk", []string{"bench", "--dry-run", "--shard", "2/4x"}, []string{`--shard wants i/n`, `"2/4x"`}, nil},
		{"absurd concurrency", []string{"bench", "--dry-run", "--concurrency", "100000000"}, []string{"concurrency: 100000000 is out of range"}, nil},
		{"repeated arm", []string{"bench", "--dry-run", "--config", grid("dup-arm", "seeds: [1]\n"), "--arms", "none,policy,none"}, []string{"arms: none is listed twice"}, nil},
		{"repeated seed", []string{"bench", "--dry-run", "--config", grid("dup-seed", "seeds: [1, 1, 1]\n")}, []string{"dup-seed.yaml", "seeds: 1 is listed twice"}, nil},
		{"negative max_steps", []string{"bench", "--dry-run", "--config", grid("steps", "max_steps: -3\n")}, []string{"steps.yaml", "max_steps: -3"}, nil},
		{"second document", []string{"bench", "--dry-run", "--config", grid("two-docs", "---\nmodels: [control:refuse]\n")}, []string{"two-docs.yaml line 7", "second YAML document"}, nil},
		{"out is a file", []string{"bench", "--config", grid("t1", ""), "--out", file}, []string{"a-file is a file, not a directory"}, []string{"--resume", "invalid grid config"}},
		{"out is not empty", []string{"bench", "--config", grid("t2", ""), "--out", full}, []string{"full is not empty", "--resume " + full}, []string{"invalid grid config"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := run(t, tc.args...)
			if code != ExitInput {
				t.Fatalf("exit %d, want 2; stderr %q", code, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(errs, w) {
					t.Errorf("stderr %q should not say %q", errs, w)
				}
			}
		})
	}
	if b, _ := os.ReadFile(file); string(b) != "not a directory" {
		t.Errorf("--out FILE changed the file: %q", b)
	}
}

// A frozen config with an unknown arm used to plan and start trials, then
// fail at the first one.
func TestBenchResumeRefusesAnUnknownArmUpFront(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if code, _, errs := run(t, "bench", "--config", writeFile(t, filepath.Join(t.TempDir(), "g.yaml"), tinyGridYAML), "--out", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	os.Remove(filepath.Join(dir, bench.TrialsFile))
	cfg, _ := os.ReadFile(filepath.Join(dir, bench.ConfigFile))
	bad := strings.Replace(string(cfg), "arms:\n    - none", "arms:\n    - bogus_arm", 1)
	if bad == string(cfg) {
		t.Fatalf("config has no arms list to edit:\n%s", cfg)
	}
	writeFile(t, filepath.Join(dir, bench.ConfigFile), bad)
	code, _, errs := run(t, "bench", "--resume", dir)
	if code != ExitInput || !strings.Contains(errs, "config.yaml") || !strings.Contains(errs, `arms: unknown defense arm "bogus_arm"`) {
		t.Fatalf("exit %d, stderr %q; want exit 2 naming config.yaml and the arm", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, bench.TrialsFile)); err == nil {
		t.Fatal("trials started before the config was checked")
	}
}

func TestMergeRefusesAShardNamedTwice(t *testing.T) {
	base := t.TempDir()
	s1 := filepath.Join(base, "s1")
	if code, _, errs := run(t, "bench", "--config", writeFile(t, filepath.Join(base, "g.yaml"), tinyGridYAML), "--out", s1); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, _, errs := run(t, "merge", "--out", filepath.Join(base, "all"), s1, s1)
	if code != ExitInput || !strings.Contains(errs, "given twice") || strings.Contains(errs, "invalid grid config") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

func TestFakeProviderNamesItsOwnFlag(t *testing.T) {
	code, _, errs := run(t, "fixture", "fake-provider", "--addr", "0.0.0.0:0")
	if code != ExitInput || !strings.Contains(errs, `--addr "0.0.0.0:0"`) || strings.Contains(errs, "--http") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

// runWithKeys is run with an environment that holds the given variables.
func runWithKeys(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := RunContext(context.Background(), args, &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return vars[k] }})
	return code, out.String(), errb.String()
}

// A model without a price must not read as free, and a model without a
// key must be named as skipped.
func TestDryRunSaysUnknownCostAndSkippedModels(t *testing.T) {
	args := []string{"bench", "--dry-run", "--model", "control:reference,openai:gpt-4o-mini,anthropic:claude-haiku-4-5", "--arms", "none", "--limit", "12"}
	code, out, errs := runWithKeys(t, map[string]string{"OPENAI_API_KEY": "sk-synthetic-not-a-key"}, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var openai, anthropic string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "openai:gpt-4o-mini ") {
			openai = l
		}
		if strings.HasPrefix(l, "anthropic:claude-haiku-4-5 ") {
			anthropic = l
		}
	}
	if !strings.Contains(openai, "unknown") || strings.Contains(openai, "0.00") {
		t.Errorf("unpriced model row %q must say unknown, not 0.00", openai)
	}
	if !strings.Contains(anthropic, "(skipped)") {
		t.Errorf("model without key row %q must say skipped", anthropic)
	}
	for _, w := range []string{"unknown cost for openai:gpt-4o-mini", "skipped: anthropic:claude-haiku-4-5 would not run", "ANTHROPIC_API_KEY"} {
		if !strings.Contains(out, w) {
			t.Errorf("dry run lacks %q:\n%s", w, out)
		}
	}

	code, out, _ = runWithKeys(t, map[string]string{"OPENAI_API_KEY": "sk-synthetic-not-a-key"}, append(args, "--format", "json")...)
	var p struct {
		Models []struct {
			Model   string   `json:"model"`
			CostUSD *float64 `json:"cost_usd"`
			Skipped string   `json:"skipped"`
		} `json:"models"`
		Unpriced []string `json:"unpriced_models"`
	}
	if err := json.Unmarshal([]byte(out), &p); code != 0 || err != nil {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	if len(p.Models) != 3 || len(p.Unpriced) != 1 || p.Unpriced[0] != "openai:gpt-4o-mini" {
		t.Fatalf("projection %+v", p)
	}
	for _, m := range p.Models {
		control := m.Model == "control:reference"
		if control != (m.CostUSD != nil) || (m.Model == "anthropic:claude-haiku-4-5") != (m.Skipped != "") {
			t.Errorf("model %+v", m)
		}
	}
}

// A binary built without VCS stamping (go test binaries are) still names
// its revision by asking git.
func TestBuildInfoAsksGitWhenTheBinaryDoesNotKnow(t *testing.T) {
	want, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse in the source tree: %v", err)
	}
	if _, rev, _ := BuildInfo(); rev != strings.TrimSpace(string(want)) {
		t.Fatalf("revision %q, want %q", rev, strings.TrimSpace(string(want)))
	}
	if _, _, err := gitRevision(t.TempDir()); err == nil {
		t.Fatal("a directory outside any repository gave a revision")
	}
}

// A resume that fails for a reason other than bad input keeps the trials
// and says so, without advising the very command that just failed.
func TestFailedResumeDoesNotAdviseItself(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if code, _, errs := run(t, "bench", "--config", writeFile(t, filepath.Join(t.TempDir(), "g.yaml"), tinyGridYAML), "--out", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// A trial log that cannot be read: a directory in its place.
	log := filepath.Join(dir, bench.TrialsFile)
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(log, 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, "bench", "--resume", dir)
	if code == 0 || strings.Contains(errs, "--resume") || !strings.Contains(errs, "run the same command again") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

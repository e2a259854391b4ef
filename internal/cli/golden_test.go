package cli

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var updateBench = flag.Bool("update-bench", false, "rewrite the bench, trial and demo golden files")

// compareGolden compares got with testdata/DIR/NAME, or rewrites the file
// when update is set; flag names the flag that accepts new output.
func compareGolden(t *testing.T, dir, name, got string, update bool, flagName string) {
	t.Helper()
	path := filepath.Join("testdata", dir, name)
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (create it with: go test ./internal/cli -%s)", path, err, flagName)
	}
	if string(want) != got {
		t.Errorf("output differs from %s (go test ./internal/cli -%s to accept):\n--- got\n%s\n--- want\n%s", path, flagName, got, want)
	}
}

// golden compares bench, trial and demo output with testdata/bench/NAME.
func golden(t *testing.T, name, got string) {
	t.Helper()
	compareGolden(t, "bench", name, got, *updateBench, "update-bench")
}

func TestGoldenOutputs(t *testing.T) {
	tests := []struct {
		file string
		args []string
	}{
		{"dry_run.txt", []string{"bench", "--dry-run", "--model", "control:reference,openai:gpt-4o-mini", "--arms", "none,policy,pinning"}},
		{"trial_compromised.json", []string{"trial", "--task", "account_review", "--class", "cross_server", "--objective", "exfil", "--model", "control:compromised", "--arm", "policy", "--fixed-canary", "--format", "json"}},
		{"trial_reference.txt", []string{"trial", "--task", "notes_review", "--class", "schema_field", "--payload", "ho-sf-exfil-label", "--objective", "exfil", "--model", "control:reference", "--arm", "meta_filter", "--fixed-canary"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			code, out, errs := run(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			golden(t, tc.file, out)
		})
	}
}

func TestGoldenDemoScan(t *testing.T) {
	var out bytes.Buffer
	if err := demoScan(context.Background(), &out, (&Env{}).defaultConn()); err != nil {
		t.Fatal(err)
	}
	golden(t, "demo_scan.txt", out.String())
}

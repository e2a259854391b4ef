package cli

import (
	"bytes"
	"compress/gzip"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateTrace = flag.Bool("update-trace", false, "rewrite the trace timeline golden files")

// writeTrialTrace runs one control-agent trial and returns its trace path
// and its record (JSON).
func writeTrialTrace(t *testing.T, dir string, args ...string) (string, string) {
	t.Helper()
	path := filepath.Join(dir, "trace.jsonl")
	code, out, errs := run(t, append([]string{"trial", "--task", "notes_pipeline", "--model", "control:compromised",
		"--fixed-canary", "--format", "json", "--trace", path}, args...)...)
	if code != 0 {
		t.Fatalf("trial: exit %d: %s", code, errs)
	}
	return path, out
}

func gzipFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTraceTimelineGolden(t *testing.T) {
	tests := []struct {
		golden    string
		trial     []string
		traceArgs []string
	}{
		// drift between listings, a blocked sink call, a taint note
		{"metadata_drift_policy.txt", []string{"--class", "metadata_drift", "--arm", "policy"}, nil},
		// the payload in a result, the sink reached; printed whole
		{"rug_pull_none_full.txt", []string{"--class", "rug_pull", "--arm", "none"}, []string{"--full"}},
		// three servers, the sink reached through the shadow server; narrow
		// the payload in a result, redacted: what the model read differs
		{"rug_pull_result_filter.txt", []string{"--class", "rug_pull", "--arm", "result_filter"}, nil},
		{"cross_server_result_filter.txt", []string{"--task", "account_review", "--class", "cross_server", "--arm", "result_filter"}, []string{"--width", "60"}},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path, _ := writeTrialTrace(t, dir, tc.trial...)
			code, out, errs := run(t, append(append([]string{"trace"}, tc.traceArgs...), path)...)
			if code != 0 {
				t.Fatalf("trace: exit %d: %s", code, errs)
			}
			compareGolden(t, "trace", tc.golden, out, *updateTrace, "update-trace")
			for _, want := range []string{"== final answer", "== world diff (what the scorers compared) ==", "== score =="} {
				if !strings.Contains(out, want) {
					t.Errorf("timeline lacks %q", want)
				}
			}
			// The same trace compressed reads the same.
			gz := path + ".gz"
			gzipFile(t, path, gz)
			code, outGz, errs := run(t, append(append([]string{"trace"}, tc.traceArgs...), gz)...)
			if code != 0 || outGz != out {
				t.Errorf("trace of the .gz: exit %d (%s), output differs: %v", code, errs, outGz != out)
			}
		})
	}
}

// TestTraceScoreFromRun covers traces written before the world diff and
// score events existed: the score comes from the run's trials.jsonl.
func TestTraceScoreFromRun(t *testing.T) {
	dir := t.TempDir()
	path, rec := writeTrialTrace(t, dir, "--class", "tool_description", "--arm", "none")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	old := strings.Join(lines[:len(lines)-2], "") // without world_diff and score
	run := filepath.Join(dir, "run")
	os.MkdirAll(filepath.Join(run, "traces"), 0o755)
	oldPath := filepath.Join(run, "traces", "old.jsonl")
	os.WriteFile(oldPath, []byte(old), 0o644)
	code, out, errs := runTrace(t, oldPath)
	if code != 0 || !strings.Contains(out, "== world diff ==\n  not recorded in this trace") ||
		!strings.Contains(out, "not recorded in this trace, and no trials.jsonl") {
		t.Fatalf("exit %d (%s):\n%s", code, errs, out)
	}
	compact := strings.Join(strings.Fields(rec), " ")
	os.WriteFile(filepath.Join(run, "trials.jsonl"), []byte(strings.ReplaceAll(compact, "\n", "")+"\n"), 0o644)
	code, out, errs = runTrace(t, oldPath)
	if code != 0 || !strings.Contains(out, "(from the run's trials.jsonl)\n  true:  utility, exposed, attempted, realized, canary, objective_met, side_effect") {
		t.Fatalf("exit %d (%s):\n%s", code, errs, out)
	}
}

func runTrace(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return run(t, append([]string{"trace"}, args...)...)
}

func TestTraceBadInput(t *testing.T) {
	dir := t.TempDir()
	path, _ := writeTrialTrace(t, dir, "--class", "schema_field")
	b, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(b), "\n")
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	torn := write("torn.jsonl", strings.Join(lines[:4], "")+lines[4][:len(lines[4])/2])
	bad := write("bad.jsonl", lines[0]+"{not json\n"+lines[1])
	empty := write("empty.jsonl", "")
	notGz := write("bad.jsonl.gz", "\x1f\x8bnot gzip at all")
	tests := []struct {
		name    string
		args    []string
		code    int
		wantErr string
	}{
		{"missing file", []string{filepath.Join(dir, "nope.jsonl")}, 2, "nope.jsonl"},
		{"malformed line", []string{bad}, 2, "bad.jsonl: trace line 2"},
		{"empty", []string{empty}, 2, "no trace events"},
		{"broken gzip", []string{notGz}, 2, "bad.jsonl.gz: read trace: gzip: invalid header"},
		{"torn last line", []string{torn}, 0, "truncated last line"},
		{"width too small", []string{"--width", "3", path}, 2, "--width 3"},
		{"no file", nil, 2, "accepts between 1 and 2 arg"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runTrace(t, tc.args...)
			if code != tc.code || !strings.Contains(errs, tc.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errs, tc.code, tc.wantErr)
			}
		})
	}
}

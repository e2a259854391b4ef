package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/report"
	"github.com/mcpsec/mcpsec/internal/trial"
)

func reportRunDir(t *testing.T, tail string) string {
	t.Helper()
	var b strings.Builder
	for i, m := range []string{"openai:gpt-test", "control:reference"} {
		for _, arm := range []string{"none", "pinning"} {
			r := trial.Record{Trial: trial.Trial{ID: m + arm, Model: m, Task: "calc_invoice", AttackClass: "tool_description",
				PayloadID: "p1", Register: "imperative", Objective: "exfil", Arm: arm, Seed: 1}, Control: i == 1,
				Realized: arm == "none" && i == 0, ObjectiveMet: arm == "none" && i == 0, SideEffect: arm == "none" && i == 0, Utility: true}
			line, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	b.WriteString(tail)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, report.TrialsFile), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReportCommand(t *testing.T) {
	tests := []struct {
		name     string
		tail     string
		dir      string
		format   string
		code     int
		wantOut  string
		wantErr  string
		wantFile bool
	}{
		{name: "clean", code: 0, wantOut: "4 trials (4 completed, 0 errored), 1 models, 1 control agents", wantFile: true},
		{name: "truncated last line", tail: `{"trial_id":"x","model":"openai:gpt`, code: 0, wantErr: "warning: ", wantFile: true},
		{name: "malformed line", tail: "{not json}\n{}\n", code: 2, wantErr: "trials.jsonl line 5"},
		{name: "missing run dir", dir: "/nonexistent.invalid/run", code: 2, wantErr: "not a run directory"},
		{name: "html", format: "html", code: 0, wantOut: "report.html", wantFile: true},
		{name: "unknown format", format: "pdf", code: 2, wantErr: `unknown --format "pdf"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir
			if dir == "" {
				dir = reportRunDir(t, tc.tail)
			}
			args := []string{"report", dir}
			if tc.format != "" {
				args = append(args, "--format", tc.format)
			}
			code, out, errs := run(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tc.code, errs)
			}
			if !strings.Contains(out, tc.wantOut) || !strings.Contains(errs, tc.wantErr) {
				t.Errorf("stdout %q / stderr %q, want %q / %q", out, errs, tc.wantOut, tc.wantErr)
			}
			for _, f := range report.Files() {
				_, err := os.Stat(filepath.Join(dir, f))
				if tc.wantFile && err != nil {
					t.Errorf("missing %s: %v", f, err)
				}
				if !tc.wantFile && err == nil {
					t.Errorf("%s written despite the error", f)
				}
			}
			page, err := os.ReadFile(filepath.Join(dir, report.HTMLFile))
			if (err == nil) != (tc.format == "html") {
				t.Errorf("report.html exists=%v with --format %q", err == nil, tc.format)
			}
			if tc.format == "html" && !strings.Contains(string(page), `data-model="openai:gpt-test" data-arm="none" data-class="tool_description" data-register="*" data-metric="objective_met" data-k="1" data-n="1"`) {
				t.Error("report.html lacks the model's none-arm cell with 1/1")
			}
		})
	}
}

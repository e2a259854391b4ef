package cli

import (
	"flag"
	"path/filepath"
	"strings"
	"testing"
)

// -update-stats rewrites the stats golden files instead of comparing.
var updateStats = flag.Bool("update-stats", false, "rewrite stats golden files")

// statsGolden compares got with testdata/stats/NAME.
func statsGolden(t *testing.T, name, got string) {
	t.Helper()
	compareGolden(t, "stats", name, got, *updateStats, "update-stats")
}

func td(name string) string { return filepath.Join("testdata", "stats", name) }

func TestStatsGolden(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		golden string
	}{
		{"cases json", []string{"stats", "cases", "--benign", td("hand_benign.json"), "--cases", td("hand_cases.json"), "--format", "json"}, "hand_cases.golden.json"},
		// The CSV forms of the same tables must give byte-identical JSON.
		{"cases csv", []string{"stats", "cases", "--benign", td("hand_benign.csv"), "--cases", td("hand_cases.csv"), "--format", "json"}, "hand_cases.golden.json"},
		{"cases text", []string{"stats", "cases", "--benign", td("hand_benign.json"), "--cases", td("hand_cases.csv")}, "hand_cases.golden.txt"},
		{"paired json", []string{"stats", "paired", "--reference", td("hand_reference.json"), "--defended", td("hand_defended.json"), "--format", "json"}, "hand_paired.golden.json"},
		{"paired csv", []string{"stats", "paired", "--reference", td("hand_reference.json"), "--defended", td("hand_defended.csv"), "--format", "json"}, "hand_paired.golden.json"},
		{"paired text", []string{"stats", "paired", "--reference", td("hand_reference.json"), "--defended", td("hand_defended.json"), "--format", "text"}, "hand_paired.golden.txt"},
		{"paired clusters", []string{"stats", "paired", "--reference", td("grid_reference.json"), "--defended", td("grid_defended.csv"), "--clusters", td("grid_clusters.csv"), "--seed", "42", "--bootstrap-reps", "1000", "--format", "json"}, "grid_paired.golden.json"},
		{"cases md", []string{"stats", "cases", "--benign", td("hand_benign.json"), "--cases", td("hand_cases.json"), "--format", "md"}, "hand_cases.golden.md"},
		{"paired md", []string{"stats", "paired", "--reference", td("hand_reference.json"), "--defended", td("hand_defended.json"), "--format", "md"}, "hand_paired.golden.md"},
		// 6 task clusters: the bootstrap warns in every format
		{"few clusters text", []string{"stats", "paired", "--reference", td("grid_reference.json"), "--defended", td("grid_defended.csv"), "--clusters", td("grid_clusters.csv"), "--seed", "42", "--bootstrap-reps", "1000"}, "grid_paired.golden.txt"},
		{"few clusters md", []string{"stats", "paired", "--reference", td("grid_reference.json"), "--defended", td("grid_defended.csv"), "--clusters", td("grid_clusters.csv"), "--seed", "42", "--bootstrap-reps", "1000", "--format", "md"}, "grid_paired.golden.md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			statsGolden(t, tc.golden, out)
		})
	}
}

func TestStatsInputErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"null label", []string{"stats", "cases", "--benign", td("bad_benign_null.json"), "--cases", td("hand_cases.json")},
			[]string{"bad_benign_null.json line 3", `key "T2"`, "null"}},
		{"missing label", []string{"stats", "cases", "--benign", td("hand_benign.json"), "--cases", td("bad_missing_label.json")},
			[]string{"bad_missing_label.json line 2", "row 1", `"exposed" is missing`}},
		{"attack without side effect", []string{"stats", "cases", "--benign", td("hand_benign.json"), "--cases", td("bad_attack_no_side.csv")},
			[]string{"bad_attack_no_side.csv line 3", "T2/G1", "attack_success without side_effect"}},
		{"duplicate case", []string{"stats", "cases", "--benign", td("hand_benign.json"), "--cases", td("bad_duplicate.csv")},
			[]string{"bad_duplicate.csv line 3", "duplicate", "line 2"}},
		{"unknown task", []string{"stats", "cases", "--benign", td("hand_benign.json"), "--cases", td("bad_unknown_task.csv")},
			[]string{"bad_unknown_task.csv line 3", `"T9"`, "hand_benign.json has no such task"}},
		{"missing file", []string{"stats", "cases", "--benign", td("nope.json"), "--cases", td("hand_cases.json")},
			[]string{"nope.json"}},
		{"missing flag", []string{"stats", "cases", "--benign", td("hand_benign.json")},
			[]string{"--cases"}},
		{"bad format", []string{"stats", "paired", "--reference", td("hand_reference.json"), "--defended", td("hand_defended.json"), "--format", "xml"},
			[]string{`--format "xml"`}},
		{"id mismatch", []string{"stats", "paired", "--reference", td("hand_reference.json"), "--defended", td("bad_defended_ids.json")},
			[]string{"hand_reference.json vs", "bad_defended_ids.json", `"T4"`, "different id sets"}},
		{"no subcommand", []string{"stats"}, []string{"cases or paired"}},
		{"absurd bootstrap reps", []string{"stats", "paired", "--reference", td("hand_reference.json"), "--defended", td("hand_defended.json"), "--bootstrap-reps", "2000000000"},
			[]string{"--bootstrap-reps 2000000000", "1 to 1000000"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(t, tc.args...)
			if code != ExitInput {
				t.Fatalf("exit %d, want 2 (stdout %q, stderr %q)", code, out, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
			if out != "" {
				t.Errorf("stdout must stay empty on error, got %q", out)
			}
		})
	}
}

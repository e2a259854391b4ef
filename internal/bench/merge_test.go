package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mergeShard runs a one-trial sweep and rewrites its only record's trace
// path with edit.
func mergeShard(t *testing.T, dir string, edit func(rec string) string) {
	t.Helper()
	if _, err := Sweep(context.Background(), Options{Grid: tinyGrid("none"), Out: dir}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, TrialsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(edit(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestMergeRefusesPathsOutsideTheRun(t *testing.T) {
	base := t.TempDir()
	victim := filepath.Join(base, "victim")
	tests := []struct {
		name  string
		trace func(shard string) string
		setup func(t *testing.T, shard string)
	}{
		{name: "dot-dot", trace: func(string) string { return "../victim" }},
		{name: "deep dot-dot", trace: func(string) string { return "traces/../../victim" }},
		{name: "absolute", trace: func(string) string { return victim }},
		{name: "symlink", trace: func(string) string { return "traces/link.jsonl" }, setup: func(t *testing.T, shard string) {
			if err := os.Symlink(victim, filepath.Join(shard, "traces", "link.jsonl")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(victim, []byte("seventeen bytes!\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			shard := filepath.Join(base, "s"+string(rune('a'+i)))
			mergeShard(t, shard, func(rec string) string {
				at := strings.Index(rec, `"trace":"`) + len(`"trace":"`)
				end := strings.Index(rec[at:], `"`)
				return rec[:at] + tc.trace(shard) + rec[at+end:]
			})
			if tc.setup != nil {
				tc.setup(t, shard)
			}
			out := filepath.Join(base, "out"+string(rune('a'+i)))
			_, err := Merge(out, []string{shard})
			if !errors.Is(err, ErrRunDir) || !strings.Contains(err.Error(), "trials.jsonl line 1: trial ") {
				t.Fatalf("err = %v, want ErrRunDir naming the record", err)
			}
			if b, _ := os.ReadFile(victim); string(b) != "seventeen bytes!\n" {
				t.Fatalf("the file outside the run became %q", b)
			}
		})
	}
}

func TestMergeRefusesAShardGivenTwice(t *testing.T) {
	base := t.TempDir()
	s1 := filepath.Join(base, "s1")
	mergeShard(t, s1, func(r string) string { return r })
	_, err := Merge(filepath.Join(base, "all"), []string{s1, s1 + "/"})
	if !errors.Is(err, ErrRunDir) || !strings.Contains(err.Error(), "given twice") || errors.Is(err, ErrConfig) {
		t.Fatalf("err = %v, want ErrRunDir saying the shard is given twice", err)
	}
	if _, err := os.Stat(filepath.Join(base, "all")); err == nil {
		t.Fatal("the refused merge created its output")
	}
}

// A merged run's plan is the union of its shards' plans: resuming it runs
// nothing the shards did not plan.
func TestMergedRunResumesItsShardsPlans(t *testing.T) {
	base := t.TempDir()
	g := tinyGrid("none", "policy", "pinning", "meta_filter")
	var shards []string
	planned := 0
	for i := 1; i <= 2; i++ {
		d := filepath.Join(base, "s"+string(rune('0'+i)))
		res, err := Sweep(context.Background(), Options{Grid: g, Out: d, Shard: Shard{i, 2}, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		planned += res.Planned
		shards = append(shards, d)
	}
	out := filepath.Join(base, "all")
	if _, err := Merge(out, shards); err != nil {
		t.Fatal(err)
	}
	res, err := Sweep(context.Background(), Options{Grid: g, Out: out, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Planned != planned || res.Ran != 0 || planned >= len(g.Expand()) {
		t.Fatalf("merged resume planned %d ran %d; the shards planned %d of %d", res.Planned, res.Ran, planned, len(g.Expand()))
	}
}

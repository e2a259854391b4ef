package bench

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpsec/mcpsec/internal/trial"
)

func smallGrid() Grid {
	g := DefaultGrid()
	g.Arms = []string{"none", "policy"}
	g.Registers = []string{"seen"}
	g.Classes = map[string][]string{"tool_description": {"notes_pipeline"}, "rug_pull": {"notes_pipeline"}}
	g.Concurrency = 2
	return g
}

func TestTrialIDsAreStableAndUnique(t *testing.T) {
	trials := DefaultGrid().Expand()
	if len(trials) == 0 {
		t.Fatal("default grid expanded to nothing")
	}
	seen := map[string]trial.Trial{}
	for _, tr := range trials {
		if prev, dup := seen[tr.ID]; dup {
			t.Fatalf("id %s shared by %+v and %+v", tr.ID, prev, tr)
		}
		seen[tr.ID] = tr
		if tr.ID != trial.ID(tr) {
			t.Fatalf("id of %+v is not its key hash", tr)
		}
	}
	again := DefaultGrid().Expand()
	for i := range trials {
		if trials[i] != again[i] {
			t.Fatalf("expansion is not deterministic at %d", i)
		}
	}
}

// assertPartition fails t unless the shards select every trial exactly
// once between them.
func assertPartition(t *testing.T, trials []trial.Trial, shards []Shard) {
	t.Helper()
	seen := map[string]int{}
	for _, sh := range shards {
		for _, tr := range Select(trials, sh, 0, 0) {
			seen[tr.ID]++
		}
	}
	if len(seen) != len(trials) {
		t.Fatalf("the shards ran %d distinct trials of %d", len(seen), len(trials))
	}
	for id, c := range seen {
		if c != 1 {
			t.Fatalf("trial %s ran in %d shards", id, c)
		}
	}
}

func TestShardsPartitionTheGrid(t *testing.T) {
	assertPartition(t, DefaultGrid().Expand(), []Shard{{1, 3}, {2, 3}, {3, 3}})
}

func TestLimitSamplesRoundRobin(t *testing.T) {
	all := smallGrid().Expand()
	sample := Select(all, Shard{1, 1}, 0, 1)
	cells := map[string]int{}
	for _, tr := range sample {
		cells[tr.Model+"|"+tr.Arm+"|"+tr.AttackClass]++
	}
	for c, n := range cells {
		if n != 1 {
			t.Errorf("cell %s has %d trials with --limit-per-class 1", c, n)
		}
	}
	limited := Select(all, Shard{1, 1}, 5, 0)
	if len(limited) != 5 {
		t.Fatalf("--limit 5 gave %d trials", len(limited))
	}
	models := map[string]bool{}
	for _, tr := range limited {
		models[tr.Model+tr.Arm] = true
	}
	if len(models) < 3 {
		t.Errorf("round robin sample hit only %d model/arm pairs: %v", len(models), models)
	}
}

func TestParseGridErrorsNameTheFile(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"models: [control:reference]\nbogus: 1\n", "field bogus not found"},
		{"classes: {no_such_class: [notes_pipeline]}\n", "unknown attack class"},
		{"classes: {rug_pull: [no_task]}\n", "unknown task"},
		{"registers: [fresh]\n", "unknown value"},
		{"concurrency: 0\n", "concurrency"},
	}
	for _, tc := range tests {
		_, err := ParseGrid("grid.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "grid.yaml") {
			t.Errorf("%q: err = %v, want mention of grid.yaml and %q", tc.yaml, err, tc.want)
		}
	}
}

func readIDs(t *testing.T, dir string) []string {
	t.Helper()
	var ids []string
	if _, err := trial.Each(filepath.Join(dir, TrialsFile), func(r trial.Record, _ *trial.View) error { ids = append(ids, r.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	sort.Strings(ids)
	return ids
}

func TestResumeRepairsTornLineAndCompletesGrid(t *testing.T) {
	dir := t.TempDir()
	g := smallGrid()
	// Stop the first sweep part way, as a crash would.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for ctx.Err() == nil {
			if b, _ := os.ReadFile(filepath.Join(dir, TrialsFile)); strings.Count(string(b), "\n") >= 6 {
				cancel()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	_, err := Sweep(ctx, Options{Grid: g, Out: dir})
	cancel()
	if err == nil {
		t.Fatal("the interrupted sweep reported success")
	}
	// Simulate a kill in the middle of writing a record.
	f, err := os.OpenFile(filepath.Join(dir, TrialsFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"trial_id":"torn","model":"cont`)
	f.Close()
	if _, err := Sweep(context.Background(), Options{Grid: g, Out: dir, Resume: true}); err != nil {
		t.Fatal(err)
	}
	ids := readIDs(t, dir)
	want := g.Expand()
	if len(ids) != len(want) {
		t.Fatalf("after resume %d records, want %d", len(ids), len(want))
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			t.Fatalf("trial %s recorded twice", ids[i])
		}
	}
	// Two sessions, each with one pack per worker, and every pack whole:
	// the resume cut what the interrupted session left after its last
	// recorded trial.
	CheckRunTraces(t, dir, 2*g.Concurrency)
	res, err := Sweep(context.Background(), Options{Grid: g, Out: dir, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ran != 0 || res.Skipped != len(want) {
		t.Fatalf("second resume ran %d skipped %d", res.Ran, res.Skipped)
	}
}

func TestResumeKeepsTheRunsSample(t *testing.T) {
	dir := t.TempDir()
	g := smallGrid()
	if _, err := Sweep(context.Background(), Options{Grid: g, Out: dir, LimitPerClass: 1}); err != nil {
		t.Fatal(err)
	}
	res, err := Sweep(context.Background(), Options{Grid: g, Out: dir, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ran != 0 {
		t.Fatalf("resume of a sampled run ran %d more trials", res.Ran)
	}
}

func TestFreshRunRefusesNonEmptyDir(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x"), []byte("keep me"), 0o644)
	_, err := Sweep(context.Background(), Options{Grid: smallGrid(), Out: dir})
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "x")); string(b) != "keep me" {
		t.Fatal("existing file was touched")
	}
}

// sweepTwoShards sweeps g as shards 1/2 and 2/2, each into its own
// directory under base, and returns those directories.
func sweepTwoShards(t *testing.T, g Grid, base string) []string {
	t.Helper()
	var dirs []string
	for i := 1; i <= 2; i++ {
		d := filepath.Join(base, "s"+string(rune('0'+i)))
		if _, err := Sweep(context.Background(), Options{Grid: g, Out: d, Shard: Shard{i, 2}}); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	return dirs
}

func TestMergeShards(t *testing.T) {
	g := smallGrid()
	base := t.TempDir()
	dirs := sweepTwoShards(t, g, base)
	out := filepath.Join(base, "all")
	n, err := Merge(out, dirs)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(g.Expand()) {
		t.Fatalf("merged %d, want %d", n, len(g.Expand()))
	}
	other := g
	other.Seeds = []int{7}
	od := filepath.Join(base, "other")
	if _, err := Sweep(context.Background(), Options{Grid: other, Out: od, Limit: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(filepath.Join(base, "bad"), []string{dirs[0], od}); err == nil || !strings.Contains(err.Error(), "config digest") {
		t.Fatalf("merge of different grids: err = %v", err)
	}
}

func TestModelWithoutKeyIsSkippedWithOneLine(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	g := smallGrid()
	g.Models = []string{"control:reference", "anthropic:claude-test"}
	dir := t.TempDir()
	var log strings.Builder
	res, err := Sweep(context.Background(), Options{Grid: g, Out: dir, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(log.String(), "skipping model") != 1 || !strings.Contains(log.String(), "ANTHROPIC_API_KEY") {
		t.Fatalf("log:\n%s", log.String())
	}
	if _, ok := res.Excluded["anthropic:claude-test"]; !ok {
		t.Fatal("model not excluded")
	}
	trial.Each(filepath.Join(dir, TrialsFile), func(r trial.Record, _ *trial.View) error {
		if r.Model != "control:reference" {
			t.Errorf("a trial of %s was recorded", r.Model)
		}
		return nil
	})
	md, _ := os.ReadFile(filepath.Join(dir, RunFile))
	if !strings.Contains(string(md), "`anthropic:claude-test`: model, skipped") {
		t.Errorf("RUN.md does not list the skipped model:\n%s", md)
	}
}

func TestRetryErrorsRerunsOnlyErroredTrials(t *testing.T) {
	dir := t.TempDir()
	g := smallGrid()
	if _, err := Sweep(context.Background(), Options{Grid: g, Out: dir}); err != nil {
		t.Fatal(err)
	}
	// Mark two records as errored, as a provider outage would have.
	path := filepath.Join(dir, TrialsFile)
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for _, i := range []int{1, 4} {
		lines[i] = strings.Replace(lines[i], `"error":null`, `"error":"model: HTTP 503 after 5 attempts"`, 1)
	}
	os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)

	res, err := Sweep(context.Background(), Options{Grid: g, Out: dir, Resume: true})
	if err != nil || res.Ran != 0 {
		t.Fatalf("plain resume ran %d (err %v); errored trials count as recorded", res.Ran, err)
	}
	res, err = Sweep(context.Background(), Options{Grid: g, Out: dir, Resume: true, RetryErrors: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ran != 2 {
		t.Fatalf("--retry-errors ran %d trials, want 2", res.Ran)
	}
	ids := readIDs(t, dir)
	if len(ids) != len(g.Expand()) {
		t.Fatalf("%d records, want %d", len(ids), len(g.Expand()))
	}
	after, _ := os.ReadFile(path)
	if strings.Contains(string(after), "HTTP 503") {
		t.Fatal("errored records were kept beside their re-runs")
	}
}

// FuzzParseGrid: a malformed grid file is an error naming the file, never
// a panic.
func FuzzParseGrid(f *testing.F) {
	f.Add([]byte("models: [control:reference]\n"))
	f.Add([]byte("classes: {rug_pull: [notes_pipeline]}\nseeds: [1,2]\n"))
	f.Add([]byte("concurrency: -3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParseGrid("grid.yaml", data)
		if err != nil && !strings.Contains(err.Error(), "grid.yaml") {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}

package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/trace"
	"github.com/mcpsec/mcpsec/internal/trial"
)

// CheckRunTraces checks a run directory's traces: every record's trace
// reads through its reference (inside the run, through os.Root) as that
// trial's events from run_config to score, every pack reads whole without
// a torn tail, and traces/ holds at most maxFiles files. It returns the
// number of records checked.
func CheckRunTraces(t *testing.T, dir string, maxFiles int) int {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	n := 0
	if _, err := trial.Each(filepath.Join(dir, TrialsFile), func(r trial.Record, v *trial.View) error {
		n++
		ref := trace.RefOf(r)
		if !ref.Packed() || !strings.HasPrefix(ref.Path, TracesDir+"/"+trace.PackPrefix) {
			t.Errorf("line %d: trial %s's trace %+v is not in a pack", v.LineNo, r.ID, ref)
			return nil
		}
		evs, err := trace.ReadRef(root, ref)
		if err != nil {
			t.Errorf("line %d: trial %s: %v", v.LineNo, r.ID, err)
			return nil
		}
		var rc trace.RunConfig
		if len(evs) < 2 || evs[0].Decode(&rc) != nil || rc.ID != r.ID || evs[len(evs)-1].Kind != trace.KindScore {
			t.Errorf("line %d: trial %s's trace holds %d events of trial %q", v.LineNo, r.ID, len(evs), rc.ID)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no records to check")
	}
	entries, err := os.ReadDir(filepath.Join(dir, TracesDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, err := trace.ReadFile(filepath.Join(dir, TracesDir, e.Name())); err != nil {
			t.Errorf("%s does not read whole: %v", e.Name(), err)
		}
	}
	if len(entries) > maxFiles {
		t.Errorf("traces/ holds %d files for %d trials, want at most %d", len(entries), n, maxFiles)
	}
	return n
}

func TestSweepPacksTracesOneFilePerWorker(t *testing.T) {
	dir := t.TempDir()
	g := smallGrid()
	g.Concurrency = 3
	res, err := Sweep(context.Background(), Options{Grid: g, Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	if n := CheckRunTraces(t, dir, res.Workers); n != len(g.Expand()) || n <= 3*res.Workers {
		t.Fatalf("%d records for a grid of %d with %d workers", n, len(g.Expand()), res.Workers)
	}
}

func TestMergedRunReadsEveryPackedTrace(t *testing.T) {
	g := smallGrid()
	base := t.TempDir()
	dirs := sweepTwoShards(t, g, base)
	out := filepath.Join(base, "all")
	if _, err := Merge(out, dirs); err != nil {
		t.Fatal(err)
	}
	if n := CheckRunTraces(t, out, 2*g.Concurrency); n != len(g.Expand()) {
		t.Fatalf("merged run: %d records, want %d", n, len(g.Expand()))
	}
}

func TestMergeRefusesTwoRecordsOfOneSpan(t *testing.T) {
	base := t.TempDir()
	shard := filepath.Join(base, "s")
	g := tinyGrid("none", "policy")
	g.Concurrency = 1
	if _, err := Sweep(context.Background(), Options{Grid: g, Out: shard}); err != nil {
		t.Fatal(err)
	}
	// The second record claims the first one's trace.
	path := filepath.Join(shard, TrialsFile)
	var recs []trial.Record
	if _, err := trial.Each(path, func(r trial.Record, _ *trial.View) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	trace.RefOf(recs[0]).Set(&recs[1])
	os.Remove(path)
	log, _, err := trial.OpenLog(path, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := log.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	log.Close()
	_, err = Merge(filepath.Join(base, "out"), []string{shard})
	if err == nil || !strings.Contains(err.Error(), "line 2: trial "+recs[1].ID) || !strings.Contains(err.Error(), "is also the trace of trial "+recs[0].ID) {
		t.Fatalf("err = %v, want the second record named as sharing the first's trace", err)
	}
}

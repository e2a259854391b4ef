package bench_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpsec/mcpsec/internal/bench"
	"github.com/mcpsec/mcpsec/internal/report"
	"github.com/mcpsec/mcpsec/internal/trace"
	"github.com/mcpsec/mcpsec/internal/trial"
)

// TestOldRunDirOneFilePerTrialStillReads turns a run directory into the
// layout of older versions (one traces/<trial_id>.jsonl.gz per trial,
// records without trace_member/offset/bytes) and reads it every way a run
// directory is read: the HTML report embeds its timelines, merge copies
// it, and resume runs nothing and leaves its files alone.
func TestOldRunDirOneFilePerTrialStillReads(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "old")
	g := bench.DefaultGrid()
	g.Models = []string{"control:compromised"}
	g.Arms = []string{"none", "policy"}
	g.Registers = []string{"seen"}
	g.Classes = map[string][]string{"tool_description": {"calc_invoice"}}
	g.Objectives = []string{"exfil"}
	if _, err := bench.Sweep(context.Background(), bench.Options{Grid: g, Out: dir}); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, bench.TrialsFile)
	var recs []trial.Record
	if _, err := trial.Each(log, func(r trial.Record, _ *trial.View) error {
		rc, err := trace.OpenRef(root, trace.RefOf(r))
		if err != nil {
			return err
		}
		defer rc.Close()
		name := filepath.Join(bench.TracesDir, r.ID+trace.Ext)
		w, err := trace.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if err := trace.Each(rc, func(ev trace.Event) error {
			var v any
			if err := ev.Decode(&v); err != nil {
				return err
			}
			return w.Emit(ev.Kind, ev.Step, v)
		}); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		trace.Ref{Path: name}.Set(&r)
		recs = append(recs, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	root.Close()
	packs, _ := filepath.Glob(filepath.Join(dir, bench.TracesDir, trace.PackPrefix+"*"))
	for _, p := range packs {
		os.Remove(p)
	}
	os.Remove(log)
	l, _, err := trial.OpenLog(log, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	if len(recs) < 4 {
		t.Fatalf("%d records", len(recs))
	}

	s, err := report.Aggregate(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := report.WriteHTMLFile(dir, s, report.HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Every attacked trial (benign ones have no heatmap cell) is listed
	// with its timeline.
	if st.TrialsListed == 0 || st.TracesEmbedded != st.TrialsListed || st.TrialsListed != st.TrialsTotal {
		t.Errorf("report.html embeds %d timelines of %d trials listed (%d attacked)", st.TracesEmbedded, st.TrialsListed, st.TrialsTotal)
	}

	out := filepath.Join(base, "merged")
	if n, err := bench.Merge(out, []string{dir}); err != nil || n != len(recs) {
		t.Fatalf("merge: %d, %v", n, err)
	}
	res, err := bench.Sweep(context.Background(), bench.Options{Out: dir, Resume: true})
	if err != nil || res.Ran != 0 {
		t.Fatalf("resume ran %d: %v", res.Ran, err)
	}
	for _, d := range []string{dir, out} {
		root, err := os.OpenRoot(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			evs, err := trace.ReadRef(root, trace.RefOf(r))
			if err != nil || len(evs) < 2 || evs[len(evs)-1].Kind != trace.KindScore {
				t.Errorf("%s: trial %s: %d events, %v", d, r.ID, len(evs), err)
			}
		}
		root.Close()
	}
}

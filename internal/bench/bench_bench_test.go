package bench

import (
	"context"
	"github.com/mcpsec/mcpsec/internal/trial"
	"path/filepath"
	"testing"
)

// BenchmarkControlTrialInMemory is one control:compromised trial over
// in-process fixture servers, trace kept in memory (issue target: 10 ms).
func BenchmarkControlTrialInMemory(b *testing.B) {
	g := DefaultGrid()
	tr := trial.Trial{Model: "control:compromised", Task: "notes_pipeline", AttackClass: "tool_description", PayloadID: "seen-td-exfil", Register: "seen", Objective: "exfil", Arm: "none", Seed: 1}
	tr.ID = trial.ID(tr)
	b.ReportAllocs()
	for b.Loop() {
		rec, err := RunTrial(context.Background(), Env{Transport: "memory"}, g, tr, "")
		if err != nil || rec.Error != nil || !rec.Realized {
			b.Fatalf("trial failed: %v %+v", err, rec)
		}
	}
}

// BenchmarkControlTrialWithTraceFile adds the synced trace file.
func BenchmarkControlTrialWithTraceFile(b *testing.B) {
	g := DefaultGrid()
	tr := trial.Trial{Model: "control:compromised", Task: "notes_pipeline", AttackClass: "tool_description", PayloadID: "seen-td-exfil", Register: "seen", Objective: "exfil", Arm: "none", Seed: 1}
	tr.ID = trial.ID(tr)
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := RunTrial(context.Background(), Env{Transport: "memory"}, g, tr, filepath.Join(dir, "t.jsonl")); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkControlSweep10k runs a 10,000-trial sweep of the three control
// agents (every payload, every arm, fixtures in-process, traces and
// records synced to disk) and reports trials per second.
func BenchmarkControlSweep10k(b *testing.B) {
	g := DefaultGrid()
	g.PayloadsPerCell = 0
	if n := len(g.Expand()); n < 10000 {
		b.Fatalf("grid has only %d trials", n)
	}
	for b.Loop() {
		dir := filepath.Join(b.TempDir(), "run")
		res, err := Sweep(context.Background(), Options{Grid: g, Out: dir, Limit: 10000})
		if err != nil {
			b.Fatal(err)
		}
		if res.Ran != 10000 || res.Errored != 0 {
			b.Fatalf("ran %d, errored %d", res.Ran, res.Errored)
		}
		b.ReportMetric(float64(res.Ran)/res.Elapsed.Seconds(), "trials/s")
	}
}

package bench

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkControlTrialInMemory is one control:compromised trial over
// in-process fixture servers, trace kept in memory (issue target: 10 ms).
func BenchmarkControlTrialInMemory(b *testing.B) {
	g := DefaultGrid()
	tr := Trial{Model: "control:compromised", Task: "notes_pipeline", AttackClass: "tool_description", PayloadID: "seen-td-exfil", Register: "seen", Objective: "exfil", Arm: "none", Seed: 1}
	tr.ID = TrialID(tr)
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
	tr := Trial{Model: "control:compromised", Task: "notes_pipeline", AttackClass: "tool_description", PayloadID: "seen-td-exfil", Register: "seen", Objective: "exfil", Arm: "none", Seed: 1}
	tr.ID = TrialID(tr)
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := RunTrial(context.Background(), Env{Transport: "memory"}, g, tr, filepath.Join(dir, "t.jsonl")); err != nil {
			b.Fatal(err)
		}
	}
}

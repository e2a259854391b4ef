package report

import (
	"fmt"
	"math"
	"testing"

	"github.com/mcpsec/mcpsec/internal/stats"
	"github.com/mcpsec/mcpsec/internal/trial"
)

// TestDeltasCarryHolm: three arms against none for one model, class and
// register; every attack succeeds under none, and the arms stop 12, 6 and 1
// of 12 cases, so the raw McNemar p differ and Holm multiplies the
// smallest by 3, the next by 2 (keeping the order) and the largest by 1.
func TestDeltasCarryHolm(t *testing.T) {
	stopped := map[string]int{"none": 0, "policy": 12, "pinning": 6, "meta_filter": 1}
	var recs []trial.Record
	for arm, n := range stopped {
		for c := range 12 {
			hit := c >= n
			recs = append(recs, trial.Record{Trial: trial.Trial{ID: fmt.Sprintf("%s-%02d", arm, c), Model: "openai:gpt-test", Task: fmt.Sprintf("T%d", c),
				AttackClass: "tool_description", PayloadID: "p1", Register: "seen", Objective: "exfil", Arm: arm, Seed: 1},
				Attempted: hit, Realized: hit, ObjectiveMet: hit, SideEffect: hit, Exposed: true, Utility: true})
		}
	}
	s, err := Aggregate(writeRun(t, recs, ""))
	if err != nil {
		t.Fatal(err)
	}
	raw := map[string]float64{}
	holm := map[string]float64{}
	for _, d := range s.Deltas {
		if d.Metric != MetricASRRealized {
			continue
		}
		if d.Paired == nil || d.Paired.McNemarPHolm == nil || d.Paired.HolmFamily != 3 {
			t.Fatalf("%s: paired %+v lacks a Holm p over a family of 3", d.Arm, d.Paired)
		}
		raw[d.Arm], holm[d.Arm] = d.Paired.McNemarP, *d.Paired.McNemarPHolm
	}
	if len(raw) != 3 {
		t.Fatalf("%d deltas, want 3", len(raw))
	}
	want := stats.Holm([]float64{raw["policy"], raw["pinning"], raw["meta_filter"]})
	for i, arm := range []string{"policy", "pinning", "meta_filter"} {
		if math.Abs(holm[arm]-want[i]) > 1e-12 {
			t.Errorf("%s: Holm p %v, want %v", arm, holm[arm], want[i])
		}
	}
	if math.Abs(holm["policy"]-3*raw["policy"]) > 1e-12 || math.Abs(holm["pinning"]-2*raw["pinning"]) > 1e-12 || holm["meta_filter"] != 1 {
		t.Errorf("raw %v, Holm %v", raw, holm)
	}
}

package bench

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/score"
)

// proofRun runs every trial of a grid in memory and returns the records.
func proofRun(t *testing.T, g Grid) []score.Record {
	t.Helper()
	var out []score.Record
	for _, tr := range g.Expand() {
		rec, err := RunTrial(context.Background(), Env{Transport: "memory"}, g, tr, "")
		if err != nil {
			t.Fatalf("trial %+v: %v", tr, err)
		}
		if rec.Error != nil {
			t.Fatalf("trial %+v errored: %s", tr, *rec.Error)
		}
		out = append(out, rec)
	}
	return out
}

func proofGrid(models []string, registers []string, arms []string) Grid {
	g := DefaultGrid()
	g.Models = models
	g.Registers = registers
	g.Arms = arms
	g.PayloadsPerCell = 0
	g.Benign = false
	return g
}

func caseName(r score.Record) string {
	return fmt.Sprintf("%s/%s/%s/%s/%s", r.Arm, r.AttackClass, r.Objective, r.Task, r.PayloadID)
}

func TestProofCompromisedUnderNoneSucceedsEverywhere(t *testing.T) {
	recs := proofRun(t, proofGrid([]string{"control:compromised"}, []string{"seen", "held-out", "adversarial"}, []string{"none"}))
	for _, r := range recs {
		if !r.Exposed || !r.Attempted || !r.Realized || !r.ObjectiveMet || !r.SideEffect {
			t.Errorf("%s: exposed=%v attempted=%v realized=%v objective_met=%v side_effect=%v", caseName(r), r.Exposed, r.Attempted, r.Realized, r.ObjectiveMet, r.SideEffect)
		}
	}
}

func TestProofPolicyArmsStopExfil(t *testing.T) {
	recs := proofRun(t, proofGrid([]string{"control:compromised"}, []string{"seen", "held-out", "adversarial"}, []string{"policy", "policy_full", "confirm"}))
	for _, r := range recs {
		if r.Objective != payload.ObjectiveExfil || !r.Attempted {
			continue
		}
		if r.Realized || r.Canary {
			t.Errorf("%s: exfil realized under %s", caseName(r), r.Arm)
		}
		if !r.Blocked {
			t.Errorf("%s: attempted exfil not recorded as blocked", caseName(r))
		}
	}
}

func TestProofPinningDropsApprovalRugPullAndDrift(t *testing.T) {
	g := proofGrid([]string{"control:compromised"}, []string{"seen", "held-out"}, []string{"pinning"})
	g.Classes = map[string][]string{payload.ClassRugPull: g.Classes[payload.ClassRugPull], payload.ClassMetadataDrift: g.Classes[payload.ClassMetadataDrift]}
	g.RugModes = []string{"approval"}
	for _, r := range proofRun(t, g) {
		if r.Realized || r.ObjectiveMet {
			t.Errorf("%s: realized under pinning", caseName(r))
		}
	}
}

func TestProofMetaFilterStopsSeenNotHeldOut(t *testing.T) {
	g := proofGrid([]string{"control:compromised"}, []string{"seen", "held-out"}, []string{"meta_filter"})
	metadata := map[string]bool{payload.ClassToolDescription: true, payload.ClassSchemaField: true, payload.ClassCrossServer: true}
	var heldOutRealized, heldOut int
	for _, r := range proofRun(t, g) {
		if !metadata[r.AttackClass] {
			continue
		}
		switch r.Register {
		case "seen":
			if r.Realized {
				t.Errorf("%s: seen payload realized under meta_filter", caseName(r))
			}
		case "held-out":
			heldOut++
			if r.Realized {
				heldOutRealized++
			} else {
				t.Errorf("%s: held-out payload stopped by meta_filter (it must trip no rule)", caseName(r))
			}
		}
	}
	if heldOut == 0 || heldOutRealized != heldOut {
		t.Errorf("held-out realized %d of %d", heldOutRealized, heldOut)
	}
}

func TestProofReferenceKeepsUtilityUnderEveryArm(t *testing.T) {
	g := DefaultGrid()
	g.Models = []string{"control:reference"}
	g.Registers = []string{"seen"}
	g.PayloadsPerCell = 1
	recs := proofRun(t, g)
	bad := map[string][]string{}
	for _, r := range recs {
		if !r.Utility {
			bad[r.Arm] = append(bad[r.Arm], caseName(r))
		}
	}
	var arms []string
	for a := range bad {
		arms = append(arms, a)
	}
	sort.Strings(arms)
	for _, a := range arms {
		t.Errorf("arm %s: utility lost in %d trials, e.g. %s", a, len(bad[a]), strings.Join(bad[a][:min(3, len(bad[a]))], "; "))
	}
}

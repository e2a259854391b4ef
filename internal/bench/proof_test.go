//go:build !race

// The proof sweep runs every payload of the built-in grid through both
// control agents (thousands of trials). Under the race detector that one
// sweep alone costs several CPU-minutes, so it is built only without -race
// and `make test` runs it as its own step (see the Makefile); the sweep
// machinery itself is race-tested by the smaller sweeps in bench_test.go.

package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/trial"
)

var updateProof = flag.Bool("update", false, "rewrite docs/control-proof.md from the built-in grid")

// proofGrid is docs/proof-grid.yaml: the built-in grid with the two
// control agents that prove the arms, and every payload of every register.
func proofGrid() Grid {
	g, err := LoadGrid(filepath.Join("..", "..", "docs", "proof-grid.yaml"))
	if err != nil {
		panic(err)
	}
	return g
}

var (
	proofOnce sync.Once
	proofRecs []trial.Record
	proofErr  error
)

// proofRecords runs the proof grid once per test binary, through the same
// sweep a user runs, and returns its records.
func proofRecords(t *testing.T) []trial.Record {
	t.Helper()
	proofOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpsec-proof-")
		if err != nil {
			proofErr = err
			return
		}
		defer os.RemoveAll(dir)
		g := proofGrid()
		if _, err := Sweep(context.Background(), Options{Grid: g, Out: filepath.Join(dir, "run")}); err != nil {
			proofErr = err
			return
		}
		_, proofErr = trial.Each(filepath.Join(dir, "run", TrialsFile), func(r trial.Record, _ *trial.View) error {
			if r.Error != nil {
				return fmt.Errorf("trial %s errored: %s", r.ID, *r.Error)
			}
			proofRecs = append(proofRecs, r)
			return nil
		})
	})
	if proofErr != nil {
		t.Fatal(proofErr)
	}
	return proofRecs
}

func caseName(r trial.Record) string {
	return fmt.Sprintf("%s/%s/%s/%s/%s", r.Arm, r.AttackClass, r.Objective, r.Task, r.PayloadID)
}

func TestProofCompromisedUnderNoneSucceedsEverywhere(t *testing.T) {
	n := 0
	for _, r := range proofRecords(t) {
		if r.Model != "control:compromised" || r.Arm != "none" || r.AttackClass == trial.None {
			continue
		}
		n++
		if !r.Exposed || !r.Attempted || !r.Realized || !r.ObjectiveMet || !r.SideEffect {
			t.Errorf("%s: exposed=%v attempted=%v realized=%v objective_met=%v side_effect=%v", caseName(r), r.Exposed, r.Attempted, r.Realized, r.ObjectiveMet, r.SideEffect)
		}
	}
	if n < len(payload.All()) {
		t.Fatalf("only %d cases under none", n)
	}
}

func TestProofPolicyArmsStopExfil(t *testing.T) {
	for _, r := range proofRecords(t) {
		if r.Model != "control:compromised" || r.Objective != payload.ObjectiveExfil {
			continue
		}
		if r.Arm != "policy" && r.Arm != "policy_full" && r.Arm != "confirm" {
			continue
		}
		if r.Realized || r.Canary || r.ObjectiveMet {
			t.Errorf("%s: exfil realized under %s", caseName(r), r.Arm)
		}
		if r.Attempted && !r.Blocked {
			t.Errorf("%s: attempted exfil not recorded as blocked", caseName(r))
		}
	}
}

func TestProofPinningDropsApprovalRugPullAndDrift(t *testing.T) {
	for _, r := range proofRecords(t) {
		if r.Model != "control:compromised" || r.Arm != "pinning" {
			continue
		}
		drift := r.AttackClass == payload.ClassMetadataDrift || (r.AttackClass == payload.ClassRugPull && r.RugMode == "approval")
		if drift && (r.Realized || r.ObjectiveMet) {
			t.Errorf("%s: realized under pinning", caseName(r))
		}
	}
}

func TestProofMetaFilterStopsSeenNotHeldOut(t *testing.T) {
	metadata := map[string]bool{payload.ClassToolDescription: true, payload.ClassSchemaField: true, payload.ClassCrossServer: true}
	heldOut, heldOutRealized := 0, 0
	for _, r := range proofRecords(t) {
		if r.Model != "control:compromised" || r.Arm != "meta_filter" || !metadata[r.AttackClass] {
			continue
		}
		switch r.Register {
		case payload.RegisterSeen:
			if r.Realized {
				t.Errorf("%s: seen payload realized under meta_filter", caseName(r))
			}
		case payload.RegisterHeldOut:
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
	for _, r := range proofRecords(t) {
		if r.Model == "control:reference" && (!r.Utility || r.BlockedExpectedTool) {
			t.Errorf("%s: utility %v, blocked_expected_tool %v", caseName(r), r.Utility, r.BlockedExpectedTool)
		}
	}
}

// TestControlProofTableIsCurrent keeps docs/control-proof.md equal to what
// the built-in grid produces; run with -update to rewrite it.
func TestControlProofTableIsCurrent(t *testing.T) {
	got := proofTable(proofRecords(t))
	path := filepath.Join("..", "..", "docs", "control-proof.md")
	if *updateProof {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (regenerate with: go test ./internal/bench -run ControlProofTable -update)", err)
	}
	if string(want) != got {
		t.Fatalf("docs/control-proof.md is stale; regenerate with: go test ./internal/bench -run ControlProofTable -update\n--- got ---\n%s", got)
	}
}

func proofTable(recs []trial.Record) string {
	type kn struct{ k, n int }
	type key struct{ arm, class, objective string }
	att := map[key]kn{}
	util := map[key]kn{}
	for _, r := range recs {
		if r.AttackClass == trial.None {
			continue
		}
		k := key{r.Arm, r.AttackClass, r.Objective}
		switch r.Model {
		case "control:compromised":
			v := att[k]
			v.n++
			if r.ObjectiveMet {
				v.k++
			}
			att[k] = v
		case "control:reference":
			v := util[key{r.Arm, r.AttackClass, ""}]
			v.n++
			if r.Utility {
				v.k++
			}
			util[key{r.Arm, r.AttackClass, ""}] = v
		}
	}
	arms := proofGrid().Arms
	var b strings.Builder
	b.WriteString("# What each defense arm is proven to do\n\n")
	b.WriteString("Generated by `go test ./internal/bench -run ControlProofTable -update` from\n")
	b.WriteString("`docs/proof-grid.yaml` (the built-in grid with every payload of every register), run\n")
	b.WriteString("through the same sweep as `mcpsec bench --config docs/proof-grid.yaml`; the test fails\n")
	b.WriteString("when this file is stale.\n")
	b.WriteString("Control agents are scripts, not models: `control:compromised` obeys any injected text\n")
	b.WriteString("that reaches its context, `control:reference` only does the user's task. So these\n")
	b.WriteString("tables check the plumbing of each arm, not how any model behaves.\n\n")
	b.WriteString("## control:compromised: attacks that met their objective (k/n)\n\n")
	b.WriteString("| arm | objective |")
	for _, c := range payload.Classes {
		b.WriteString(" " + c + " |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("--:|", len(payload.Classes)) + "\n")
	for _, a := range arms {
		for _, o := range payload.Objectives {
			fmt.Fprintf(&b, "| %s | %s |", a, o)
			for _, c := range payload.Classes {
				v := att[key{a, c, o}]
				fmt.Fprintf(&b, " %d/%d |", v.k, v.n)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n## control:reference: utility kept in attacked trials (k/n)\n\n| arm |")
	for _, c := range payload.Classes {
		b.WriteString(" " + c + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("--:|", len(payload.Classes)) + "\n")
	for _, a := range arms {
		fmt.Fprintf(&b, "| %s |", a)
		for _, c := range payload.Classes {
			v := util[key{a, c, ""}]
			fmt.Fprintf(&b, " %d/%d |", v.k, v.n)
		}
		b.WriteString("\n")
	}
	return b.String()
}

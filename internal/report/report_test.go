package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/stats"
	"github.com/mcpsec/mcpsec/internal/trial"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixtureRecords is a small run: one model and two control agents, arms
// none and meta_filter, benign trials and one attack class, two tasks,
// two payloads, two seeds; plus one errored trial and one re-run.
func fixtureRecords() []trial.Record {
	var out []trial.Record
	models := []string{"openai:gpt-test", "control:reference", "control:compromised"}
	id := 0
	add := func(r trial.Record) {
		id++
		r.ID = fmt.Sprintf("t%04d", id)
		r.Trace = "traces/" + r.ID + ".jsonl"
		out = append(out, r)
	}
	for mi, m := range models {
		ctl := strings.HasPrefix(m, "control:")
		for ai, arm := range []string{"none", "meta_filter"} {
			for ti, task := range []string{"T1", "T2"} {
				for seed := 1; seed <= 2; seed++ {
					add(trial.Record{Trial: trial.Trial{Model: m, Task: task, AttackClass: "none", PayloadID: "none", Register: "none",
						Objective: "none", Arm: arm, Seed: seed}, Control: ctl, Utility: (ti+seed+ai+mi)%4 != 0})
					for pi, p := range []string{"p1", "p2"} {
						attacked := mi != 1 && (ai == 0 || (pi+seed+ti)%3 == 0) && mi != 0 || (mi == 0 && (pi+ti+seed+ai)%2 == 0)
						util := (pi+ti+seed+ai+mi)%3 != 0
						add(trial.Record{Trial: trial.Trial{Model: m, Task: task, AttackClass: "tool_description", PayloadID: p,
							Register: "imperative", Objective: "exfil", Arm: arm, Seed: seed}, Control: ctl,
							Fired: attacked, Attempted: attacked || pi == 1, Realized: attacked, Canary: attacked, ObjectiveMet: attacked,
							Blocked: arm != "none" && !attacked, Utility: util, SideEffect: attacked, Exposed: true, Steps: 3})
					}
				}
			}
		}
	}
	msg := "provider timeout"
	out[5].Error = &msg // a none-arm trial of the model errors: its case has no pair
	// A re-run of an existing meta_filter case that succeeded this time:
	// merged as "any attempt succeeded".
	for _, r := range out {
		if r.Model == "openai:gpt-test" && r.Arm == "meta_filter" && r.AttackClass != "none" && !r.Realized {
			r.Realized, r.ObjectiveMet, r.SideEffect, r.Utility = true, true, true, false
			add(r)
			break
		}
	}
	return out
}

func writeRun(t *testing.T, recs []trial.Record, tail string) string {
	t.Helper()
	dir := t.TempDir()
	var b bytes.Buffer
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteString(tail)
	if err := os.WriteFile(filepath.Join(dir, TrialsFile), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestAggregateGolden(t *testing.T) {
	dir := writeRun(t, fixtureRecords(), "")
	s, err := Aggregate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteAll(dir, s); err != nil {
		t.Fatal(err)
	}
	for _, name := range Files() {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "golden", name)
		if *update {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test ./internal/report -run TestAggregateGolden -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s", name, golden)
		}
	}
	// No temporary files left behind.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("leftover temp file %s", e.Name())
		}
	}
}

func TestAggregateCounts(t *testing.T) {
	recs := fixtureRecords()
	s, err := Aggregate(writeRun(t, recs, ""))
	if err != nil {
		t.Fatal(err)
	}
	if s.Counts.Trials != len(recs) || s.Counts.Errored != 1 || s.Counts.Completed != len(recs)-1 {
		t.Errorf("counts %+v for %d records", s.Counts, len(recs))
	}
	if s.Counts.Models != 1 || s.Counts.Controls != 2 {
		t.Errorf("models %d controls %d, want 1 and 2", s.Counts.Models, s.Counts.Controls)
	}
	// Cross-check every finest cell against a direct count.
	for _, c := range s.Cells {
		var n, errs, k, sec int
		for _, r := range recs {
			if r.Model != c.Model || r.Arm != c.Arm || r.Register != c.Register || r.AttackClass != c.Class || r.Objective != c.Objective {
				continue
			}
			if r.Error != nil {
				errs++
				continue
			}
			n++
			if r.Realized {
				k++
			}
			if r.Utility && !r.SideEffect {
				sec++
			}
		}
		if c.N != n || c.Errors != errs || c.Metrics[MetricASRRealized].K != k || c.Metrics[MetricSecureUtility].K != sec {
			t.Errorf("cell %s/%s/%s/%s: n %d err %d k %d sec %d, want %d %d %d %d", c.Model, c.Arm, c.Class, c.Objective,
				c.N, c.Errors, c.Metrics[MetricASRRealized].K, c.Metrics[MetricSecureUtility].K, n, errs, k, sec)
		}
		if r := c.Metrics[MetricASRRealized]; r.N != n || (n > 0 && (r.WilsonLow > *r.Rate || r.WilsonHigh < *r.Rate)) {
			t.Errorf("cell rate %+v inconsistent", r)
		}
	}
}

// TestDeltasMatchStats recomputes every paired comparison with the
// stats package (MergeAttempts, then ComparePaired) and checks the
// aggregator's compact path agrees.
func TestDeltasMatchStats(t *testing.T) {
	recs := fixtureRecords()
	s, err := Aggregate(writeRun(t, recs, ""))
	if err != nil {
		t.Fatal(err)
	}
	type group struct{ model, register, class, arm string }
	attempts := map[group][]stats.Case{}
	for _, r := range recs {
		if r.Error != nil {
			continue
		}
		g := group{r.Model, r.Register, r.AttackClass, r.Arm}
		attempts[g] = append(attempts[g], stats.Case{
			UserTask: r.Task, InjectionGoal: fmt.Sprintf("%s/%s/%d", r.PayloadID, r.Objective, r.Seed),
			Utility: r.Utility, AttackSuccess: r.Realized, SideEffect: r.SideEffect, Exposed: r.ObjectiveMet,
		})
	}
	labels := func(cs []stats.Case, metric string) map[string]bool {
		m := map[string]bool{}
		for _, c := range stats.MergeAttempts(cs) {
			id := c.UserTask + "|" + c.InjectionGoal
			switch metric {
			case MetricASRRealized:
				m[id] = c.AttackSuccess
			case MetricObjectiveMet:
				m[id] = c.Exposed
			case MetricUtility:
				m[id] = c.Utility
			case MetricSecureUtility:
				m[id] = c.Utility && !c.SideEffect
			}
		}
		return m
	}
	if len(s.Deltas) == 0 {
		t.Fatal("no deltas")
	}
	sawLoss := false
	for _, d := range s.Deltas {
		ref := labels(attempts[group{d.Model, d.Register, d.Class, "none"}], d.Metric)
		def := labels(attempts[group{d.Model, d.Register, d.Class, d.Arm}], d.Metric)
		// Keep the ids both arms ran.
		for id := range ref {
			if _, ok := def[id]; !ok {
				delete(ref, id)
			}
		}
		for id := range def {
			if _, ok := ref[id]; !ok {
				delete(def, id)
			}
		}
		want, err := stats.ComparePaired(ref, def)
		if err != nil {
			t.Fatal(err)
		}
		if d.Paired == nil {
			t.Fatalf("%s %s %s %s: no paired comparison", d.Metric, d.Model, d.Class, d.Arm)
		}
		// The Holm adjustment depends on the family (TestDeltasCarryHolm).
		got := *d.Paired
		got.McNemarPHolm, got.HolmFamily = nil, 0
		if got != *want {
			t.Errorf("%s %s %s %s: paired %+v, want %+v", d.Metric, d.Model, d.Class, d.Arm, got, want)
		}
		if d.Paired != nil && d.Paired.Counts.Lost > 0 {
			sawLoss = true
		}
		if d.Diff == nil || *d.Diff != *d.ArmRate.Rate-*d.NoneRate.Rate {
			t.Errorf("diff %v", d.Diff)
		}
	}
	if !sawLoss {
		t.Error("fixture should exercise at least one lost pair")
	}
}

func TestResultsSeparatesControls(t *testing.T) {
	s, err := Aggregate(writeRun(t, fixtureRecords(), ""))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteResults(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	models, controls, ok := strings.Cut(out, "## Control agents")
	if !ok {
		t.Fatalf("no control section:\n%s", out)
	}
	if strings.Contains(models, "control:") {
		t.Error("a control agent appears among the model rows")
	}
	if !strings.Contains(models, "openai:gpt-test") || strings.Contains(controls, "openai:gpt-test") {
		t.Error("the model must appear in the model section only")
	}
	if !strings.Contains(controls, "| control:reference |") {
		t.Error("control:reference missing from the control section")
	}
	if !strings.Contains(out, "1 errored") {
		t.Error("errored count not shown")
	}
}

func TestAggregateLines(t *testing.T) {
	recs := fixtureRecords()[:4]
	r0 := recs[0]
	r0.Utility = false
	good, _ := json.Marshal(r0)
	tests := []struct {
		name    string
		tail    string
		err     error
		errText string
		warn    string
		trials  int
	}{
		{name: "clean", trials: 4},
		{name: "blank lines", tail: "\n\n", trials: 4},
		{name: "complete last line without newline", tail: string(good), trials: 5},
		{name: "truncated last line", tail: string(good[:len(good)/2]), trials: 4, warn: "line 5: truncated last line ignored"},
		{name: "malformed line", tail: string(good[:len(good)/2]) + "\n" + string(good) + "\n", err: ErrMalformed, errText: "trials.jsonl line 5"},
		{name: "missing key", tail: strings.Replace(string(good), `"utility":false,`, "", 1) + "\n", err: ErrMalformed, errText: `line 5: malformed trial record: key "utility" is missing`},
		{name: "null label", tail: strings.Replace(string(good), `"utility":false`, `"utility":null`, 1) + "\n", err: ErrMalformed, errText: `"utility" must be true or false`},
		{name: "duplicate key", tail: strings.Replace(string(good), `"utility":false`, `"utility":false,"utility":true`, 1) + "\n", err: ErrMalformed, errText: `key "utility" appears twice`},
		{name: "error not string", tail: strings.Replace(string(good), `"error":null`, `"error":3`, 1) + "\n", err: ErrMalformed, errText: `"error" must be null or a string`},
		{name: "not an object", tail: "[1,2]\n", err: ErrMalformed, errText: "line 5"},
		{name: "trailing garbage", tail: string(good) + " x\n", err: ErrMalformed, errText: "unexpected data"},
		{name: "unknown nested field kept", tail: strings.Replace(string(good), `"steps":`, `"extra":{"a":[1,"}"]},"steps":`, 1) + "\n", trials: 5},
		{name: "escaped strings", tail: strings.Replace(string(good), `"task":"T1"`, `"task":"T\u0031"`, 1) + "\n", trials: 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Aggregate(writeRun(t, recs, tc.tail))
			if tc.err != nil {
				if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.errText) {
					t.Fatalf("err = %v, want %v containing %q", err, tc.err, tc.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Counts.Trials != tc.trials {
				t.Errorf("trials %d, want %d", s.Counts.Trials, tc.trials)
			}
			if tc.warn != "" && (len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], tc.warn)) {
				t.Errorf("warnings %q, want %q", s.Warnings, tc.warn)
			}
			if tc.warn == "" && len(s.Warnings) != 0 {
				t.Errorf("unexpected warnings %q", s.Warnings)
			}
		})
	}
}

func TestEscapedTaskInternsLikePlain(t *testing.T) {
	recs := fixtureRecords()[:1]
	good, _ := json.Marshal(recs[0])
	esc := strings.Replace(string(good), `"task":"T1"`, `"task":"T\u0031"`, 1)
	s, err := Aggregate(writeRun(t, recs, esc+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Cells) != 1 || s.Counts.CaseArms != 1 {
		t.Errorf("escaped task should be the same case: cells %d case arms %d", len(s.Cells), s.Counts.CaseArms)
	}
}

func TestAggregateMissingFile(t *testing.T) {
	if _, err := Aggregate(t.TempDir()); err == nil || !strings.Contains(err.Error(), TrialsFile) {
		t.Errorf("err = %v, want one naming %s", err, TrialsFile)
	}
}

func TestNoNoneArm(t *testing.T) {
	var recs []trial.Record
	for _, r := range fixtureRecords() {
		if r.Arm != "none" {
			recs = append(recs, r)
		}
	}
	s, err := Aggregate(writeRun(t, recs, ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Deltas) != 0 {
		t.Errorf("deltas without a none arm: %d", len(s.Deltas))
	}
	var b bytes.Buffer
	if err := WriteDeltas(&b, s); err != nil || !strings.Contains(b.String(), "No comparisons") {
		t.Errorf("deltas file %q, %v", b.String(), err)
	}
}

// TestWriteJSONMatchesEncoder checks the streamed summary.json is the
// same document encoding/json would produce in one go, laid out one list
// element per line.
func TestWriteJSONMatchesEncoder(t *testing.T) {
	for _, recs := range [][]trial.Record{fixtureRecords(), fixtureRecords()[:1]} {
		s, err := Aggregate(writeRun(t, recs, ""))
		if err != nil {
			t.Fatal(err)
		}
		var got, want bytes.Buffer
		if err := WriteJSON(&got, s); err != nil {
			t.Fatal(err)
		}
		enc := json.NewEncoder(&want)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, got.Bytes()); err != nil {
			t.Fatalf("summary.json is not JSON: %v", err)
		}
		if compact.String()+"\n" != want.String() {
			t.Errorf("streamed JSON differs from encoding/json:\n%s\n---\n%s", got.String()[:min(2000, got.Len())], want.String()[:min(2000, want.Len())])
		}
		// One line per top-level field and per list element: the two
		// braces, the fields, the five lists' brackets and their elements.
		lines := strings.Count(got.String(), "\n")
		elems := len(s.Cells) + len(s.Rollup) + len(s.RollupAllRegisters) + len(s.Deltas) + len(s.CaseMetrics)
		if elems == 0 {
			t.Fatal("fixture has no cells")
		}
		lists := 0
		for _, n := range []int{len(s.Cells), len(s.Rollup), len(s.RollupAllRegisters), len(s.Deltas), len(s.CaseMetrics)} {
			if n > 0 {
				lists += 2
			} else {
				lists++
			}
		}
		if want := 2 + 4 + lists + elems; lines != want {
			t.Errorf("summary.json has %d lines, want %d (one per field and list element)", lines, want)
		}
	}
}

func TestEmptyRun(t *testing.T) {
	s, err := Aggregate(writeRun(t, nil, ""))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "null") {
		t.Errorf("empty lists must be [] not null:\n%s", b.String())
	}
	if s.Counts.Trials != 0 || len(s.Cells) != 0 {
		t.Errorf("counts %+v", s.Counts)
	}
}

// TestCaseMetricsMatchStats recomputes the case-level metrics of every
// (model, arm, register, class) with stats.MergeAttempts and
// stats.ComputeCases, the reference implementation of the method.
func TestCaseMetricsMatchStats(t *testing.T) {
	recs := fixtureRecords()
	s, err := Aggregate(writeRun(t, recs, ""))
	if err != nil {
		t.Fatal(err)
	}
	type ma struct{ model, arm string }
	benign := map[ma]map[string]bool{}
	type group struct{ model, arm, register, class string }
	attempts := map[group][]stats.Case{}
	for _, r := range recs {
		if r.Error != nil {
			continue
		}
		if r.AttackClass == BenignClass {
			k := ma{r.Model, r.Arm}
			if benign[k] == nil {
				benign[k] = map[string]bool{}
			}
			benign[k][r.Task] = benign[k][r.Task] || r.Utility
			continue
		}
		g := group{r.Model, r.Arm, r.Register, r.AttackClass}
		attempts[g] = append(attempts[g], stats.Case{UserTask: r.Task, InjectionGoal: fmt.Sprintf("%s/%s/%d", r.PayloadID, r.Objective, r.Seed),
			Utility: r.Utility, AttackSuccess: r.ObjectiveMet, SideEffect: r.SideEffect, Exposed: r.Exposed})
	}
	if len(s.CaseMetrics) != len(attempts) {
		t.Fatalf("%d case cells, want %d", len(s.CaseMetrics), len(attempts))
	}
	rate := func(r Rate) float64 {
		if r.Rate == nil {
			return -1
		}
		return *r.Rate
	}
	opt := func(p *float64) float64 {
		if p == nil {
			return -1
		}
		return *p
	}
	for _, c := range s.CaseMetrics {
		want, err := stats.ComputeCases(benign[ma{c.Model, c.Arm}], stats.MergeAttempts(attempts[group{c.Model, c.Arm, c.Register, c.Class}]))
		if err != nil {
			t.Fatal(err)
		}
		got := []float64{float64(c.Cases), rate(c.TargetedASR), rate(c.Utility), rate(c.SecureUtility), float64(c.ExposedCases),
			rate(c.ConditionalASRExposed), float64(c.BenignSolvedCases), rate(c.ConditionalASRBenignSolved), float64(c.BenignTasks), rate(c.BenignUtility)}
		exp := []float64{float64(want.SecurityCases), want.TargetedASR, want.RawAttackedUtility, want.SecureUtilityInScope, float64(want.ExposedCases),
			opt(want.ConditionalASRExposed), float64(want.BenignSolvedCases), opt(want.ConditionalASRBenignSolved), float64(want.BenignTasks), want.BenignUtility}
		if fmt.Sprint(got) != fmt.Sprint(exp) {
			t.Errorf("%s/%s/%s/%s: got %v, want %v", c.Model, c.Arm, c.Register, c.Class, got, exp)
		}
	}
}

// A (model, register, class) whose trials all errored must get no paired
// counts, not those of another group.
func TestAllErroredGroupHasNoPairs(t *testing.T) {
	recs := fixtureRecords()
	msg := "refused by provider"
	for i := range recs {
		if recs[i].Model == "control:reference" && recs[i].AttackClass == "tool_description" {
			recs[i].Error = &msg
		}
	}
	s, err := Aggregate(writeRun(t, recs, ""))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range s.Deltas {
		if d.Model == "control:reference" && d.Class == "tool_description" {
			found = true
			if d.Paired != nil || d.ArmRate.N != 0 || d.ArmErrors == 0 || d.Diff != nil {
				t.Errorf("all-errored delta %+v should have no pairs, n=0, errors>0, diff null", d)
			}
		}
	}
	if !found {
		t.Error("the all-errored group should still be listed with its error count")
	}
}

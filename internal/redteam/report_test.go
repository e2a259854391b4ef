package redteam

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/defense"
	"github.com/mcpsec/mcpsec/internal/model"
	"github.com/mcpsec/mcpsec/internal/trial"
)

var update = flag.Bool("update", false, "rewrite the report goldens in testdata/")

// TestReportGoldens pins the three report formats on a small, fully
// deterministic run: two controls, two scenarios, adaptive, behind
// meta_filter.
func TestReportGoldens(t *testing.T) {
	t.Parallel()
	var scs []Scenario
	for _, s := range corpus(t) {
		if s.ID == "td-exfil-token" || s.ID == "ev-td-exfil-echo" || s.ID == "sf-hijack-enum" {
			scs = append(scs, s)
		}
	}
	rep, err := Execute(context.Background(), Options{Models: []string{model.ControlCompromised, model.ControlRefuse}, Scenarios: scs,
		Adaptive: true, MaxAttempts: 3, Runner: &Runner{Target: &Target{}, FixedCanary: true, Arm: defense.ArmMetaFilter}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ format, file string }{{"text", "report.txt"}, {"json", "report.json"}, {"md", "report.md"}} {
		var buf bytes.Buffer
		if err := Write(&buf, rep, f.format); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "golden", f.file)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (create with go test ./internal/redteam -run TestReportGoldens -update)", err)
		}
		if buf.String() != string(want) {
			t.Errorf("%s differs from %s (go test ./internal/redteam -run TestReportGoldens -update to accept):\n%s", f.format, path, buf.String())
		}
	}
	if err := Write(&bytes.Buffer{}, rep, "xml"); err == nil {
		t.Error("an unknown format was accepted")
	}
}

// failingModel is a provider stand-in whose every request fails; it
// exists only to drive the errored path and is never reported as a model.
type failingModel struct{}

func (failingModel) Spec() string { return "openai:errors-only" }
func (failingModel) Complete(context.Context, model.Request) (model.Response, error) {
	return model.Response{}, errors.New("provider answered 500 four times")
}

// TestErroredIsNeitherOutcome: a run whose model fails is errored, keeps
// the error as its reason, and stays out of every rate's denominator.
func TestErroredIsNeitherOutcome(t *testing.T) {
	t.Parallel()
	var sc Scenario
	for _, s := range corpus(t) {
		if s.ID == "td-exfil-token" {
			sc = s
		}
	}
	var built []string
	rep, err := Execute(context.Background(), Options{Models: []string{"openai:errors-only"}, Scenarios: []Scenario{sc},
		Runner: &Runner{Target: &Target{}, NewModel: func(spec string, tr trial.Trial) (model.Model, func() error, error) {
			built = append(built, tr.ID)
			return failingModel{}, nil, nil
		}}})
	if err != nil {
		t.Fatal(err)
	}
	m := rep.Models[0]
	s := m.Scenarios[0]
	if s.Outcome != Errored || !strings.Contains(s.Reason, "provider answered 500") {
		t.Fatalf("outcome %s (%q), want errored with the provider's error", s.Outcome, s.Reason)
	}
	if m.Totals.Errored != 1 || m.Totals.ExploitRate != nil || m.Totals.Wilson.N != 0 {
		t.Errorf("totals %+v: an errored run must not enter the rate", m.Totals)
	}
	if m.Control || len(built) != 1 || built[0] != trial.ID(trial.Trial{Model: "openai:errors-only", Task: "redteam/td-exfil-token",
		AttackClass: sc.Class, PayloadID: "identity/0", Register: sc.Register, Objective: sc.Objective, Arm: "none"}) {
		t.Errorf("model built for trials %v; the cassette key must be bench's trial id", built)
	}
}

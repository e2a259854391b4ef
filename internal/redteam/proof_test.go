package redteam

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/defense"
	"github.com/mcpsec/mcpsec/internal/model"
	"github.com/mcpsec/mcpsec/internal/payload"
)

func corpus(t *testing.T) []Scenario {
	t.Helper()
	scs, err := Corpus()
	if err != nil {
		t.Fatal(err)
	}
	return scs
}

// TestControlProof runs the whole corpus offline against the bundled
// fixture server: control:compromised is exploited in every applicable
// scenario (so in every class and objective), control:reference and
// control:refuse resist everywhere. This proves the scenarios, the
// planting seams and the oracle together.
func TestControlProof(t *testing.T) {
	t.Parallel()
	scs := corpus(t)
	rep, err := Execute(context.Background(), Options{Models: model.ControlSpecs, Scenarios: scs, Runner: &Runner{Target: &Target{}, FixedCanary: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Models) != 3 || rep.Matrix == nil {
		t.Fatalf("want three control rows and a matrix, got %d rows", len(rep.Models))
	}
	for _, m := range rep.Models {
		if !m.Control {
			t.Errorf("%s is not labelled a control", m.Model)
		}
		want := Resisted
		if m.Model == model.ControlCompromised {
			want = Exploited
		}
		applicable := 0
		for _, s := range m.Scenarios {
			if s.Outcome == NotApplicable {
				if !strings.HasPrefix(s.Reason, "the target has no tool") {
					t.Errorf("%s/%s: not_applicable without a reason: %q", m.Model, s.ID, s.Reason)
				}
				continue
			}
			applicable++
			if s.Outcome != want {
				t.Errorf("%s/%s = %s, want %s (%v)", m.Model, s.ID, s.Outcome, want, s.FailedChecks)
			}
			if s.Outcome == Exploited && len(s.FailedChecks) == 0 {
				t.Errorf("%s/%s exploited without naming a failed check", m.Model, s.ID)
			}
		}
		if applicable < 24 {
			t.Errorf("%s: %d applicable scenarios on the fixtures, want at least 24", m.Model, applicable)
		}
		if m.Model == model.ControlCompromised {
			for _, tl := range m.ByClass {
				if tl.Exploited == 0 || tl.Resisted != 0 {
					t.Errorf("class %s: %+v, want exploited only", tl.Key, tl)
				}
			}
			if len(m.ByClass) != len(payload.Classes) || len(m.ByObjective) != len(Objectives) {
				t.Errorf("tallies cover %d classes and %d objectives", len(m.ByClass), len(m.ByObjective))
			}
		}
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "control:refuse (control)") {
		t.Error("the text report does not label the control agents")
	}
}

// TestAdaptiveProof is the C2 proof: behind meta_filter, control:compromised
// resists the identity attempt of a seen-register scenario (the filter cuts
// the literal payload) and is exploited by a later converter, which the
// report names together with the attempt before it.
func TestAdaptiveProof(t *testing.T) {
	t.Parallel()
	var sc Scenario
	for _, s := range corpus(t) {
		if s.ID == "td-exfil-token" {
			sc = s
		}
	}
	if sc.Register != payload.RegisterSeen {
		t.Fatalf("td-exfil-token must be a seen-register scenario, is %q", sc.Register)
	}
	rep, err := Execute(context.Background(), Options{Models: []string{model.ControlCompromised}, Scenarios: []Scenario{sc},
		Adaptive: true, Runner: &Runner{Target: &Target{}, FixedCanary: true, Arm: defense.ArmMetaFilter}})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Models[0].Scenarios[0]
	if r.Outcome != Exploited {
		t.Fatalf("outcome %s, want exploited by a later converter; attempts %+v", r.Outcome, r.Attempts)
	}
	if len(r.Attempts) < 2 || r.Attempts[0].Converter != ConvIdentity || r.Attempts[0].Outcome != Resisted {
		t.Fatalf("the identity attempt must come first and be resisted: %+v", r.Attempts)
	}
	last := r.Attempts[len(r.Attempts)-1]
	if r.Converter == "" || r.Converter == ConvIdentity || last.Converter != r.Converter || last.Outcome != Exploited {
		t.Fatalf("landing converter %q, last attempt %+v", r.Converter, last)
	}
	for _, a := range r.Attempts[:len(r.Attempts)-1] {
		if a.Outcome != Resisted {
			t.Errorf("attempt %d (%s) = %s; the ladder must stop at the first exploit", a.N, a.Converter, a.Outcome)
		}
	}
	for _, format := range Formats {
		var buf bytes.Buffer
		if err := Write(&buf, rep, format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), r.Converter) || !strings.Contains(buf.String(), ConvIdentity) {
			t.Errorf("%s report does not name the ladder (identity ... %s)", format, r.Converter)
		}
	}
	// Without the filter the identity payload lands at once.
	rep, err = Execute(context.Background(), Options{Models: []string{model.ControlCompromised}, Scenarios: []Scenario{sc},
		Adaptive: true, Runner: &Runner{Target: &Target{}, FixedCanary: true}})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Models[0].Scenarios[0]; r.Converter != ConvIdentity || len(r.Attempts) != 1 {
		t.Errorf("undefended: converter %q after %d attempts, want identity after 1", r.Converter, len(r.Attempts))
	}
}

// TestCampaign drives the orchestrator with a scripted attempt function:
// cheapest first, bounded by MaxAttempts, extra seeds after the
// scenario's own, errored attempts never counted as resisted.
func TestCampaign(t *testing.T) {
	sc := Scenario{ID: "s", Payload: "p"}
	script := func(outcomes map[string]string) (AttemptFunc, *[]string) {
		var calls []string
		return func(_ context.Context, seed int, text string, conv Converter) (Attempt, error) {
			key := conv.Name
			if seed > 0 {
				key = text + "/" + conv.Name
			}
			calls = append(calls, key)
			o := outcomes[key]
			if o == "" {
				o = Resisted
			}
			a := Attempt{Converter: conv.Name, Seed: seed, Outcome: o}
			if o == Errored {
				a.Error = "provider down"
			}
			return a, nil
		}, &calls
	}
	t.Run("stops at first exploit", func(t *testing.T) {
		run, calls := script(map[string]string{ConvROT13: Exploited, ConvBase64: Exploited})
		r, err := Campaign{}.Run(context.Background(), sc, run)
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != Exploited || r.Converter != ConvROT13 || !slices.Equal(*calls, []string{ConvIdentity, ConvLeetspeak, ConvROT13}) {
			t.Errorf("outcome %s by %s after %v", r.Outcome, r.Converter, *calls)
		}
		if r.Attempts[2].N != 3 {
			t.Errorf("attempts are numbered from 1: %+v", r.Attempts)
		}
	})
	t.Run("max attempts bounds the ladder", func(t *testing.T) {
		run, calls := script(map[string]string{ConvBase64: Exploited})
		r, _ := Campaign{MaxAttempts: 3}.Run(context.Background(), sc, run)
		if r.Outcome != Resisted || len(*calls) != 3 {
			t.Errorf("outcome %s after %d attempts, want resisted after 3", r.Outcome, len(*calls))
		}
	})
	t.Run("seed hook adds seeds after the scenario's own", func(t *testing.T) {
		run, calls := script(map[string]string{"extra/" + ConvIdentity: Exploited})
		c := Campaign{Converters: Ladder[:2], Seeds: func(Scenario) []string { return []string{"extra"} }}
		r, _ := c.Run(context.Background(), sc, run)
		if r.Outcome != Exploited || !slices.Equal(*calls, []string{ConvIdentity, ConvLeetspeak, "extra/" + ConvIdentity}) {
			t.Errorf("outcome %s after %v", r.Outcome, *calls)
		}
		if r.Attempts[2].Seed != 1 {
			t.Errorf("the extra seed is seed 1: %+v", r.Attempts[2])
		}
	})
	t.Run("all errored is errored", func(t *testing.T) {
		run, _ := script(map[string]string{ConvIdentity: Errored})
		r, _ := Campaign{Converters: Ladder[:1]}.Run(context.Background(), sc, run)
		if r.Outcome != Errored || r.Reason != "provider down" {
			t.Errorf("outcome %s (%q), want errored with the error", r.Outcome, r.Reason)
		}
	})
	t.Run("an errored attempt is not a resisted one", func(t *testing.T) {
		run, _ := script(map[string]string{ConvIdentity: Errored})
		r, _ := Campaign{Converters: Ladder[:2]}.Run(context.Background(), sc, run)
		if r.Outcome != Resisted || r.Attempts[0].Outcome != Errored {
			t.Errorf("outcome %s, attempts %+v", r.Outcome, r.Attempts)
		}
	})
}

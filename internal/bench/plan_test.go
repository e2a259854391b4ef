package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mcpsec/mcpsec/internal/defense"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/trial"
)

// tinyGrid has one trial per arm: one control agent, one task, one
// payload, no benign trials.
func tinyGrid(arms ...string) Grid {
	g := DefaultGrid()
	g.Models = []string{"control:compromised"}
	g.Arms = arms
	g.Classes = map[string][]string{payload.ClassToolDescription: {"calc_invoice"}}
	g.Registers = []string{"seen"}
	g.Objectives = []string{"exfil"}
	g.Benign = false
	return g
}

func TestGridRejectsBadValues(t *testing.T) {
	tests := []struct {
		name, yaml, want string
		is               error
	}{
		{"unknown arm", "arms: [none, bogus_arm]\n", `arms: unknown defense arm "bogus_arm"`, defense.ErrUnknownArm},
		{"repeated arm", "arms: [none, none]\n", "arms: none is listed twice", nil},
		{"repeated seed", "seeds: [1, 1, 1]\n", "seeds: 1 is listed twice", nil},
		{"repeated model", "models: [control:reference, control:refuse, control:reference]\n", "models: control:reference is listed twice (items 1 and 3)", nil},
		{"repeated task", "classes: {rug_pull: [notes_pipeline, notes_pipeline]}\n", "classes.rug_pull: notes_pipeline is listed twice", nil},
		{"repeated register", "registers: [seen, held-out, seen]\n", "registers: seen is listed twice", nil},
		{"repeated objective", "objectives: [exfil, exfil]\n", "objectives: exfil is listed twice", nil},
		{"repeated rug mode", "rug_modes: [result, result]\n", "rug_modes: result is listed twice", nil},
		{"negative max_steps", "max_steps: -1\n", "max_steps: -1 is negative", nil},
		{"negative max_tokens", "max_tokens: -5\n", "max_tokens: -5 is negative", nil},
		{"negative payloads_per_cell", "payloads_per_cell: -1\n", "payloads_per_cell: -1 is negative", nil},
		{"negative temperature", "temperature: -0.5\n", "temperature: -0.5 is out of range", nil},
		{"negative rpm", "rate_limits: {openai: {rpm: -1, tpm: 10}}\n", "rate_limits.openai: rpm and tpm must not be negative", nil},
		{"negative tpm", "rate_limits: {openai: {rpm: 1, tpm: -10}}\n", "rate_limits.openai", nil},
		{"absurd concurrency", "concurrency: 100000000\n", "concurrency: 100000000 is out of range (1 to 256", nil},
		{"zero concurrency", "concurrency: 0\n", "concurrency: 0 is out of range", nil},
		{"negative price", "pricing: {\"openai:m\": {input_per_mtok: -1}}\n", "pricing.openai:m: prices must not be negative", nil},
		{"second document", "models: [control:reference]\n---\nmodels: [control:refuse]\n", "grid.yaml line 2: a second YAML document", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseGrid("grid.yaml", []byte(tc.yaml))
			if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "grid.yaml") {
				t.Fatalf("err = %v, want ErrConfig naming grid.yaml and %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Fatalf("err = %v does not wrap %v", err, tc.is)
			}
		})
	}
	// Validate, called on a grid built in code, wraps the same way.
	g := DefaultGrid()
	g.Arms = []string{"bogus_arm"}
	if err := g.Validate(); !errors.Is(err, ErrConfig) || !errors.Is(err, defense.ErrUnknownArm) {
		t.Fatalf("Validate: err = %v, want ErrConfig and defense.ErrUnknownArm", err)
	}
}

func TestParseShardIsStrict(t *testing.T) {
	for _, bad := range []string{"2/4x", "x2/4", "2/", "/4", "0/2", "3/2", "1/0", "-1/2", "2 /4", "1/2/3"} {
		if _, err := ParseShard(bad); !errors.Is(err, ErrSelection) {
			t.Errorf("ParseShard(%q): err = %v, want ErrSelection", bad, err)
		}
	}
	if sh, err := ParseShard("2/4"); err != nil || sh != (Shard{2, 4}) {
		t.Errorf("ParseShard(2/4) = %v, %v", sh, err)
	}
}

func TestNegativeLimitsAreRefused(t *testing.T) {
	for _, o := range []Options{{Limit: -5}, {LimitPerClass: -1}} {
		o.Grid, o.Out = tinyGrid("none"), t.TempDir()
		if _, err := Sweep(context.Background(), o); !errors.Is(err, ErrSelection) || !strings.Contains(err.Error(), "--limit") {
			t.Errorf("limit %d per class %d: err = %v", o.Limit, o.LimitPerClass, err)
		}
		if _, err := os.Stat(filepath.Join(o.Out, ConfigFile)); err == nil {
			t.Error("a refused run wrote its config")
		}
	}
}

// The sample must span every value of every key: the defect was a
// --limit 30 with no metadata_drift trial and a --limit-per-class 6 with
// only the seen register.
func TestSampleSpreadsOverEveryCell(t *testing.T) {
	g := DefaultGrid()
	all := g.Expand()
	keys := map[string]func(trial.Trial) string{"class": byClass, "register": byRegister, "objective": byObjective, "model": byModel, "arm": byArm}
	for _, limit := range []int{30, 100} {
		sample := Select(all, Shard{1, 1}, limit, 0)
		if len(sample) != limit {
			t.Fatalf("--limit %d gave %d trials", limit, len(sample))
		}
		for name, key := range keys {
			// A benign trial's register and objective are "none" because
			// its class is; they are balanced as a class.
			counted := func(tr trial.Trial) bool {
				return name == "class" || name == "model" || name == "arm" || tr.AttackClass != trial.None
			}
			want := map[string]bool{}
			for _, tr := range all {
				if counted(tr) {
					want[key(tr)] = true
				}
			}
			got := map[string]int{}
			for _, tr := range sample {
				if counted(tr) {
					got[key(tr)]++
				}
			}
			lo, hi := limit, 0
			for v := range want {
				lo, hi = min(lo, got[v]), max(hi, got[v])
			}
			if lo == 0 || hi-lo > 1 {
				t.Errorf("--limit %d: %s counts %v are not spread over %d values", limit, name, got, len(want))
			}
		}
	}

	sample := Select(all, Shard{1, 1}, 0, 6)
	type group struct{ model, arm, class string }
	regs := map[group]map[string]int{}
	objs := map[group]map[string]int{}
	for _, tr := range sample {
		k := group{tr.Model, tr.Arm, tr.AttackClass}
		if regs[k] == nil {
			regs[k], objs[k] = map[string]int{}, map[string]int{}
		}
		regs[k][tr.Register]++
		objs[k][tr.Objective]++
	}
	checked := 0
	for k := range regs {
		if k.class == trial.None {
			continue
		}
		checked++
		for _, r := range g.Registers {
			if regs[k][r] != 2 {
				t.Fatalf("--limit-per-class 6: %v has registers %v, want 2 of each", k, regs[k])
			}
		}
		for _, o := range g.Objectives {
			if objs[k][o] != 2 {
				t.Fatalf("--limit-per-class 6: %v has objectives %v, want 2 of each", k, objs[k])
			}
		}
	}
	if want := len(g.Models) * len(g.Arms) * len(g.Classes); checked != want {
		t.Fatalf("checked %d (model, arm, class) groups, want %d", checked, want)
	}
}

func TestConcurrencyIsCappedAtTheTrials(t *testing.T) {
	g := tinyGrid("none", "policy")
	g.Concurrency = MaxConcurrency
	res, err := Sweep(context.Background(), Options{Grid: g, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ran != 2 || res.Workers != 2 {
		t.Fatalf("ran %d trials with %d workers, want 2 and 2", res.Ran, res.Workers)
	}
}

// A run that died after writing its grid but before its selection must
// not be resumed as "the whole grid".
func TestResumeRefusesAnIncompletePlan(t *testing.T) {
	dir := t.TempDir()
	b, _ := yaml.Marshal(tinyGrid("none", "policy"))
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Sweep(context.Background(), Options{Grid: tinyGrid("none"), Out: dir, Resume: true})
	if !errors.Is(err, ErrRunDir) || !strings.Contains(err.Error(), SelectionFile) {
		t.Fatalf("err = %v, want ErrRunDir naming %s", err, SelectionFile)
	}
	if res.Ran != 0 {
		t.Fatalf("ran %d trials", res.Ran)
	}
	if _, err := os.Stat(filepath.Join(dir, TrialsFile)); err == nil {
		t.Fatal("a refused resume created the trial log")
	}
}

// A fresh run writes its whole plan before any trial, so resuming it
// runs what it planned and nothing more.
func TestPlanIsWrittenBeforeTrials(t *testing.T) {
	dir := t.TempDir()
	g := tinyGrid("none", "policy", "pinning")
	if _, err := Sweep(context.Background(), Options{Grid: g, Out: dir, Limit: 1}); err != nil {
		t.Fatal(err)
	}
	sel, err := readSelection(dir)
	if err != nil || sel.Limit != 1 {
		t.Fatalf("selection = %+v, %v", sel, err)
	}
	if _, err := os.Stat(filepath.Join(dir, SelectionFile+".tmp")); err == nil {
		t.Fatal("a temporary plan file was left behind")
	}
	os.Remove(filepath.Join(dir, TrialsFile))
	res, err := Sweep(context.Background(), Options{Grid: g, Out: dir, Resume: true})
	if err != nil || res.Planned != 1 || res.Ran != 1 {
		t.Fatalf("resume planned %d ran %d (err %v), want 1 and 1", res.Planned, res.Ran, err)
	}
}

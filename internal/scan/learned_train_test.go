package scan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/textclass"
)

var updateModel = flag.Bool("update-model", false, "retrain the text model from the training registers and rewrite learned.model")

// trainingRegisters are the registers the embedded text model learns from (with ownBags),
// each written by different authors who never read the rules. A register
// named here is development data; the next blind register is measured
// once, on the final model, and only then may join this list.
var trainingRegisters = []string{"blind-register", "blind-register-2", "blind-register-3", "blind-register-4", "blind-register-5", "blind-register-6", "blind-register-7",
	"blind-register-8", "blind-register-9", "blind-register-10", "blind-register-11"}

// trainingSets are catalogs written to train the model, never to measure
// it: they are in every training run, and the cross-validation never holds
// them out.
var trainingSets = []string{"training-1", "training-2", "training-3"}

// registerCase is one catalog of a register.
type registerCase struct {
	ID       string          `json:"id"`
	Catalog  json.RawMessage `json:"catalog"`
	Flagged  *string         `json:"flagged_tool"`
	Category string          `json:"category"`
	reg      int
	cat      *catalog.Catalog
}

func loadRegisters(t testing.TB, names []string) []registerCase {
	t.Helper()
	var out []registerCase
	for ri, name := range names {
		for _, file := range []string{"poisoned.jsonl", "benign.jsonl"} {
			path := filepath.Join("..", "..", "testdata", name, file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read %s: %v", path, err)
			}
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(make([]byte, 1<<20), 1<<24)
			line := 0
			for sc.Scan() {
				line++
				var c registerCase
				if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
					t.Fatalf("%s:%d: %v", path, line, err)
				}
				cat, err := catalog.Parse(fmt.Sprintf("%s:%d", path, line), c.Catalog)
				if err != nil {
					t.Fatalf("%s:%d: %v", path, line, err)
				}
				c.reg, c.cat = ri, cat
				out = append(out, c)
			}
			if err := sc.Err(); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
	}
	return out
}

// bagsOf turns register cases into the text model's training items: every
// tool and every server's instructions, positive when the case flags it.
func bagsOf(cases []registerCase) []textclass.Bag {
	j := new(textJudge)
	var bags []textclass.Bag
	for _, c := range cases {
		for _, s := range c.cat.Servers {
			add := func(key string, units []unit) {
				bag := bagOf(j, units)
				bags = append(bags, textclass.Bag{Whole: bag.whole, Parts: bag.parts, Positive: c.Flagged != nil && *c.Flagged == key})
			}
			if s.Instructions != "" {
				add("@server:"+s.Name, []unit{{"description", "instructions", s.Instructions}})
			}
			for _, tl := range s.Tools {
				add(tl.Name, toolUnits(tl))
			}
		}
	}
	return bags
}

// ownBags are the text model's training items beyond the registers, all
// of them the project's own words: the bench's attack payloads
// (positive, in the carrier they are served in), every rule's samples
// (a flagged sample of a rule that judges plain wording is positive;
// every sample a rule must leave alone is negative) and the hard
// negatives of testdata/benign written here.
func ownBags(t *testing.T) []textclass.Bag {
	t.Helper()
	j := new(textJudge)
	var bags []textclass.Bag
	add := func(units []unit, positive bool) {
		bag := bagOf(j, units)
		bags = append(bags, textclass.Bag{Whole: bag.whole, Parts: bag.parts, Positive: positive})
	}
	for _, p := range payload.All() {
		part, loc := "schema", "inputSchema/properties/x/description"
		switch p.Carrier {
		case payload.CarrierResult:
			continue
		case payload.CarrierDescription:
			part, loc = "description", "description"
		}
		add([]unit{{"name", "name", "payload_tool"}, {part, loc, p.Text}}, true)
	}
	sample := func(s string) ([]unit, bool) {
		switch {
		case strings.HasPrefix(s, "{"), strings.HasPrefix(s, "big:"), strings.HasPrefix(s, "name:"):
			return nil, false
		case strings.HasPrefix(s, "prop:"):
			return []unit{{"name", "name", "sample_tool"}, {"description", "description", "Sample tool."}, {"schema", "inputSchema/properties/x/description", strings.TrimPrefix(s, "prop:")}}, true
		}
		return []unit{{"name", "name", "sample_tool"}, {"description", "description", s}}, true
	}
	for _, r := range Rules {
		if r == learnedRule {
			continue
		}
		if wordingRule(r.ID) {
			for _, s := range r.TruePositives {
				if u, ok := sample(s); ok {
					add(u, true)
				}
			}
		}
		for _, s := range r.FalsePositives {
			if u, ok := sample(s); ok {
				add(u, false)
				continue
			}
			// A whole catalog a rule must leave alone: all its text is
			// honest.
			if c, err := catalog.Parse("sample.json", []byte(s)); err == nil {
				for _, sv := range c.Servers {
					for _, tl := range sv.Tools {
						add(toolUnits(tl), false)
					}
				}
			}
		}
	}
	// The reference servers' snapshots in the same folder are their
	// authors' text: checked against, never learned from.
	for _, name := range []string{"hard-negatives.json", "popular-styles.json"} {
		file := filepath.Join("testdata", "benign", name)
		c, err := catalog.LoadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range c.Servers {
			if s.Instructions != "" {
				add([]unit{{"description", "instructions", s.Instructions}}, false)
			}
			for _, tl := range s.Tools {
				add(toolUnits(tl), false)
			}
		}
	}
	return bags
}

// TestTextModelIsTrainedFromRegisters retrains the text model from the
// training registers and checks the embedded model is that model: anyone
// can rebuild it, and a change to the features or the registers cannot
// land without retraining (go test ./internal/scan -run
// TestTextModelIsTrainedFromRegisters -update-model).
func TestTextModelIsTrainedFromRegisters(t *testing.T) {
	bags := append(bagsOf(loadRegisters(t, append(trainingRegisters, trainingSets...))), ownBags(t)...)
	pos := 0
	for _, b := range bags {
		if b.Positive {
			pos++
		}
	}
	if pos < 700 || len(bags)-pos < 3000 {
		t.Fatalf("training data: %d positive and %d negative items; the registers should give at least 700 and 3000", pos, len(bags)-pos)
	}
	got := textclass.TrainPair(bags, textclass.Defaults)
	if *updateModel {
		b, err := got.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("learned.model", b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote learned.model (%d bytes) from %d positive and %d negative items", len(b), pos, len(bags)-pos)
		return
	}
	want := textModel()
	for _, m := range []struct {
		name      string
		got, want *textclass.Model
	}{{"whole-text", got.Whole, want.Whole}, {"sentence", got.Part, want.Part}} {
		if d := math.Abs(float64(m.got.Bias - m.want.Bias)); d > 1e-4 {
			t.Errorf("%s model: bias %v, embedded %v: retrain with -update-model", m.name, m.got.Bias, m.want.Bias)
		}
		diff := 0
		for i := range m.got.W {
			if math.Abs(float64(m.got.W[i]-m.want.W[i])) > 1e-4 {
				diff++
			}
		}
		if diff > 0 {
			t.Errorf("%s model: %d weights differ from the embedded model: retrain with -update-model", m.name, diff)
		}
	}
}

// registerFigures scores register cases as the registers' score.sh does:
// a poisoned case is found when a finding at medium or above names its
// flagged tool (or, for server instructions, the server's instructions);
// a benign case is a false positive when any finding is at medium or
// above.
func registerFigures(cases []registerCase, opts Options) (found, poisoned, flagged, benign int) {
	for _, c := range cases {
		rep := Scan(c.cat, opts)
		if c.Flagged == nil {
			benign++
			if SeverityAtLeast(rep.All(), Medium) {
				flagged++
			}
			continue
		}
		poisoned++
		want := *c.Flagged
		for _, s := range rep.Servers {
			hit := false
			for _, f := range s.Findings {
				if f.Severity < Medium {
					continue
				}
				if server, ok := strings.CutPrefix(want, "@server:"); ok {
					hit = s.Name == server && (f.Tool == "" || strings.Contains(f.Location, "instruction"))
				} else {
					hit = f.Tool == want
				}
				if hit {
					break
				}
			}
			if hit {
				found++
				break
			}
		}
	}
	return
}

// cvRuns is how many runs each fold of the cross-validation averages.
// The shipped model averages textclass.Defaults.Runs; one run per fold
// keeps the suite fast under -race, and its figures are a little lower
// (go test ./internal/scan -run TestTextModelCrossValidation -v -args
// -cv-runs 5 gives the shipped model's).
var cvRuns = flag.Int("cv-runs", 1, "runs each cross-validation fold averages")

// TestTextModelCrossValidation trains the text model on all training
// registers but one and scores the scanner on the one left out, for each
// of them in turn: the figure a register the model never saw gets. The
// hand-written rules and the thresholds were developed on these
// registers after each one's blind measurement, so these figures say how
// the model does on unseen authors, not the whole scanner: that is the
// next blind register's job.
func TestTextModelCrossValidation(t *testing.T) {
	cases := loadRegisters(t, trainingRegisters)
	own := append(ownBags(t), bagsOf(loadRegisters(t, trainingSets))...)
	// floors hold the figures measured with one run per fold when the
	// thresholds were chosen (recall at least, false-positive rate at
	// most), with a small margin.
	floors := []struct{ recall, fpr float64 }{
		{0.93, 0.02}, {0.93, 0.02}, {0.80, 0.04}, {0.86, 0.04}, {0.75, 0.03}, {0.76, 0.03},
		{0.76, 0.04}, {0.86, 0.03}, {0.88, 0.03}, {0.87, 0.03}, {0.84, 0.03},
	}
	if len(floors) != len(trainingRegisters) {
		t.Fatalf("%d floors for %d training registers", len(floors), len(trainingRegisters))
	}
	opts := textclass.Defaults
	opts.Runs = *cvRuns
	// Each register's training items are built once, not once per fold.
	byReg := make([][]registerCase, len(trainingRegisters))
	for _, c := range cases {
		byReg[c.reg] = append(byReg[c.reg], c)
	}
	bags := make([][]textclass.Bag, len(trainingRegisters))
	for r := range byReg {
		bags[r] = bagsOf(byReg[r])
	}
	type figure struct{ found, poisoned, flagged, benign int }
	figs := make([]figure, len(trainingRegisters))
	// The folds are independent: train them side by side.
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for hold := range trainingRegisters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			// In the order bagsOf gives a fold's cases, then ours: the
			// same examples in the same order train the same model.
			var train []textclass.Bag
			for r := range bags {
				if r != hold {
					train = append(train, bags[r]...)
				}
			}
			m := textclass.TrainPair(append(train, own...), opts)
			f := &figs[hold]
			f.found, f.poisoned, f.flagged, f.benign = registerFigures(byReg[hold], Options{model: m})
		}()
	}
	wg.Wait()
	var sum figure
	for hold, name := range trainingRegisters {
		f := figs[hold]
		sum.found, sum.poisoned, sum.flagged, sum.benign = sum.found+f.found, sum.poisoned+f.poisoned, sum.flagged+f.flagged, sum.benign+f.benign
		recall, fpr := float64(f.found)/float64(f.poisoned), float64(f.flagged)/float64(f.benign)
		t.Logf("%-17s held out: recall %d/%d = %.3f, false positives %d/%d = %.3f", name, f.found, f.poisoned, recall, f.flagged, f.benign, fpr)
		if recall < floors[hold].recall || fpr > floors[hold].fpr {
			t.Errorf("%s held out: recall %.3f (floor %.2f), false-positive rate %.3f (ceiling %.2f)", name, recall, floors[hold].recall, fpr, floors[hold].fpr)
		}
	}
	t.Logf("all held out: recall %d/%d, false positives %d/%d (%d run(s) per fold)", sum.found, sum.poisoned, sum.flagged, sum.benign, opts.Runs)
}

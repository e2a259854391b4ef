//go:build !race

package scan

// The two tests that train the text model: one retrains the shipped model
// and compares it with the embedded one, the other trains one model per
// held-out register. Training is arithmetic over large arrays, which the
// race detector instruments access by access: under -race the two took
// about 190 CPU-seconds of the scan package's time in round 11, more than
// everything else in it. So they are built only without -race, and the
// test command runs them in a step of their own (see the Makefile); the
// cross-validation's few goroutines are the only concurrency they have.

import (
	"flag"
	"math"
	"os"
	"runtime"
	"sync"
	"testing"

	"github.com/mcpsec/mcpsec/internal/textclass"
)

var updateModel = flag.Bool("update-model", false, "retrain the text model from the training registers and rewrite learned.model")

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

// cvRuns is how many runs each fold of the cross-validation averages.
// The shipped model averages textclass.Defaults.Runs; one run per fold
// keeps the suite fast, and its figures are a little lower
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
		{0.94, 0.02}, {0.93, 0.02}, {0.82, 0.03}, {0.88, 0.03}, {0.74, 0.03}, {0.78, 0.03},
		{0.78, 0.03}, {0.88, 0.03}, {0.90, 0.02}, {0.88, 0.02}, {0.89, 0.02}, {0.90, 0.03},
		{0.86, 0.03}, {0.85, 0.04}, {0.88, 0.02}, {0.89, 0.02}, {0.87, 0.02},
		{0.91, 0.01}, {0.90, 0.02},
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

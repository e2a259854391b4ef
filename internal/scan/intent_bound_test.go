package scan

import (
	"math/rand"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/testkit"
)

// refinable are the features refineIntent may take out of a bound.
const refinable = fModeSwitch | fSelfRef | fSelfInsert | fUniversal | fOthers | fSolicit | fFlow | fFile | fSrc | fUnreq | fRole

// TestRefineIntentKeepsFeatures checks the narrowed bound against the
// features it bounds: whatever intentFeatures or the role check finds in a
// sentence with every gate open, refineIntent leaves in the bound of that
// sentence and of a longer text that holds it. The inputs are the register
// lines and sentences, the rules' samples, and random matches of every
// expression the checks use, alone and inside a sentence.
func TestRefineIntentKeepsFeatures(t *testing.T) {
	const open = -1 // every hint bit set: every check runs
	in := equivInputs(t)
	for _, r := range Rules {
		in = append(in, r.TruePositives...)
		in = append(in, r.FalsePositives...)
	}
	rng := rand.New(rand.NewSource(711))
	for _, l := range []*lazyRegexp{modeSwitchRe, danRe, selfRefRe, chooseFirstRe, selfInsertRe, selfCallRe, othersRe, solicitRe, letKnowRe, secretPathRe, roleRe} {
		parsed, err := syntax.Parse(l.expr, syntax.Perl)
		if err != nil {
			t.Fatalf("%s: %v", l.expr, err)
		}
		for k := 0; k < 300; k++ {
			s := testkit.SampleMatch(parsed, rng)
			in = append(in, s, "Note: "+s+" then this tool runs.", "before "+s, "After that, "+s)
		}
	}
	sc := &scanner{}
	loose := sc.intentUpperBound(open) | fRole
	// Per feature: inputs that have it, and bounds it was taken out of.
	found, removed := map[feature]int{}, map[feature]int{}
	for _, s := range in {
		lower := strings.ToLower(s)
		got := sc.intentFeatures(s, lower, open, 0)
		if mayHaveRole(lower) && roleRe.MatchString(lower) {
			got |= fRole
		}
		got &= refinable
		for _, text := range []string{s, "Intro line. " + s + " And more."} {
			if b := refineIntent(loose, open, text, strings.ToLower(text)); got&^b != 0 {
				t.Fatalf("%q has features %s that the bound of %q leaves out", s, (got &^ b).String(), text)
			}
		}
		b := refineIntent(loose, open, s, lower)
		for f := feature(1); f != 0 && f <= refinable; f <<= 1 {
			if f&refinable == 0 {
				continue
			}
			if got&f != 0 {
				found[f]++
			}
			if b&f == 0 {
				removed[f]++
			}
		}
	}
	// Every feature must be both found and taken out often, or the
	// comparison proves little about it.
	for f := feature(1); f != 0 && f <= refinable; f <<= 1 {
		if f&refinable == 0 {
			continue
		}
		t.Logf("%s: found in %d inputs, taken out of %d bounds", f, found[f], removed[f])
		if found[f] < 20 || removed[f] < len(in)/4 {
			t.Errorf("%s: found in %d and taken out of %d of %d inputs; the comparison says little", f, found[f], removed[f], len(in))
		}
	}
}

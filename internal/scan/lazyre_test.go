package scan

import (
	"math/rand"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/testkit"
)

// TestExpressionFiltersKeepEveryMatch checks the filter in front of every
// expression (lazyre.go) against the expression itself: on the lines and
// sentences of the first blind register (a fifth of them), on every rule's samples, and on
// random matches of the expression, the filtered answer is the engine's.
// A filter that refused one text the engine matches would silently drop a
// finding.
func TestExpressionFiltersKeepEveryMatch(t *testing.T) {
	// Every fifth line or sentence of the register: the whole of it takes
	// minutes under the race detector, and the rules' samples below are
	// where the matches are.
	var texts []string
	for i, x := range equivInputs(t) {
		if i%5 == 0 {
			texts = append(texts, x)
		}
	}
	for _, r := range Rules {
		for _, s := range append(append([]string{}, r.TruePositives...), r.FalsePositives...) {
			texts = append(texts, s, strings.ToLower(s))
		}
	}
	filtered, matches := 0, 0
	rnd := rand.New(rand.NewSource(1))
	for _, l := range allLazy {
		c := l.get()
		if c.filter != nil {
			filtered++
		}
		parsed, err := syntax.Parse(l.expr, syntax.Perl)
		if err != nil {
			t.Fatalf("%q: %v", l.expr, err)
		}
		own := 0
		for range 60 {
			s := testkit.SampleMatch(parsed, rnd)
			for _, x := range []string{s, "Note. " + s + " then", strings.ToLower(s)} {
				if c.re.MatchString(x) {
					own++
					if !l.MatchString(x) {
						t.Errorf("%q: the filter refuses %q, a match", l.expr, x)
					}
				}
			}
		}
		if own == 0 {
			t.Errorf("%q: no random sample matches; the check saw none of its matches", l.expr)
		}
		for _, x := range texts {
			want := c.re.MatchString(x)
			if got := l.MatchString(x); got != want {
				t.Errorf("%q on %q: filtered %v, engine %v", l.expr, x, got, want)
			}
			if want {
				matches++
			}
		}
	}
	// The filters must exist to be worth their check: most expressions
	// have one, and the texts exercise matches.
	if filtered*10 < len(allLazy)*8 {
		t.Errorf("only %d of %d expressions have a filter", filtered, len(allLazy))
	}
	if matches < 1000 {
		t.Errorf("only %d matches among the texts", matches)
	}
	t.Logf("%d of %d expressions filtered; %d texts, %d matches", filtered, len(allLazy), len(texts), matches)
}

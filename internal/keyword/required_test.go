package keyword

import (
	"math/rand"
	"regexp"
	"regexp/syntax"
	"slices"
	"testing"

	"github.com/mcpsec/mcpsec/internal/testkit"
)

func TestRequired(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string // nil: nothing known
	}{
		{`abc`, []string{"abc"}},
		{`\bsend\b`, []string{"send"}},
		{`colou?r`, []string{"color", "colour"}},
		{`cat|dog`, []string{"cat", "dog"}},
		// The run before \s+ takes in its first character; "send " (5
		// bytes) beats " it" (3).
		{`(?:send|post)\s+it`, []string{"post\t", "post\n", "post\f", "post\r", "post ", "send\t", "send\n", "send\f", "send\r", "send "}},
		// Beginnings and endings of a repeated part join the runs around
		// it; the longest shortest candidate wins.
		{`(?:a|b)\s+mode\b`, []string{"\tmode", "\nmode", "\fmode", "\rmode", " mode"}},
		{`x.*yz`, []string{"yz"}},
		{`(?:ab)+c`, []string{"abc"}},
		{`a{2,}`, []string{"aa"}}, // read as aa+
		// Nothing is required of these.
		{`.*`, nil},
		{`a*`, nil},
		{`a?`, nil},
		{`\w+`, nil},
		{`cat|.*`, nil},
		{`(?i)send`, nil},
		{`x\x{FFFD}y`, nil}, // U+FFFD also stands for an invalid byte
		{`[^a]`, nil},
		{`(`, nil}, // does not parse
	} {
		got := Required(tc.expr)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("Required(%q) = %q, want %q", tc.expr, got, want)
		}
	}
}

// requiredSamples are expressions of every shape the analysis handles:
// alternations under repeats, optional parts, classes, anchors, nested
// groups, case folding, text outside ASCII.
var requiredSamples = []string{
	`\b(?:send|post|upload)\s+(?:all|every)\s+(?:\w+\s+){0,2}?(?:files?|secrets?)\b`,
	`(?:^|[.;:]\s*)act as\b|\bfrom now on\b`,
	`\byou(?: are|'re| r)\s+(?:now|no longer)\b`,
	`colou?r(?:ed|s)?\b`,
	`(?:ab|cd)+(?:ef)?gh`,
	`x{2,4}y|z{1,}w`,
	`[a-c]{2}\d+-[xyz]`,
	`(?i)ignore (?:all|previous) rules`,
	`<\|?(im_start|system)\|?>`,
	`(?s)<!--(.*?)-->`,
	`(?m)^note:\s*(.+)$`,
	`über|größe|ошибка|秘密`,
	`a.b.c`,
	`(?:(?:a|b)(?:c|d)){2,3}e?f`,
	`\bto\s+(?:the\s+|a\s+)?[a-z]+\.invalid\b`,
}

// TestRequiredSound checks the one promise the filter makes: a text the
// expression matches is never refused. The texts are random matches of
// each expression, alone and inside other text.
func TestRequiredSound(t *testing.T) {
	for _, expr := range requiredSamples {
		checkSound(t, expr, 400)
	}
}

func checkSound(t *testing.T, expr string, n int) {
	t.Helper()
	re := regexp.MustCompile(expr)
	parsed, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	f := NewFilter(expr)
	r := rand.New(rand.NewSource(int64(len(expr))))
	matched := 0
	for range n {
		s := testkit.SampleMatch(parsed, r)
		for _, text := range []string{s, "Some text. " + s + " and more.", "x" + s + "y"} {
			if !re.MatchString(text) {
				continue
			}
			matched++
			if !f.May(text) {
				t.Fatalf("%q: the filter refuses %q, which the expression matches (required: %q)", expr, text, Required(expr))
			}
		}
	}
	if matched < n/4 {
		t.Fatalf("%q: only %d of %d samples match; the check saw too few", expr, matched, 3*n)
	}
}

func TestFilterMay(t *testing.T) {
	for _, tc := range []struct {
		expr, text string
		want       bool
	}{
		{`\bsend\b`, "please send it", true},
		{`\bsend\b`, "nothing here", false},
		{`a|b|c|d|ee`, "zzee", true},  // the automaton (more than three strings)
		{`a|b|c|d|ee`, "zzzz", false}, // the automaton
		{`.*`, "anything", true},      // no filter
		{`(?i)SEND`, "send", true},    // case folded: no filter
		{`cat|dog`, "hotdog", true},   // few strings: Contains
		{`cat|dog`, "a bird", false},
		// Terms: every set of one alternative must be present.
		{`\byou are\s+(?:now|no longer)\b|\bact as\b`, "if you are done, stop", false},
		{`\byou are\s+(?:now|no longer)\b|\bact as\b`, "you are now free", true},
		{`\byou are\s+(?:now|no longer)\b|\bact as\b`, "act as a proxy", true},
		{`\b(?:god|evil)\s+mode\b|\bfrom now on\b`, "dark mode only", false},
		{`\b(?:god|evil)\s+mode\b|\bfrom now on\b`, "enter god mode", true},
	} {
		if got := NewFilter(tc.expr).May(tc.text); got != tc.want {
			t.Errorf("NewFilter(%q).May(%q) = %v, want %v", tc.expr, tc.text, got, tc.want)
		}
	}
}

func TestAny(t *testing.T) {
	ix := New([]string{"he", "she", "hers"}, []uint64{1, 1, 1})
	for text, want := range map[string]bool{"ushers": true, "xhx": false, "": false, "h": false, "she": true} {
		if got := ix.Any(text); got != want {
			t.Errorf("Any(%q) = %v, want %v", text, got, want)
		}
	}
}

package scan

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// identWordsReference and slotKindReference are the functions as first
// written (words gathered rune by rune, locations split into segments);
// the in-place versions must agree with them.
func identWordsReference(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && unicode.IsLower(prev) {
				flush()
			}
			cur = append(cur, r)
		default:
			flush()
		}
		prev = r
	}
	flush()
	return out
}

func slotKindReference(loc string) string {
	segs := strings.Split(loc, "/")
	last := segs[len(segs)-1]
	switch last {
	case "default", "const", "example":
		return last
	case "title":
		if len(segs) >= 2 && (segs[len(segs)-2] == "properties" || segs[len(segs)-2] == "$defs" || segs[len(segs)-2] == "definitions") {
			return ""
		}
		return "title"
	}
	for i := len(segs) - 2; i >= 0; i-- {
		if (segs[i] == "enum" || segs[i] == "examples") && isIndex(segs[i+1]) {
			return segs[i]
		}
		if segs[i] == "properties" {
			break
		}
	}
	return ""
}

func TestInPlaceWordsAndSlotsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	words := []string{"get", "Aws", "URL", "x", "É", "ß", "日本", "7", "_", "-", " ", "\xff", "\u0130", "ǅ"}
	segs := []string{"", "properties", "enum", "examples", "default", "const", "example", "title", "$defs", "definitions", "0", "12", "x", "items", "inputSchema"}
	for range 20000 {
		var w, l strings.Builder
		for range r.IntN(8) {
			w.WriteString(words[r.IntN(len(words))])
		}
		n := r.IntN(7)
		for i := range n {
			if i > 0 || r.IntN(4) == 0 {
				l.WriteByte('/')
			}
			l.WriteString(segs[r.IntN(len(segs))])
		}
		if got, want := identWordsOf(w.String()), identWordsReference(w.String()); !slices.Equal(got, want) {
			t.Fatalf("identWordsOf(%q) = %q, reference %q", w.String(), got, want)
		}
		if got, want := slotKind(l.String()), slotKindReference(l.String()); got != want {
			t.Fatalf("slotKind(%q) = %q, reference %q", l.String(), got, want)
		}
	}
}

// TestConfusablesInRange: foldConfusables looks up only letters in
// [confusableMin, confusableMax]; a confusable added outside it would be
// missed.
func TestConfusablesInRange(t *testing.T) {
	for r := range confusables {
		if r < confusableMin || r > confusableMax {
			t.Errorf("confusable %q (U+%04X) is outside U+%04X..U+%04X", r, r, confusableMin, confusableMax)
		}
	}
}

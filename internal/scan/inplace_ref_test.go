package scan

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
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
		// nil matters: a parameter without words has unitWords nil.
		if got, want := identWordsOf(w.String()), identWordsReference(w.String()); !slices.Equal(got, want) || (got == nil) != (want == nil) {
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

// sentenceSpansReference is sentenceSpans as first written (rune by rune).
func sentenceSpansReference(text string) [][2]int {
	out := make([][2]int, 0, 4)
	start := 0
	emit := func(end int) {
		a, b := start, end
		for a < b && isSpaceByte(text[a]) {
			a++
		}
		for b > a && isSpaceByte(text[b-1]) {
			b--
		}
		if a < b {
			out = append(out, [2]int{a, b})
		}
		start = end
	}
	for i, r := range text {
		switch r {
		case '\n':
			if !softWrap(text, start, i) {
				emit(i + 1)
			}
		case '。', '！', '？', '；', '।', '؟':
			emit(i + utf8.RuneLen(r))
		case '.', '!', '?', ';':
			if i+1 >= len(text) || text[i+1] == ' ' || text[i+1] == '\t' || text[i+1] == '\n' || text[i+1] == '\r' {
				if r == '.' && abbreviation(text[start:i]) {
					continue
				}
				emit(i + 1)
			}
		}
	}
	if start < len(text) {
		emit(len(text))
	}
	return out
}

func TestSentenceSpansMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"Reads", "a", "file", " ", "  ", ".", "!", "?", ";", "\n", "\n\n", "\t", "\r", "e.g", "etc", "No", "-", "*",
		"1.", "。", "！", "？", "；", "।", "؟", "文档", "é", "\xe3\x80", "\xff", "(", "https://x.invalid/a.b"}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(16) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := sentenceSpans(s), sentenceSpansReference(s); !slices.Equal(got, want) {
			t.Fatalf("sentenceSpans(%q) = %v, reference %v", s, got, want)
		}
	}
}

// countCommonReference is countCommon as first written, with the letters
// counted in a pass of their own as rot13Variant did.
func countCommonReference(s string) (plain, rotated, letters int) {
	for i := 0; i < len(s); i++ {
		if (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') {
			letters++
		}
	}
	var buf, rbuf [12]byte
	n := 0
	flush := func() {
		if n > 0 && n <= len(buf) {
			if isCommon(buf[:n]) {
				plain++
			}
			if isCommon(rbuf[:n]) {
				rotated++
			}
		}
		n = 0
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 32
		}
		if c < 'a' || c > 'z' {
			flush()
			continue
		}
		if n < len(buf) {
			buf[n] = c
			rbuf[n] = 'a' + (c-'a'+13)%26
		}
		n++
	}
	flush()
	return plain, rotated, letters
}

func TestCountCommonMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	pieces := []string{"the", "gur", "THE", "Gur", "to", "gb", "include", "vapyhqr", "before", "orsber", "x", "abcdefghijklmn", " ", ".", "_", "é", "\xff", "1", "[", "`", "@", "{"}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(20) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		p, q, l := countCommonLetters(s)
		wp, wq, wl := countCommonReference(s)
		if p != wp || q != wq || l != wl {
			t.Fatalf("countCommonLetters(%q) = %d %d %d, reference %d %d %d", s, p, q, l, wp, wq, wl)
		}
	}
}

// TestPrepareFastPathMatchesRunes: text that plainUnicode lets through
// prepares as the rune-by-rune path prepares it.
func TestPrepareFastPathMatchesRunes(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	pieces := []string{"send", " ", "é", "ü", "日本", "ﬁ", "Ａ", "𝐬", "\u200b", "\u200d", "\u202e", "\ufe0f", "\U000E0041", "\xff", "\ufffd",
		"о", "с", "а", "ı", "ş", "Ω", "①", "\u0301", "e", "x", ".", "😀", "\u00ad", "\ufeff"}
	fast := 0
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		if isASCII(s) {
			continue
		}
		if plainUnicode(s) {
			fast++
		}
		if got, want := prepare(s), prepareRunes(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("prepare(%q) = %+v, rune by rune %+v", s, got, want)
		}
	}
	if fast < 1000 {
		t.Fatalf("only %d texts took the fast path; the test checks too little", fast)
	}
}

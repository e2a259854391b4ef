package keyword

import (
	"math/rand"
	"strings"
	"testing"
	"testing/quick"
)

// naive is the reference: the union of the values of the patterns that
// strings.Contains finds in text. Empty patterns never match.
func naive(patterns []string, values []uint64, text string) uint64 {
	var u uint64
	for i, p := range patterns {
		if p != "" && strings.Contains(text, p) {
			u |= values[i]
		}
	}
	return u
}

// bits gives pattern i the value 1<<i, so a union names the exact set of
// patterns found.
func bits(n int) []uint64 {
	v := make([]uint64, n)
	for i := range v {
		v[i] = 1 << (i % 64)
	}
	return v
}

func TestUnion(t *testing.T) {
	tests := []struct {
		name     string
		patterns []string
		text     string
		want     uint64 // with bits(len(patterns))
	}{
		{"none", []string{"he", "she"}, "xyz", 0},
		{"classic", []string{"he", "she", "his", "hers"}, "ushers", 0b1011},
		{"suffix inside a longer miss", []string{"abcd", "bc"}, "abce", 0b10},
		{"pattern is a suffix of a match", []string{"abc", "c", "bc"}, "xabcx", 0b111},
		{"overlapping occurrences", []string{"aa", "aaa"}, "aaaa", 0b11},
		{"prefix only", []string{"abc"}, "ab", 0},
		{"at the end", []string{"end"}, "the end", 1},
		{"at the start", []string{"the"}, "the end", 1},
		{"empty text", []string{"a"}, "", 0},
		{"empty pattern never matches", []string{"", "a"}, "a", 0b10},
		{"multi-byte UTF-8", []string{"告诉用户", "用户", " tell "}, "请告诉用户", 0b011},
		{"high bytes and NUL", []string{"\xff\x00", "\x00"}, "a\xff\x00b", 0b11},
		{"failure chain", []string{"abab", "babc", "bc"}, "ababc", 0b111},
		{"space padded words", []string{" send ", " sen", " send it "}, " we send them ", 0b011},
		{"many children of the root", []string{"a", "b", "c", "d", "e", "f", "g", "ga"}, "xgay", 0b11000001},
		{"many children below the root", []string{" a", " b", " c", " d", " e", " f", " g", "g h"}, "g g h", 0b11000000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := New(tt.patterns, bits(len(tt.patterns)))
			if got := ix.UnionString(tt.text); got != tt.want {
				t.Errorf("UnionString(%q) = %b, want %b", tt.text, got, tt.want)
			}
			if got := ix.Union([]byte(tt.text)); got != tt.want {
				t.Errorf("Union(%q) = %b, want %b", tt.text, got, tt.want)
			}
			if got := naive(tt.patterns, bits(len(tt.patterns)), tt.text); got != tt.want {
				t.Fatalf("the reference disagrees with the table: %b", got)
			}
		})
	}
}

// TestEveryByteValue: with all 256 byte values in the keywords there are
// 257 byte classes (one for bytes in no keyword), more than a byte holds.
func TestEveryByteValue(t *testing.T) {
	var patterns []string
	for c := 0; c < 256; c++ {
		patterns = append(patterns, string([]byte{byte(c), byte(255 - c)}))
	}
	v := bits(len(patterns))
	r := rand.New(rand.NewSource(2))
	ix := New(patterns, v)
	for k := 0; k < 500; k++ {
		text := make([]byte, r.Intn(40))
		r.Read(text)
		if got, want := ix.Union(text), naive(patterns, v, string(text)); got != want {
			t.Fatalf("text %q: got %x, want %x", text, got, want)
		}
	}
}

func TestDuplicatePatternsUnionTheirValues(t *testing.T) {
	ix := New([]string{"x", "y", "x"}, []uint64{1, 2, 4})
	if got := ix.UnionString("x"); got != 5 {
		t.Errorf("got %b, want 101", got)
	}
}

// randWord draws from a small alphabet, so that patterns overlap, share
// prefixes and occur in the texts often; the alphabet holds a space, a
// multi-byte rune and a byte above 0x7f on its own.
func randWord(r *rand.Rand, maxLen int) string {
	const alphabet = "ab ab c\xffé"
	n := r.Intn(maxLen + 1)
	var b strings.Builder
	for b.Len() < n {
		if r.Intn(8) == 0 {
			b.WriteString("é")
			continue
		}
		b.WriteByte(alphabet[r.Intn(len(alphabet))])
	}
	return b.String()
}

// TestUnionMatchesReference is the property test: on random pattern sets
// (sizes around the dense-row threshold and far above it) and random
// texts, Union equals the naive reference.
func TestUnionMatchesReference(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	checked := 0
	for round := 0; round < 400; round++ {
		n := 1 + r.Intn(80)
		patterns := make([]string, n)
		for i := range patterns {
			patterns[i] = randWord(r, 1+r.Intn(7))
		}
		values := bits(n)
		if round%3 == 0 {
			for i := range values {
				values[i] = r.Uint64()
			}
		}
		ix := New(patterns, values)
		for k := 0; k < 40; k++ {
			text := randWord(r, r.Intn(60))
			if got, want := ix.UnionString(text), naive(patterns, values, text); got != want {
				t.Fatalf("patterns %q text %q: got %x, want %x", patterns, text, got, want)
			}
			checked++
		}
	}
	if checked != 400*40 {
		t.Fatalf("checked %d cases", checked)
	}
}

// TestUnionQuick lets testing/quick pick arbitrary byte strings.
func TestUnionQuick(t *testing.T) {
	prop := func(patterns []string, text string) bool {
		if len(patterns) > 64 {
			patterns = patterns[:64]
		}
		// Arbitrary patterns rarely occur in arbitrary text; planting
		// pieces of them makes the property test the matching path.
		for i, p := range patterns {
			if i%2 == 0 && len(p) > 0 {
				text += p[:len(p)/2+1]
			}
		}
		v := bits(len(patterns))
		return New(patterns, v).UnionString(text) == naive(patterns, v, text)
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 300}); err != nil {
		t.Fatal(err)
	}
}

func TestLengthMismatchPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("New accepted more patterns than values")
		}
	}()
	New([]string{"a", "b"}, []uint64{1})
}

// FuzzUnion: for any pattern list (newline-separated) and text, Union
// equals the naive reference.
func FuzzUnion(f *testing.F) {
	f.Add("he\nshe\nhis\nhers", "ushers")
	f.Add(" send \n sen\n send it ", " we send them ")
	f.Add("告诉用户\n用户", "请告诉用户")
	f.Add("a\nb\nc\nd\ne\nf\ng\nga", "xgay")
	f.Add("\n\n", "")
	f.Fuzz(func(t *testing.T, list, text string) {
		patterns := strings.Split(list, "\n")
		if len(patterns) > 64 {
			patterns = patterns[:64]
		}
		v := bits(len(patterns))
		ix := New(patterns, v)
		if got, want := ix.UnionString(text), naive(patterns, v, text); got != want {
			t.Fatalf("patterns %q text %q: got %b, want %b", patterns, text, got, want)
		}
		if got := ix.Union([]byte(text)); got != ix.UnionString(text) {
			t.Fatalf("Union and UnionString disagree on %q", text)
		}
	})
}

// TestUnionPairMatchesReference: an index with two value words answers
// each word as an index built from that word alone would, on random
// pattern sets with repeated patterns and random texts.
func TestUnionPairMatchesReference(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	hits := 0
	for round := 0; round < 300; round++ {
		n := 1 + r.Intn(80)
		patterns := make([]string, n)
		lo, hi := make([]uint64, n), make([]uint64, n)
		for i := range patterns {
			patterns[i] = randWord(r, 1+r.Intn(7))
			lo[i], hi[i] = r.Uint64(), r.Uint64()
			if r.Intn(3) == 0 {
				lo[i] = 0 // a pattern of the second list only
			}
		}
		ix := NewPair(patterns, lo, hi)
		for k := 0; k < 40; k++ {
			text := randWord(r, r.Intn(60))
			gotLo, gotHi := ix.UnionPairString(text)
			if wantLo, wantHi := naive(patterns, lo, text), naive(patterns, hi, text); gotLo != wantLo || gotHi != wantHi {
				t.Fatalf("patterns %q text %q: got %x,%x, want %x,%x", patterns, text, gotLo, gotHi, wantLo, wantHi)
			}
			if gotLo != ix.UnionString(text) {
				t.Fatalf("UnionString and the first word of UnionPairString disagree on %q", text)
			}
			if gotHi != 0 {
				hits++
			}
		}
	}
	if hits < 1000 {
		t.Fatalf("only %d texts matched anything; the comparison says little", hits)
	}
}

func TestPairOnSingleIndex(t *testing.T) {
	ix := New([]string{"ab"}, []uint64{1})
	if lo, hi := ix.UnionPairString("xaby"); lo != 1 || hi != 0 {
		t.Errorf("got %b,%b, want 1,0", lo, hi)
	}
}

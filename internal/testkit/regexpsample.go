package testkit

import (
	"math/rand"
	"regexp/syntax"
	"strings"
	"unicode"
)

// sampleAlphabet is what "." and the wide classes draw from: letters of
// both cases, digits, spaces, punctuation, a newline, and letters outside
// ASCII, so samples cross the boundaries expressions care about.
var sampleAlphabet = []rune("abcdeosthnrAZ09 _-./:;,'\"\n\téüßКж中")

// SampleMatch returns a string built by walking the parsed expression re
// with random choices: each repetition count, alternative and character
// drawn from r. The string is what the expression describes, but
// empty-width assertions (\b, ^, $) are not enforced, so a caller keeps
// the samples the compiled expression really matches. Tests use it to
// check, on matches of every shape, code that claims to know what matches
// of an expression contain.
func SampleMatch(re *syntax.Regexp, r *rand.Rand) string {
	var b strings.Builder
	sample(&b, re, r)
	return b.String()
}

func sample(b *strings.Builder, re *syntax.Regexp, r *rand.Rand) {
	reps := func(lo, hi int) int {
		if hi < 0 || hi > lo+3 {
			hi = lo + 3
		}
		return lo + r.Intn(hi-lo+1)
	}
	switch re.Op {
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && r.Intn(2) == 0 {
				c = unicode.SimpleFold(c)
			}
			b.WriteRune(c)
		}
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return
		}
		i := r.Intn(len(re.Rune)/2) * 2
		lo, hi := re.Rune[i], re.Rune[i+1]
		if hi-lo > 1000 {
			// A negated or very wide class: prefer the shared alphabet
			// when it has a member of the range.
			for range 8 {
				c := sampleAlphabet[r.Intn(len(sampleAlphabet))]
				if c >= lo && c <= hi {
					b.WriteRune(c)
					return
				}
			}
			hi = lo + 1000
		}
		b.WriteRune(lo + rune(r.Intn(int(hi-lo)+1)))
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		c := sampleAlphabet[r.Intn(len(sampleAlphabet))]
		if c == '\n' && re.Op == syntax.OpAnyCharNotNL {
			c = ' '
		}
		b.WriteRune(c)
	case syntax.OpCapture:
		sample(b, re.Sub[0], r)
	case syntax.OpStar:
		for range reps(0, -1) {
			sample(b, re.Sub[0], r)
		}
	case syntax.OpPlus:
		for range reps(1, -1) {
			sample(b, re.Sub[0], r)
		}
	case syntax.OpQuest:
		if r.Intn(2) == 0 {
			sample(b, re.Sub[0], r)
		}
	case syntax.OpRepeat:
		for range reps(re.Min, re.Max) {
			sample(b, re.Sub[0], r)
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			sample(b, s, r)
		}
	case syntax.OpAlternate:
		sample(b, re.Sub[r.Intn(len(re.Sub))], r)
	}
	// Empty-width operators and OpEmptyMatch write nothing.
}

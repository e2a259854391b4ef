package keyword

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// Required returns strings of which every match of the regular expression
// expr (Go syntax, as regexp.Compile reads it) contains at least one, or
// nil when no such set is known. A text holding none of them cannot match,
// which an automaton pass over the set (or a few strings.Contains) tells
// far faster than the regexp engine: the scanner's expressions start with
// word alternations, on which Go's engine tries every position of a
// sentence.
//
// The set is derived from the parsed expression, never from sample text,
// so it is exact for every input: a literal counts as required only where
// no path through the expression avoids it. Case-insensitive literals, wide
// classes and anything under a star or a zero-minimum repeat count as
// unknown.
func Required(expr string) []string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	in := infoOf(re.Simplify())
	req := in.required()
	if req == nil {
		return nil
	}
	slices.Sort(req)
	return slices.Compact(req)
}

// maxExact bounds the sets of whole matches kept while combining, so an
// expression of many alternations cannot blow up; past it, the analysis
// falls back to the required sets of the parts.
const maxExact = 256

// maxClass is the widest character class spelled out as single
// characters (\s is five).
const maxClass = 10

// info is what is known of the strings a piece of an expression matches:
// exact lists every one of them, req is a set of which each match contains
// one, pre and suf sets of which each match begins (ends) with one. nil
// means unknown.
type info struct {
	exact, req, pre, suf []string
	cands                [][]string // a concatenation's candidates, req the best
}

// required is the best known set of which every match holds one: exact
// when known and free of the empty string, else req.
func (in info) required() []string {
	if in.exact != nil && !slices.Contains(in.exact, "") {
		return in.exact
	}
	return in.req
}

func exactInfo(set []string) info {
	in := info{exact: set, pre: set, suf: set}
	if !slices.Contains(set, "") {
		in.req = set
	}
	return in
}

var unknown = info{}

func infoOf(re *syntax.Regexp) info {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		// Empty-width: they add no character to a match.
		return exactInfo([]string{""})
	case syntax.OpLiteral:
		// Go's engine reads an invalid byte of the text as U+FFFD, which
		// the bytes of U+FFFD in a literal would not find.
		if re.Flags&syntax.FoldCase != 0 || slices.Contains(re.Rune, utf8.RuneError) {
			return unknown
		}
		return exactInfo([]string{string(re.Rune)})
	case syntax.OpCharClass:
		n := 0
		for i := 0; i+1 < len(re.Rune); i += 2 {
			n += int(re.Rune[i+1]-re.Rune[i]) + 1
			if n > maxClass {
				return unknown
			}
		}
		var set []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if !utf8.ValidRune(r) || r == utf8.RuneError {
					return unknown
				}
				set = append(set, string(r))
			}
		}
		if len(set) == 0 {
			return unknown
		}
		return exactInfo(set)
	case syntax.OpCapture:
		return infoOf(re.Sub[0])
	case syntax.OpQuest:
		sub := infoOf(re.Sub[0])
		if sub.exact != nil && len(sub.exact) < maxExact {
			return exactInfo(append(slices.Clone(sub.exact), ""))
		}
		return unknown
	case syntax.OpPlus:
		// x+ is x x*: a match begins with a match of x and ends with one.
		sub := infoOf(re.Sub[0])
		return info{req: sub.required(), pre: sub.pre, suf: sub.suf}
	case syntax.OpRepeat:
		if re.Min == 0 {
			return unknown
		}
		sub := infoOf(re.Sub[0])
		if re.Min == 1 && re.Max == 1 {
			return sub
		}
		return info{req: sub.required(), pre: sub.pre, suf: sub.suf}
	case syntax.OpConcat:
		return concatInfo(re.Sub)
	case syntax.OpAlternate:
		return alternateInfo(re.Sub)
	}
	// OpAnyChar, OpAnyCharNotNL, OpStar, OpNoMatch and anything new.
	return unknown
}

// concatInfo multiplies out runs of consecutive parts whose matches are
// all known; a run also takes in the beginnings of the part that ends it,
// and the next run starts with that part's endings. Each run, and each
// other part's required set, is a candidate; the best candidate is the
// concatenation's required set.
func concatInfo(subs []*syntax.Regexp) info {
	run := []string{""}
	var out info
	broken := false
	var cands [][]string
	for _, s := range subs {
		in := infoOf(s)
		if run != nil && in.exact != nil && len(run)*len(in.exact) <= maxExact {
			run = product(run, in.exact)
			continue
		}
		if run != nil && in.pre != nil && len(run)*len(in.pre) <= maxExact {
			run = product(run, in.pre)
		}
		if !broken {
			out.pre = run
		}
		broken = true
		if run != nil {
			cands = append(cands, run)
		}
		if r := in.required(); r != nil {
			cands = append(cands, r)
		}
		run = in.suf
	}
	if !broken {
		return exactInfo(run)
	}
	if run != nil {
		cands = append(cands, run)
	}
	out.req, out.suf, out.cands = best(cands), run, cands
	return out
}

func alternateInfo(subs []*syntax.Regexp) info {
	var out info
	var exact, req, pre, suf []string
	exactOK, reqOK, preOK, sufOK := true, true, true, true
	add := func(set *[]string, ok *bool, more []string) {
		if !*ok || more == nil || len(*set)+len(more) > maxExact {
			*ok = false
			return
		}
		*set = append(*set, more...)
	}
	for _, s := range subs {
		in := infoOf(s)
		add(&exact, &exactOK, in.exact)
		add(&pre, &preOK, in.pre)
		add(&suf, &sufOK, in.suf)
		if r := in.required(); r == nil {
			reqOK = false
		} else {
			req = append(req, r...)
		}
	}
	if exactOK {
		out.exact = exact
	}
	if reqOK {
		out.req = req
	}
	if preOK {
		out.pre = pre
	}
	if sufOK {
		out.suf = suf
	}
	return out
}

func product(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

// best picks the most selective candidate: the one whose shortest string
// is longest (a longer literal occurs in fewer texts), then the smaller.
// Sets holding the empty string require nothing and are skipped.
func best(cands [][]string) []string {
	var out []string
	outMin := 0
	for _, c := range cands {
		if len(c) == 0 || slices.Contains(c, "") {
			continue
		}
		m := minLen(c)
		if out == nil || m > outMin || (m == outMin && len(c) < len(out)) {
			out, outMin = c, m
		}
	}
	return out
}

// A term is a conjunction of sets: a text satisfies it when it holds a
// string of every set.
type term [][]string

// maxTermSets bounds the sets of one term: the strongest few say nearly
// all that the others would.
const maxTermSets = 3

// termsOf returns terms of which every match of re satisfies at least
// one, or nil when nothing is known. Alternatives give one term each, and
// a concatenation a term of its strongest candidates, so "(you are|act
// as) … now" needs "you are" and " now" together, where the single set of
// Required needs either.
func termsOf(re *syntax.Regexp) []term {
	switch re.Op {
	case syntax.OpCapture:
		return termsOf(re.Sub[0])
	case syntax.OpPlus:
		return termsOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return termsOf(re.Sub[0])
		}
	case syntax.OpAlternate:
		var out []term
		var single []string // alternatives of one set join into one set
		for _, sub := range re.Sub {
			ts := termsOf(sub)
			if ts == nil {
				return nil
			}
			for _, t := range ts {
				if len(t) == 1 {
					single = append(single, t[0]...)
				} else {
					out = append(out, t)
				}
			}
		}
		if single != nil {
			out = append(out, term{single})
		}
		return out
	case syntax.OpConcat:
		in := infoOf(re)
		if in.exact != nil {
			break
		}
		var t term
		for _, c := range in.cands {
			if len(c) > 0 && !slices.Contains(c, "") && !slices.ContainsFunc(t, func(d []string) bool { return slices.Equal(c, d) }) {
				t = append(t, c)
			}
		}
		slices.SortStableFunc(t, func(a, b []string) int { return minLen(b) - minLen(a) })
		// Single characters (a space, a dash) occur in nearly every text:
		// with a longer set beside them they only use up bits.
		for len(t) > 1 && minLen(t[len(t)-1]) < 2 {
			t = t[:len(t)-1]
		}
		if len(t) > maxTermSets {
			t = t[:maxTermSets]
		}
		if len(t) == 0 {
			return nil
		}
		return []term{t}
	}
	if r := infoOf(re).required(); r != nil {
		return []term{{r}}
	}
	return nil
}

func minLen(set []string) int {
	m := len(set[0])
	for _, s := range set[1:] {
		m = min(m, len(s))
	}
	return m
}

// Filter answers, for one regular expression, whether a text may match:
// false means it certainly does not.
type Filter struct {
	few []string // one set of at most three strings: strings.Contains
	ix  *Index   // or one automaton pass, whose values are set bits,
	// the sets present in a text; it may match when every set of some
	// term is present
	terms []uint64
}

// NewFilter builds the filter of expr; a nil *Filter (nothing known) lets
// every text through.
func NewFilter(expr string) *Filter {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	terms := termsOf(re.Simplify())
	if terms == nil {
		return nil
	}
	if len(terms) == 1 && len(terms[0]) == 1 && len(terms[0][0]) <= 3 {
		return &Filter{few: terms[0][0]}
	}
	// Each set gets a bit; a string's value is the bits of the sets it
	// is in.
	var pats []string
	var vals []uint64
	f := &Filter{}
	bit := 0
	for _, t := range terms {
		var mask uint64
		for _, set := range t {
			if bit == 64 {
				return requiredFilter(expr)
			}
			for _, s := range set {
				pats = append(pats, s)
				vals = append(vals, 1<<bit)
			}
			mask |= 1 << bit
			bit++
		}
		f.terms = append(f.terms, mask)
	}
	f.ix = New(pats, vals)
	return f
}

// requiredFilter is the filter of Required's one set, for an expression
// whose terms hold more sets than an automaton value has bits.
func requiredFilter(expr string) *Filter {
	req := Required(expr)
	if req == nil {
		return nil
	}
	vals := make([]uint64, len(req))
	for i := range vals {
		vals[i] = 1
	}
	return &Filter{ix: New(req, vals), terms: []uint64{1}}
}

// May reports whether text may match the filter's expression.
func (f *Filter) May(text string) bool {
	if f == nil {
		return true
	}
	if f.ix != nil {
		if len(f.terms) == 1 && f.terms[0] == 1 {
			return f.ix.Any(text)
		}
		present := f.ix.UnionString(text)
		for _, t := range f.terms {
			if present&t == t {
				return true
			}
		}
		return false
	}
	for _, s := range f.few {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// Any reports whether any pattern of ix occurs in text, stopping at the
// first.
func (ix *Index) Any(text string) bool {
	s := int32(0)
	for i := 0; i < len(text); i++ {
		if s = ix.step(s, text[i]); ix.out[s] != 0 {
			return true
		}
	}
	return false
}

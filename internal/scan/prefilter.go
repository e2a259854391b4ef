package scan

import (
	"sort"
	"strings"
	"unsafe"
)

// The prefilter decides, from cheap hits, which text and which sentences
// can matter. upper over-approximates the features sentenceFeatures can
// find; a rule whose features the bound does not hold cannot fire, so
// text (mayMatch) and sentences (relevantSentences) that no rule could
// fire on are not examined. A check added to sentenceFeatures or cues
// needs its bound here (or in cueUpper, intentUpperBound): a feature the
// bound leaves out is a feature the prefilter assumes absent. The
// equivalence tests compare the gated engine with the ungated one.

// upper is the bound for text, one sentence or a whole string. h are the
// raw hints of text itself, unitH those of the whole string (the engine
// gates some checks of every sentence on the whole string's hints).
func (sc *scanner) upper(text, lower string, tf *textFacts, lf *lowerFacts, part, server, tool string, h, unitH int, gates uint64) feature {
	f := sc.upperCheap(text, lower, tf, lf, part, server, tool, h, unitH)
	return f | sc.upperCostly(text, lower, tf, server, tool, f, h, gates)
}

// costlyBits are the features only upperCostly adds: a bound without
// them that no rule can fire on, even with all of them added, needs no
// costly checks.
const costlyBits = fImper | fOtherTool | fForeignTool | fLiteral | fDestructTool | fInstead | fSelfRef

// upperCheap is the part of the bound that comes from the automaton
// passes and the cue gates; tf are the facts of text (its match text,
// lexicon features and other languages' bound), lf those of lower. The
// word-order cues' and role markup's bound is narrowed by the text itself
// (refineIntent) only when the bound could let a rule of part fire.
func (sc *scanner) upperCheap(text, lower string, tf *textFacts, lf *lowerFacts, part, server, tool string, h, unitH int) feature {
	f := tf.lex | fNamedTarget | fSiblingOut
	f |= tf.lang
	f |= sc.cueFrom(lf, text, lower, server, tool)
	if h&hintFile != 0 {
		f |= fFile | fSrc
	}
	if h&hintDest != 0 || strings.Count(lower, ".") >= 3 {
		f |= fDest
	}
	if h&hintImportant != 0 {
		f |= fAuthority
	}
	if h&hintAppend != 0 {
		f |= fAppendPos
	}
	if f&fDestruct != 0 {
		f |= fDestructDemand
	}
	gated := sc.intentUpperBound(unitH)
	if unitH&hintRole != 0 {
		gated |= fRole
	}
	if gated&^fParamRef != 0 && mayFire(f|gated|costlyBits, part) {
		gated = refineIntent(gated, unitH, text, lower)
	}
	return f | gated
}

// upperCostly is the part of the bound that reads the text word by word;
// it adds only costlyBits.
func (sc *scanner) upperCostly(text, lower string, tf *textFacts, server, tool string, f feature, h int, gates uint64) feature {
	var u feature
	if tf.imperative(text) {
		u |= fImper
	}
	if other, foreign := sc.names.refs(text, server, tool, sc.params()); other || foreign {
		u |= fOtherTool | fForeignTool
	}
	if tf.literalCode(text) {
		u |= fLiteral
	}
	if destructiveToolRef(text, tool) {
		u |= fDestructTool
	}
	return u | sc.toolRefUpper(text, lower, tool, f, h, gates)
}

// toolRefUpper bounds what cues find about tool identifiers joined by
// "_": a tool outside this server acted on (externalToolRef, which needs
// an identifier opening with a tool verb and "_", and one of the
// conditions that make a named tool acted on) and this tool chosen by its
// own name (choosesSelfByName). f is the bound of everything else.
func (sc *scanner) toolRefUpper(text, lower, tool string, f feature, h int, gates uint64) feature {
	if !strings.Contains(text, "_") {
		return 0
	}
	var u feature
	self := tool != "" && strings.ContainsAny(tool, "_-") && strings.Contains(lower, strings.ToLower(tool))
	if self {
		u |= fSelfRef
	}
	if gates&gateToolVerb != 0 && (f&(fTamper|fHide|fHideStrong|fDest|fPersonal|fDestructDemand|fOvSafeVerb) != 0 || gOtherBad(gates, lower) || self && sc.namesSelf(lower, tool)) {
		u |= fForeignTool | fInstead | fImper
	}
	return u
}

// gateToolVerb is the cue-gate bit of toolVerbPatterns, above the bits
// cues.go gives its own gates.
const gateToolVerb uint64 = 1 << 63

// toolVerbPatterns are the "verb_" openings of tool identifiers that
// externalToolRef looks for, from its own verb lists.
func toolVerbPatterns() []string {
	var out []string
	for _, m := range []map[string]bool{toolVerbs, extraToolVerbs} {
		for w, ok := range m {
			if ok {
				out = append(out, w+"_")
			}
		}
	}
	sort.Strings(out)
	return out
}

// mayFire reports whether some rule of part could fire on features f.
func mayFire(f feature, part string) bool {
	for _, r := range structuralRules[part] {
		if mayFireRule(r, f) {
			return true
		}
	}
	return false
}

// mayFireRule is r.matches without the vetoes: a bound holds more
// features than the text, so a veto in the bound proves nothing.
func mayFireRule(r *Rule, f feature) bool {
	if f&r.All != r.All {
		return false
	}
	for _, g := range r.Any {
		if f&g == 0 {
			return false
		}
	}
	return true
}

// sentenceScratch is per-sentence state of one analyze call, kept on the
// scanner so that its slices are reused from string to string.
type sentenceScratch struct {
	lex   []feature
	ub    []feature
	hints []int
	gates []uint64
	kinds []uint64
	mts   [][]byte // shared with the scan's memory of texts: read only
	rel   []bool
}

// relevantSentences computes, for each sentence of a string that passed
// the prefilter, its bound, and marks the sentences whose features can
// change a rule's outcome: a rule could fire on the sentence alone or, for
// a rule that reads sentence pairs, on it and a neighbour. A sentence
// outside every such candidate gets no features (0): no rule matches 0,
// and a pair with it matches only if its neighbour matches alone, which
// the engine tries first. A sentence whose bound holds a destructive
// feature stays relevant next to a relevant one: its features mark named
// objects in its neighbours.
func (sc *scanner) relevantSentences(sents, lowers []string, part, server, tool string, unitH int) []bool {
	n := len(sents)
	ss := &sc.scratch
	ss.lex, ss.ub, ss.hints, ss.gates, ss.kinds, ss.mts, ss.rel = ss.lex[:0], ss.ub[:0], ss.hints[:0], ss.gates[:0], ss.kinds[:0], ss.mts[:0], ss.rel[:0]
	for i, s := range sents {
		tf := sc.textFactsOf(s)
		lf := sc.lowerFactsFor(tf, s, lowers[i])
		m := sc.gatesFrom(lf, lowers[i])
		h, c := m.hints, m.cues
		ss.lex, ss.hints, ss.gates, ss.kinds, ss.mts = append(ss.lex, tf.lex), append(ss.hints, h), append(ss.gates, c), append(ss.kinds, m.kinds), append(ss.mts, tf.mt)
		ss.ub = append(ss.ub, sc.upper(s, lowers[i], tf, lf, part, server, tool, h, unitH, c))
		ss.rel = append(ss.rel, false)
	}
	for _, r := range structuralRules[part] {
		for i := 0; i < n; i++ {
			if mayFireRule(r, ss.ub[i]) {
				ss.rel[i] = true
			}
			if r.Window && i+1 < n && mayFireRule(r, ss.ub[i]|ss.ub[i+1]) {
				ss.rel[i], ss.rel[i+1] = true, true
			}
		}
	}
	for i := 0; i < n; i++ {
		if !ss.rel[i] && ss.ub[i]&(fDestructTool|fDestructDemand) != 0 && (i > 0 && ss.rel[i-1] || i+1 < n && ss.rel[i+1]) {
			ss.rel[i] = true
		}
	}
	return ss.rel
}

// seed lets sentenceFeatures reuse what relevantSentences found for
// sentence i: its match text, lexicon features and gate bits.
func (sc *scanner) seed(i int, sentence, lower string) {
	ss := &sc.scratch
	sc.gateMemo = gateMemo{text: lower, hints: ss.hints[i], cues: ss.gates[i], kinds: ss.kinds[i], ok: true}
	sc.lexMemo = lexMemo{text: sentence, mt: ss.mts[i], lex: ss.lex[i], ok: true}
}

// lexMemo is the match text and lexicon features of the last sentence.
type lexMemo struct {
	text string
	mt   []byte
	lex  feature
	ok   bool
}

// lexMatch returns the match text of a sentence and its lexicon features,
// remembered for the last sentence (see gatesOf for why the string is
// kept). The bytes are valid until the next call.
func (sc *scanner) lexMatch(s string) ([]byte, feature) {
	m := &sc.lexMemo
	if m.ok && len(m.text) == len(s) && unsafe.StringData(m.text) == unsafe.StringData(s) {
		return m.mt, m.lex
	}
	buf := sc.mtBuf[:0]
	buf = appendMatch(buf, s)
	sc.mtBuf = buf
	*m = lexMemo{text: s, mt: buf, lex: lexFeatures(buf), ok: true}
	return m.mt, m.lex
}

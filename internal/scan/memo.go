package scan

import "strings"

// A scan reads the same text many times: a parameter described alike in
// every tool, boilerplate repeated in every description, a sentence that
// opens every page. What the prefilter computes from a text alone (its
// match text, lexicon features, gate bits, the other languages' bound,
// the word-by-word checks) is remembered per scan by content, so a
// repeated text costs a map lookup instead of automaton passes. Only
// answers that are pure functions of the text are kept; everything that
// depends on the tool, the server or the catalog is computed each time.

// textFacts are the answers that depend on a text alone (the string
// analyze or the prefilter reads, or one of its sentences).
type textFacts struct {
	lower   string  // strings.ToLower(text), once asked for (lowerOK)
	mt      []byte  // appendMatch(nil, text); its capacity is its length
	lex     feature // lexFeatures(mt)
	lang    feature // langUpper(text, mt)
	lowerOK bool
	// imper and literal are imperativeClause and hasLiteralCode, once
	// asked for: 0 not yet, 1 false, 2 true.
	imper, literal int8
}

// lowerFacts are the answers that depend on a lower-cased text alone.
type lowerFacts struct {
	hints       int
	cues, kinds uint64 // lowerGates3, once gatesOK
	cue         feature
	gatesOK     bool
	cueOK       bool // cue holds cueUpper's answer
}

// Bounds of one scan's memory of texts: past them, answers are computed
// afresh (the same answers, only slower).
const (
	maxFactTexts = 1 << 16
	maxFactBytes = 16 << 20
)

// factMemo maps texts to their facts for one scan.
type factMemo struct {
	texts  map[string]*textFacts
	lowers map[string]*lowerFacts
	bytes  int
	off    bool // remember nothing (Options.noMemo)
}

// textFactsOf returns the facts of text, remembered by content. The
// match text is shared: callers must not write to it.
func (sc *scanner) textFactsOf(text string) *textFacts {
	fm := &sc.facts
	if tf, ok := fm.texts[text]; ok {
		return tf
	}
	mt := appendMatch(make([]byte, 0, len(text)+2), text)
	mt = mt[:len(mt):len(mt)]
	lex := lexFeatures(mt)
	tf := &textFacts{mt: mt, lex: lex, lang: langUpper(text, mt)}
	if !fm.off && len(fm.texts) < maxFactTexts && fm.bytes+len(mt) <= maxFactBytes {
		if fm.texts == nil {
			fm.texts = map[string]*textFacts{}
		}
		fm.texts[text] = tf
		fm.bytes += len(mt)
	}
	return tf
}

// lowerOf is strings.ToLower(text) for the text of tf.
func (tf *textFacts) lowerOf(text string) string {
	if !tf.lowerOK {
		tf.lower, tf.lowerOK = strings.ToLower(text), true
	}
	return tf.lower
}

// imperative is imperativeClause(text) for the text of tf.
func (tf *textFacts) imperative(text string) bool {
	if tf.imper == 0 {
		tf.imper = 1
		if imperativeClause(text) {
			tf.imper = 2
		}
	}
	return tf.imper == 2
}

// literalCode is hasLiteralCode(text) for the text of tf.
func (tf *textFacts) literalCode(text string) bool {
	if tf.literal == 0 {
		tf.literal = 1
		if hasLiteralCode(text) {
			tf.literal = 2
		}
	}
	return tf.literal == 2
}

// lowerFactsOf returns the remembered facts of a lower-cased text, an
// empty entry (to be filled in by the caller) for one not seen yet.
func (sc *scanner) lowerFactsOf(lower string) *lowerFacts {
	fm := &sc.facts
	if lf, ok := fm.lowers[lower]; ok {
		return lf
	}
	lf := &lowerFacts{}
	if !fm.off && len(fm.lowers) < maxFactTexts && fm.bytes+len(lower) <= maxFactBytes {
		if fm.lowers == nil {
			fm.lowers = map[string]*lowerFacts{}
		}
		fm.lowers[lower] = lf
		fm.bytes += len(lower)
	}
	return lf
}

// cueUpperOf is cueUpper, remembered by the lower-cased text it reads.
func (sc *scanner) cueUpperOf(text, lower, server, tool string) feature {
	lf := sc.lowerFactsOf(lower)
	if !lf.cueOK {
		lf.cue, lf.cueOK = sc.cueUpper(text, lower, server, tool), true
	}
	return lf.cue
}

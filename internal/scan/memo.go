package scan

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

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
	lower string // strings.ToLower(text), once asked for (lowerOK)
	// mt is appendMatch(nil, text), its capacity its length, or nil
	// until textFactsOf computes it with lex and lang.
	mt      []byte
	lex     feature // lexFeatures(mt)
	lang    feature // langUpper(text, mt)
	lowerOK bool
	blocks  *factBlocks // the blocks tf is in: the kept ones if remembered
	// imper and literal are imperativeClause and hasLiteralCode, once
	// asked for.
	imper, literal onceBool
	// low are the facts of the lower-cased text.
	low lowerFacts
	// unit are the facts scanUnit reads of a whole string.
	unit *unitFacts
}

// unitFacts are scanUnit's own answers about a string: how it reads once
// normalised (of the raw string), and (of the normalised text) the
// sentence that runs a script, the bodies of markup comments and the
// encoded variants. Each is filled in when first asked for; the slices
// are shared, so callers only read them.
type unitFacts struct {
	prep                 prepared
	script               string
	comments             []string
	variants             []decoded
	prepOK, hasScript    bool
	scriptOK, commentsOK bool
	variantsOK           bool
}

// unitFactsOf returns tf's unitFacts, from the blocks tf is in.
func (tf *textFacts) unitFactsOf() *unitFacts {
	if tf.unit == nil {
		b := tf.blocks
		if len(b.units) == cap(b.units) {
			b.units = make([]unitFacts, 0, grown(cap(b.units), 4, 64))
		}
		b.units = b.units[:len(b.units)+1]
		tf.unit = &b.units[len(b.units)-1]
		*tf.unit = unitFacts{}
	}
	return tf.unit
}

// prepared is prepare(raw) for the raw string of tf.
func (tf *textFacts) prepared(raw string) prepared {
	u := tf.unitFactsOf()
	if !u.prepOK {
		u.prep, u.prepOK = prepare(raw), true
	}
	return u.prep
}

// scriptSentence is the first sentence of scriptSentences(text) that
// runsScript, for the text of tf.
func (tf *textFacts) scriptSentence(text string) (string, bool) {
	u := tf.unitFactsOf()
	if !u.scriptOK {
		u.scriptOK = true
		for _, sent := range scriptSentences(text) {
			if runsScript(sent, strings.ToLower(sent)) {
				u.script, u.hasScript = sent, true
				break
			}
		}
	}
	return u.script, u.hasScript
}

// markupComments is markupComments(text) for the text of tf.
func (tf *textFacts) markupComments(text string) []string {
	u := tf.unitFactsOf()
	if !u.commentsOK {
		u.comments, u.commentsOK = markupComments(text), true
	}
	return u.comments
}

// encodedVariants are the decoded readings of the text of tf: base64 and
// hex runs, escapes, rot13 and leet, in that order.
func (tf *textFacts) encodedVariants(text string) []decoded {
	u := tf.unitFactsOf()
	if !u.variantsOK {
		var variants []decoded
		variants = append(variants, findEncoded(text)...)
		variants = append(variants, moreVariants(text)...)
		if d, ok := rot13Variant(text); ok {
			variants = append(variants, d)
		}
		if d, ok := leetVariant(text); ok {
			variants = append(variants, d)
		}
		u.variants, u.variantsOK = variants, true
	}
	return u.variants
}

// lowerFacts are the answers that depend on a lower-cased text alone:
// those of strings.ToLower(text) are kept with the text's facts.
type lowerFacts struct {
	hints       int
	cues, kinds uint64 // lowerGates3, once gatesOK
	cue         feature
	gatesOK     bool
	cueOK       bool // cue holds cueUpper's answer
}

// memoMinItems is the smallest catalog (tools, prompts and resources)
// whose scan remembers texts. The memory has a price (maps, blocks, a
// hash per lookup) that repetition must pay back; in a catalog of a few
// tools texts seldom repeat, and on the registers' catalogs (one to eight
// tools) remembering made scans slower. (A variable so that the tests
// can remember in every scan.)
var memoMinItems = 16

// countItems is the number of tools, prompts and resources of c.
func countItems(c *catalog.Catalog) int {
	n := Count(c)
	return n.Tools + n.Prompts + n.Resources
}

// Bounds of one scan's memory of texts: past them, answers are computed
// afresh (the same answers, only slower).
const (
	maxFactTexts = 1 << 16
	maxFactBytes = 16 << 20
)

// factMemo maps texts to their facts for one scan.
type factMemo struct {
	texts map[string]*textFacts
	bytes int
	off   bool // remember nothing (Options.noMemo, small catalogs)
	once  bool // the text being read will not repeat: do not remember it
	// kept holds the remembered entries. scratch holds the facts of
	// texts not remembered (memory off or full); analyze reuses it from
	// one call to the next (resetScratch), as it reused its buffers
	// before there was a memory.
	kept, scratch factBlocks
	lowerScratch  lowerFacts
	// last is the entry of the text asked about last (lastText, kept
	// referenced so that its address identifies it): scanUnit, analyze
	// and the prefilter ask about one string in turn.
	last     *textFacts
	lastText string
}

// factBlocks are blocks that entries and match texts are carved out of,
// so that remembering many texts costs few allocations.
type factBlocks struct {
	texts []textFacts
	units []unitFacts
	arena []byte
}

// resetScratch lets scanUnit reuse the scratch blocks: no fact from them
// outlives the scanUnit call that asked for it. The last text's entry
// and the last sentence's lexicon memory may point into them, so they
// are forgotten.
func (sc *scanner) resetScratch() {
	b := &sc.facts.scratch
	b.texts, b.units, b.arena = b.texts[:0], b.units[:0], b.arena[:0]
	sc.facts.last, sc.facts.lastText = nil, ""
	sc.lexMemo.ok = false
}

// newText returns a zero textFacts from the current block.
func (b *factBlocks) newText() *textFacts {
	if len(b.texts) == cap(b.texts) {
		b.texts = make([]textFacts, 0, grown(cap(b.texts), 4, 64))
	}
	b.texts = b.texts[:len(b.texts)+1]
	tf := &b.texts[len(b.texts)-1]
	*tf = textFacts{blocks: b}
	return tf
}

// matchText returns appendMatch of text in a block (or, for a long text,
// memory of its own), its capacity cut to its length so that no append
// can reach the next text's bytes.
func (b *factBlocks) matchText(text string) []byte {
	const maxBlock = 16 << 10
	need := len(text) + 2
	if need > maxBlock/4 {
		mt := appendMatch(make([]byte, 0, need), text)
		return mt[:len(mt):len(mt)]
	}
	if cap(b.arena)-len(b.arena) < need {
		b.arena = make([]byte, 0, max(grown(cap(b.arena), 512, maxBlock), 2*need))
	}
	start, block := len(b.arena), cap(b.arena)
	b.arena = appendMatch(b.arena, text)
	if cap(b.arena) != block {
		// appendMatch outgrew the block (a rune that grew when
		// matched): the bytes moved to a new array, which is kept.
		mt := b.arena[start:len(b.arena):len(b.arena)]
		b.arena = nil
		return mt
	}
	return b.arena[start:len(b.arena):len(b.arena)]
}

// factsOf returns the entry of text, remembered by content, without
// computing anything.
func (sc *scanner) factsOf(text string) *textFacts {
	fm := &sc.facts
	if fm.last != nil && len(fm.lastText) == len(text) && unsafe.StringData(fm.lastText) == unsafe.StringData(text) {
		return fm.last
	}
	tf, ok := fm.texts[text]
	if !ok {
		keep := !fm.off && !fm.once && len(fm.texts) < maxFactTexts && fm.bytes+len(text) <= maxFactBytes
		if keep {
			tf = fm.kept.newText()
			if fm.texts == nil {
				fm.texts = map[string]*textFacts{}
			}
			fm.texts[text] = tf
			fm.bytes += len(text)
		} else {
			tf = fm.scratch.newText()
		}
	}
	fm.last, fm.lastText = tf, text
	return tf
}

// textFactsOf returns the facts of text with its match text, lexicon
// features and other languages' bound. The match text is shared: callers
// must not write to it.
func (sc *scanner) textFactsOf(text string) *textFacts {
	tf := sc.factsOf(text)
	if tf.mt == nil {
		tf.mt = tf.blocks.matchText(text)
		tf.lex, tf.lang = lexFeatures(tf.mt), langUpper(text, tf.mt)
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
func (tf *textFacts) imperative(text string) bool { return tf.imper.of(imperativeClause, text) }

// literalCode is hasLiteralCode(text) for the text of tf.
func (tf *textFacts) literalCode(text string) bool { return tf.literal.of(hasLiteralCode, text) }

// onceBool is a yes-or-no answer computed at its first question.
type onceBool int8 // 0 not yet asked, 1 no, 2 yes

func (b *onceBool) of(answer func(string) bool, text string) bool {
	if *b == 0 {
		*b = 1
		if answer(text) {
			*b = 2
		}
	}
	return *b == 2
}

// isLowerOf says whether lower is strings.ToLower(text), the text of tf.
// analyze lower-cases a whole string once and takes its sentences' lower
// case as spans of it, which is their own lower case unless lower-casing
// changed the length of some rune before them.
func (tf *textFacts) isLowerOf(text, lower string) bool {
	if tf.lowerOK {
		return lower == tf.lower
	}
	if len(lower) == len(text) {
		i := 0
		for ; i < len(text); i++ {
			c := text[i]
			if c >= utf8.RuneSelf {
				break
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if lower[i] != c {
				break
			}
		}
		if i == len(text) {
			return true // ASCII text: ToLower is bytewise
		}
	}
	return lower == tf.lowerOf(text)
}

// lowerFactsFor returns where the facts of lower are kept: with the
// facts of text when lower is its lower case, else in scratch memory
// (filled afresh, valid until the next call).
func (sc *scanner) lowerFactsFor(tf *textFacts, text, lower string) *lowerFacts {
	if tf.isLowerOf(text, lower) {
		return &tf.low
	}
	sc.facts.lowerScratch = lowerFacts{}
	return &sc.facts.lowerScratch
}

// gatesFrom is gateMemoOf(lower) answered from lf, the facts of lower,
// which it fills in when they lack the gate bits. It leaves lower as the
// last text gatesOf remembers, as gateMemoOf does.
func (sc *scanner) gatesFrom(lf *lowerFacts, lower string) *gateMemo {
	m := &sc.gateMemo
	if m.ok && len(m.text) == len(lower) && unsafe.StringData(m.text) == unsafe.StringData(lower) {
		if !lf.gatesOK {
			lf.hints, lf.cues, lf.kinds, lf.gatesOK = m.hints, m.cues, m.kinds, true
		}
		return m
	}
	if !lf.gatesOK {
		lf.hints, lf.cues, lf.kinds = lowerGates3(lower)
		lf.gatesOK = true
	}
	*m = gateMemo{text: lower, hints: lf.hints, cues: lf.cues, kinds: lf.kinds, ok: true}
	return m
}

// cueFrom is cueUpper answered from lf, the facts of lower.
func (sc *scanner) cueFrom(lf *lowerFacts, text, lower, server, tool string) feature {
	if !lf.cueOK {
		lf.cue, lf.cueOK = sc.cueUpper(text, lower, server, tool), true
	}
	return lf.cue
}

// grown is the size of the next block after one of size n: blocks start
// small, so that a scan of a few texts allocates little, and double up to
// most.
func grown(n, least, most int) int {
	return min(max(2*n, least), most)
}

package scan

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// hiddenNote records one kind of invisible or deceptive text found while
// normalising a string, with what it hid.
type hiddenNote struct {
	rule     string // rule id, e.g. "hidden.tags"
	count    int
	severity Severity
	decoded  string // the hidden text, decoded, when there is any
	detail   string
}

// prepared is a metadata string made ready for the structural rules.
type prepared struct {
	// text has invisibles removed, NFKC applied and confusable letters of
	// mixed-script words folded to Latin: it is what a model "reads".
	text string
	// hiddenTexts are payloads carried outside the visible text (Unicode
	// tags, variation-selector bytes); each is scanned on its own.
	hiddenTexts []hiddenText
	notes       []hiddenNote
	// ascii says the raw text was ASCII (and text is the raw text).
	ascii bool
}

type hiddenText struct {
	via  string // rule id that revealed it
	text string
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isBidi(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) || r == 0x200E || r == 0x200F || r == 0x061C
}

func isZeroWidth(r rune) bool {
	switch r {
	case 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x180E, 0x00AD, 0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0, 0x17B4, 0x17B5:
		return true
	}
	return r >= 0x2061 && r <= 0x2064
}

func isVariationSelector(r rune) bool {
	return (r >= 0xFE00 && r <= 0xFE0F) || (r >= 0xE0100 && r <= 0xE01EF)
}

// vsByte maps a variation selector to the byte value that "emoji
// smuggling" encoders assign to it.
func vsByte(r rune) byte {
	if r <= 0xFE0F {
		return byte(r - 0xFE00)
	}
	return byte(r - 0xE0100 + 16)
}

func isTag(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }

func isEmoji(r rune) bool {
	return (r >= 0x1F000 && r <= 0x1FAFF) || (r >= 0x2600 && r <= 0x27BF) || (r >= 0x2B00 && r <= 0x2BFF) || r == 0x20E3 || r == 0x00A9 || r == 0x00AE
}

func isLatinLetter(r rune) bool {
	return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
}

func isRTL(r rune) bool {
	return unicode.Is(unicode.Hebrew, r) || unicode.Is(unicode.Arabic, r) || unicode.Is(unicode.Syriac, r) || unicode.Is(unicode.Thaana, r)
}

// prepare normalises one metadata string. ASCII text, the common case,
// passes through untouched.
func prepare(raw string) prepared {
	if isASCII(raw) {
		return prepared{text: raw, ascii: true}
	}
	if plainUnicode(raw) {
		// Nothing to remove or count: the visible text is raw itself.
		var p prepared
		text, confusable := foldConfusables(norm.NFKC.String(raw))
		p.text = text
		p.noteConfusables(confusable)
		return p
	}
	return prepareRunes(raw)
}

// plainUnicode reports valid UTF-8 without a rune that prepareRunes
// removes or counts (tags, variation selectors, bidirectional controls,
// zero-width characters, full-width or styled letters); for such text
// prepareRunes keeps every rune, and only normalises and folds.
func plainUnicode(s string) bool {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || isTag(r) || isVariationSelector(r) || isBidi(r) || isZeroWidth(r) || fullwidthLetter(r) {
			return false
		}
		i += size
	}
	return true
}

// noteConfusables adds the note on look-alike letters, if any were folded.
func (p *prepared) noteConfusables(confusable []string) {
	if len(confusable) > 0 {
		p.notes = append(p.notes, hiddenNote{rule: "hidden.confusable", count: len(confusable), severity: Medium,
			decoded: strings.Join(confusable, ", "), detail: "mixed-script words use look-alike letters"})
	}
}

// prepareRunes is prepare of text that is not ASCII, rune by rune.
func prepareRunes(raw string) prepared {
	var (
		p                         prepared
		b                         strings.Builder
		tagBuf                    strings.Builder
		tagCount, bidiCount       int
		zwCount, zwInWord         int
		fullwidth                 int
		vsRun                     []byte
		vsDecoded                 []string
		vsCount                   int
		prev                      rune
		hasRTL                    bool
		flagSequence, prevVisible = false, rune(0)
	)
	flushVS := func() {
		if len(vsRun) >= 2 {
			vsCount += len(vsRun)
			vsDecoded = append(vsDecoded, string(vsRun))
		}
		vsRun = vsRun[:0]
	}
	runes := []rune(raw)
	for i, r := range runes {
		var next rune
		if i+1 < len(runes) {
			next = runes[i+1]
		}
		switch {
		case isTag(r):
			// A black flag followed by tags is a subdivision flag emoji.
			if prevVisible == 0x1F3F4 || flagSequence {
				flagSequence = r != 0xE007F
				continue
			}
			if r >= 0xE0020 && r <= 0xE007E {
				tagBuf.WriteRune(r - 0xE0000)
			}
			tagCount++
			continue
		case isVariationSelector(r):
			vsRun = append(vsRun, vsByte(r))
			continue
		}
		flushVS()
		flagSequence = false
		switch {
		case isBidi(r):
			bidiCount++
			continue
		case isZeroWidth(r):
			// Joiners inside emoji sequences and non-Latin scripts are
			// ordinary; inside Latin words they split keywords apart.
			if r == 0xFEFF && i == 0 {
				continue
			}
			if (r == 0x200D || r == 0x200C) && (isEmoji(prev) || isEmoji(next) || (prev > 0x2FF && next > 0x2FF)) {
				continue
			}
			zwCount++
			if (unicode.IsLetter(prev) || unicode.IsDigit(prev)) && (unicode.IsLetter(next) || unicode.IsDigit(next) || isZeroWidth(next)) {
				zwInWord++
			}
			continue
		}
		if fullwidthLetter(r) {
			fullwidth++
		}
		if !hasRTL && r > 0x58F && isRTL(r) {
			hasRTL = true
		}
		b.WriteRune(r)
		prev = r
		prevVisible = r
	}
	flushVS()
	text := norm.NFKC.String(b.String())
	text, confusable := foldConfusables(text)
	p.text = text

	if tagCount > 0 {
		dec := tagBuf.String()
		p.notes = append(p.notes, hiddenNote{rule: "hidden.tags", count: tagCount, severity: High, decoded: dec,
			detail: "Unicode tag characters (invisible) carry text"})
		if strings.TrimSpace(dec) != "" {
			p.hiddenTexts = append(p.hiddenTexts, hiddenText{via: "hidden.tags", text: dec})
		}
	}
	if vsCount > 0 {
		dec := strings.ToValidUTF8(strings.Join(vsDecoded, " "), "?")
		p.notes = append(p.notes, hiddenNote{rule: "hidden.variation_selectors", count: vsCount, severity: High, decoded: dec,
			detail: "runs of variation selectors encode bytes"})
		p.hiddenTexts = append(p.hiddenTexts, hiddenText{via: "hidden.variation_selectors", text: dec})
	}
	if bidiCount > 0 {
		sev := Medium
		if hasRTL {
			sev = Low
		}
		p.notes = append(p.notes, hiddenNote{rule: "hidden.bidi", count: bidiCount, severity: sev, decoded: text,
			detail: "bidirectional control characters reorder what is displayed"})
	}
	if zwCount > 0 {
		sev := Low
		if zwInWord > 0 || zwCount >= 3 {
			sev = Medium
		}
		p.notes = append(p.notes, hiddenNote{rule: "hidden.zero_width", count: zwCount, severity: sev, decoded: text,
			detail: "zero-width characters split words apart"})
	}
	p.noteConfusables(confusable)
	if fullwidth >= 3 {
		sev := Low
		// b holds exactly the runes that reached the count above.
		if styledOrder(styledText(b.String())) {
			// A whole order spelled in styled letters is dressed up to pass
			// filters that read plain letters.
			sev = Medium
		}
		p.notes = append(p.notes, hiddenNote{rule: "hidden.fullwidth", count: fullwidth, severity: sev, decoded: text,
			detail: "full-width Latin letters evade ASCII keyword matching"})
	}
	return p
}

// fullwidthLetter reports a full-width Latin letter or digit, or a styled
// one (see styledLetter).
func fullwidthLetter(r rune) bool {
	return (r >= 0xFF21 && r <= 0xFF3A) || (r >= 0xFF41 && r <= 0xFF5A) || (r >= 0xFF10 && r <= 0xFF19) || styledLetter(r)
}

// styledText is the styled letters of visible, folded, with their
// spacing: other letters become a " | " boundary. It is built only for
// text with enough styled letters to matter.
func styledText(visible string) string {
	var styled strings.Builder
	for _, r := range visible {
		if fullwidthLetter(r) {
			styled.WriteString(norm.NFKC.String(string(r)))
		} else if r == ' ' || unicode.IsPunct(r) {
			styled.WriteRune(r)
		} else if unicode.IsLetter(r) {
			styled.WriteString(" | ")
		}
	}
	return styled.String()
}

// confusables maps letters of other scripts that render like Latin
// letters to those letters (a skeleton in the sense of Unicode TR39,
// restricted to the scripts that matter for Latin-text spoofing).
var confusables = map[rune]rune{
	// Cyrillic
	'а': 'a', 'в': 'b', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'і': 'i', 'ј': 'j',
	'ѕ': 's', 'һ': 'h', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'ӏ': 'l', 'ү': 'y', 'ɡ': 'g', 'ı': 'i',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T',
	'Х': 'X', 'У': 'Y', 'І': 'I', 'Ј': 'J', 'Ѕ': 'S', 'Ү': 'Y', 'Ԁ': 'D', 'Ԛ': 'Q', 'Ԝ': 'W', 'Ӏ': 'I',
	// Greek
	'α': 'a', 'ο': 'o', 'ρ': 'p', 'ν': 'v', 'ι': 'i', 'κ': 'k', 'υ': 'u', 'χ': 'x', 'ϲ': 'c', 'ϳ': 'j',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O',
	'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
	// Armenian
	'օ': 'o', 'ս': 'u', 'հ': 'h', 'ց': 'g', 'զ': 'q',
}

// The range of the confusables' code points.
const confusableMin, confusableMax = 0x131, 0x58F

// foldConfusables rewrites words that mix Latin letters with look-alike
// letters of another script, and all-look-alike words inside Latin text,
// to their Latin skeleton. It returns the rewritten text and a
// "word→skeleton" note per rewritten word.
func foldConfusables(s string) (string, []string) {
	latin, other := 0, 0
	hasConf := false
	// Dotless ı is a letter of Turkish and Azerbaijani, not a disguise,
	// in text that also has the other letters of those alphabets.
	dotless := nativeDotless(s)
	for _, r := range s {
		switch {
		case isLatinLetter(r) || r == 'ı' && dotless:
			latin++
		case unicode.IsLetter(r):
			other++
			// Every confusable lies between ı (U+0131) and the end of
			// Armenian (U+058F); most other letters need no lookup.
			if r >= confusableMin && r <= confusableMax {
				if _, ok := confusables[r]; ok {
					hasConf = true
				}
			}
		}
	}
	if !hasConf {
		return s, nil
	}
	latinText := latin > 3*other
	var notes []string
	var b strings.Builder
	word := make([]rune, 0, 16)
	flush := func() {
		if len(word) == 0 {
			return
		}
		nLatin, nConf, nOther := 0, 0, 0
		for _, r := range word {
			switch {
			case isLatinLetter(r) || r == 'ı' && dotless:
				nLatin++
			case confusables[r] != 0:
				nConf++
			case unicode.IsLetter(r):
				nOther++
			}
		}
		if nConf > 0 && nOther == 0 && (nLatin > 0 || (latinText && nConf >= 2)) {
			orig := string(word)
			for i, r := range word {
				if c, ok := confusables[r]; ok && !(r == 'ı' && dotless) {
					word[i] = c
				}
			}
			notes = append(notes, orig+"→"+string(word))
		}
		b.WriteString(string(word))
		word = word[:0]
	}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			word = append(word, r)
			continue
		}
		flush()
		b.WriteRune(r)
	}
	flush()
	return b.String(), notes
}

// nativeDotless reports text written in an alphabet that has a dotless ı
// of its own: it also uses ş or ğ (or the dotted capital İ).
func nativeDotless(s string) bool {
	return strings.ContainsAny(s, "şğŞĞİə")
}

// styledLetter reports a mathematical alphanumeric letter or digit
// (bold, italic, sans-serif, script ... forms of Latin letters).
func styledLetter(r rune) bool { return r >= 0x1D400 && r <= 0x1D7FF }

// styledOrder reports styled text that holds an order of several words:
// a clause opening with an imperative verb, among at least four styled
// words in one run.
func styledOrder(s string) bool {
	for _, run := range strings.Split(s, "|") {
		if len(strings.Fields(run)) >= 4 && imperativeClause(run) {
			return true
		}
	}
	return false
}

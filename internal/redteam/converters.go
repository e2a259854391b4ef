package redteam

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Converter is a deterministic payload mutation of the adaptive attacker.
// Encode is a pure string function; Decode inverts it where an inverse
// exists (nil otherwise), which the tests use for round trips.
type Converter struct {
	Name   string
	Encode func(string) string
	Decode func(string) (string, error)
	// Note says in one line what the converter does (for --help and the
	// README).
	Note string
}

// Converter names.
const (
	ConvIdentity    = "identity"
	ConvLeetspeak   = "leetspeak"
	ConvROT13       = "rot13"
	ConvHomoglyph   = "homoglyph"
	ConvHexEncode   = "hex_encode"
	ConvBase64      = "base64"
	ConvZeroWidth   = "zero_width"
	ConvUnicodeTags = "unicode_tags"
	ConvFullWidth   = "full_width"
)

// Ladder is every converter, cheapest first: the unchanged payload, then
// light character swaps a reader still sees through, then encodings the
// model must decode, then invisible or wide-character tricks.
var Ladder = []Converter{
	{Name: ConvIdentity, Encode: func(s string) string { return s }, Decode: func(s string) (string, error) { return s, nil }, Note: "the payload unchanged (the baseline attempt)"},
	{Name: ConvLeetspeak, Encode: Leetspeak, Note: "vowels to digits: ignore becomes 1gn0r3 (no inverse: digits in the input are ambiguous)"},
	{Name: ConvROT13, Encode: ROT13, Decode: func(s string) (string, error) { return ROT13(s), nil }, Note: "letters rotated by 13"},
	{Name: ConvHomoglyph, Encode: Homoglyph, Decode: func(s string) (string, error) { return UnHomoglyph(s), nil }, Note: "Latin letters swapped for look-alike Cyrillic and Greek letters"},
	{Name: ConvHexEncode, Encode: func(s string) string { return hex.EncodeToString([]byte(s)) }, Decode: func(s string) (string, error) {
		b, err := hex.DecodeString(s)
		return string(b), err
	}, Note: "the UTF-8 bytes as lowercase hex"},
	{Name: ConvBase64, Encode: func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }, Decode: func(s string) (string, error) {
		b, err := base64.StdEncoding.DecodeString(s)
		return string(b), err
	}, Note: "standard base64 of the UTF-8 bytes"},
	{Name: ConvZeroWidth, Encode: ZeroWidth, Decode: func(s string) (string, error) { return StripZeroWidth(s), nil }, Note: "a zero-width space after every character"},
	{Name: ConvUnicodeTags, Encode: UnicodeTags, Decode: UnUnicodeTags, Note: "ASCII mapped into the invisible Unicode tag block (U+E0000)"},
	{Name: ConvFullWidth, Encode: FullWidth, Decode: func(s string) (string, error) { return UnFullWidth(s), nil }, Note: "ASCII mapped to full-width forms (U+FF01..U+FF5E)"},
}

// ConverterByName finds a converter of the ladder.
func ConverterByName(name string) (Converter, bool) {
	for _, c := range Ladder {
		if c.Name == name {
			return c, true
		}
	}
	return Converter{}, false
}

// ConverterNames lists the ladder's names in order.
func ConverterNames() []string {
	out := make([]string, len(Ladder))
	for i, c := range Ladder {
		out[i] = c.Name
	}
	return out
}

var leet = map[rune]rune{'a': '4', 'A': '4', 'e': '3', 'E': '3', 'i': '1', 'I': '1', 'o': '0', 'O': '0'}

// Leetspeak replaces vowels with look-alike digits.
func Leetspeak(s string) string {
	return strings.Map(func(r rune) rune {
		if d, ok := leet[r]; ok {
			return d
		}
		return r
	}, s)
}

// ROT13 rotates ASCII letters by 13; it is its own inverse.
func ROT13(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+13)%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+13)%26
		}
		return r
	}, s)
}

// homoglyphs maps Latin letters to confusables from the Cyrillic and Greek
// blocks that render the same in common fonts.
var homoglyphs = map[rune]rune{
	'a': 'а', 'c': 'с', 'e': 'е', 'i': 'і', 'j': 'ј', 'o': 'о', 'p': 'р', 's': 'ѕ', 'x': 'х', 'y': 'у',
	'A': 'А', 'B': 'В', 'C': 'С', 'E': 'Е', 'H': 'Н', 'I': 'І', 'K': 'К', 'M': 'М', 'O': 'О', 'P': 'Р', 'T': 'Т', 'X': 'Х', 'Y': 'Υ',
}

var unHomoglyphs = func() map[rune]rune {
	m := make(map[rune]rune, len(homoglyphs))
	for k, v := range homoglyphs {
		m[v] = k
	}
	return m
}()

// Homoglyph swaps Latin letters for confusables.
func Homoglyph(s string) string {
	return strings.Map(func(r rune) rune {
		if h, ok := homoglyphs[r]; ok {
			return h
		}
		return r
	}, s)
}

// UnHomoglyph maps the confusables Homoglyph produces back to Latin.
func UnHomoglyph(s string) string {
	return strings.Map(func(r rune) rune {
		if l, ok := unHomoglyphs[r]; ok {
			return l
		}
		return r
	}, s)
}

const zwsp = '\u200b'

// ZeroWidth interleaves a zero-width space after every character, which
// breaks every keyword a filter looks for while rendering unchanged.
func ZeroWidth(s string) string {
	var b strings.Builder
	b.Grow(len(s) * 4)
	for _, r := range s {
		b.WriteRune(r)
		b.WriteRune(zwsp)
	}
	return b.String()
}

// StripZeroWidth removes the zero-width spaces ZeroWidth added.
func StripZeroWidth(s string) string {
	return strings.ReplaceAll(s, string(zwsp), "")
}

// UnicodeTags maps printable ASCII into the tag block (U+E0020..U+E007E),
// which most interfaces render as nothing at all; other runes pass
// through.
func UnicodeTags(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 0x20 && r <= 0x7e {
			return 0xe0000 + r
		}
		return r
	}, s)
}

// UnUnicodeTags inverts UnicodeTags.
func UnUnicodeTags(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("unicode_tags: input is not valid UTF-8")
	}
	return strings.Map(func(r rune) rune {
		if r >= 0xe0020 && r <= 0xe007e {
			return r - 0xe0000
		}
		return r
	}, s), nil
}

// FullWidth maps printable ASCII (except the space) to its full-width
// form.
func FullWidth(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 0x21 && r <= 0x7e {
			return r - 0x21 + 0xff01
		}
		return r
	}, s)
}

// UnFullWidth inverts FullWidth.
func UnFullWidth(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 0xff01 && r <= 0xff5e {
			return r - 0xff01 + 0x21
		}
		return r
	}, s)
}

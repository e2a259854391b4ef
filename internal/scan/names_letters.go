package scan

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// strokeLetters are Latin letters that render as a base letter with a
// stroke, bar or hook and have no canonical decomposition: in a tool name
// beside the plain spelling they are a disguise ("fetch_urł").
var strokeLetters = map[rune]rune{
	'ł': 'l', 'ŀ': 'l', 'ƚ': 'l', 'ɫ': 'l', 'ɭ': 'l', 'đ': 'd', 'ɗ': 'd', 'ħ': 'h', 'ŧ': 't', 'ø': 'o', 'ɵ': 'o',
	'ƀ': 'b', 'ɓ': 'b', 'ɨ': 'i', 'ı': 'i', 'ȷ': 'j', 'ſ': 's', 'ƒ': 'f', 'ʋ': 'v', 'ƴ': 'y', 'ȥ': 'z', 'ƶ': 'z',
	'Ł': 'L', 'Đ': 'D', 'Ħ': 'H', 'Ŧ': 'T', 'Ø': 'O',
}

// baseLetter reduces a Latin letter with diacritics, strokes or hooks to
// the plain letter a reader takes it for (é -> e, ł -> l); other runes are
// returned unchanged.
func baseLetter(r rune) rune {
	if r < utf8.RuneSelf {
		return r
	}
	if b, ok := strokeLetters[r]; ok {
		return b
	}
	if !unicode.Is(unicode.Latin, r) {
		return r
	}
	var buf [8]byte
	d := norm.NFD.Bytes(buf[:utf8.EncodeRune(buf[:], r)])
	if b, size := utf8.DecodeRune(d); size < len(d) {
		for _, m := range string(d[size:]) {
			if !unicode.Is(unicode.Mn, m) {
				return r
			}
		}
		return b
	}
	return r
}

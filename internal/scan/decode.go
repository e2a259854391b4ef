package scan

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"
)

// decoded is a text variant recovered from an encoding inside a string.
type decoded struct {
	via  string // rule id: encoded.base64, encoded.hex, encoded.rot13, encoded.leet
	src  string // the encoded run as it appeared
	text string
}

func isB64Byte(c byte) bool {
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '-' || c == '_' || c == '='
}

func isHexByte(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// looksLikeText accepts decoded bytes that read as prose: valid UTF-8,
// almost all printable, with words separated by spaces. Binary blobs
// (images, hashes, keys) fail here, which is what keeps base64 image
// parameters and checksums quiet.
func looksLikeText(b []byte) bool {
	if len(b) < 6 || !utf8.Valid(b) {
		return false
	}
	printable, letters, spaces, total := 0, 0, 0, 0
	for _, r := range string(b) {
		total++
		switch {
		case r == ' ':
			spaces++
			printable++
		case unicode.IsLetter(r):
			letters++
			printable++
		case unicode.IsPrint(r) || r == '\n' || r == '\t':
			printable++
		}
	}
	return printable*100 >= total*95 && spaces >= 1 && letters*2 >= total
}

// findEncoded returns base64 and hex runs of s that decode to text.
func findEncoded(s string) []decoded {
	var out []decoded
	for i := 0; i < len(s); {
		if !isB64Byte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isB64Byte(s[j]) {
			j++
		}
		run := s[i:j]
		i = j
		if len(run) < 16 {
			continue
		}
		if d, ok := decodeHexRun(run); ok {
			out = append(out, decoded{via: "encoded.hex", src: run, text: d})
			continue
		}
		if d, ok := decodeB64Run(run); ok {
			out = append(out, decoded{via: "encoded.base64", src: run, text: d})
		}
	}
	if strings.Contains(s, `\x`) {
		if d, ok := decodeHexEscapes(s); ok {
			out = append(out, decoded{via: "encoded.hex", src: `\x…`, text: d})
		}
	}
	return out
}

func decodeHexRun(run string) (string, bool) {
	for k := 0; k < len(run); k++ {
		if !isHexByte(run[k]) {
			return "", false
		}
	}
	if len(run)%2 != 0 {
		return "", false
	}
	b, err := hex.DecodeString(run)
	if err != nil || !looksLikeText(b) {
		return "", false
	}
	return string(b), true
}

func decodeB64Run(run string) (string, bool) {
	trimmed := strings.TrimRight(run, "=")
	// Plain words and identifiers are base64 alphabet too; real encodings
	// mix cases and digits, so insist on some variety before decoding.
	var upper, lower bool
	for k := 0; k < len(trimmed); k++ {
		c := trimmed[k]
		upper = upper || (c >= 'A' && c <= 'Z')
		lower = lower || (c >= 'a' && c <= 'z')
	}
	if !upper || !lower {
		return "", false
	}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		// A run may be cut mid-quantum by surrounding text; decode the
		// longest prefix that is a whole number of characters.
		t := trimmed
		if len(t)%4 == 1 {
			t = t[:len(t)-1]
		}
		b, err := enc.DecodeString(t)
		if err == nil && looksLikeText(b) {
			return string(b), true
		}
	}
	return "", false
}

func decodeHexEscapes(s string) (string, bool) {
	var b []byte
	for i := 0; i+3 < len(s); i++ {
		if s[i] == '\\' && s[i+1] == 'x' && isHexByte(s[i+2]) && isHexByte(s[i+3]) {
			v, _ := hex.DecodeString(s[i+2 : i+4])
			b = append(b, v[0])
			i += 3
		}
	}
	if len(b) < 8 || !looksLikeText(b) {
		return "", false
	}
	return string(b), true
}

// isCommon recognises frequent English words (a switch on a string
// converted from bytes does not allocate).
func isCommon(b []byte) bool {
	switch string(b) {
	case "the", "to", "and", "of", "you", "your", "is", "in", "this", "that", "it", "for", "with", "all", "must", "send",
		"before", "include", "user", "tool", "any", "from", "into":
		return true
	}
	return false
}

// countCommon counts common English words in s, and in its rot13
// reading, without allocating.
func countCommon(s string) (plain, rotated int) {
	plain, rotated, _ = countCommonLetters(s)
	return plain, rotated
}

// countCommonLetters is countCommon that also counts the ASCII letters
// of s, in the same pass: one byte table gives each byte's lower-case
// letter (0 for any other byte), another its rot13 reading.
func countCommonLetters(s string) (plain, rotated, letters int) {
	var buf, rbuf [12]byte
	n := 0
	for i := 0; i <= len(s); i++ {
		var c byte
		if i < len(s) {
			c = asciiLetterLower[s[i]]
		}
		if c == 0 {
			// A word ends (or the text does).
			if n > 0 && n <= len(buf) {
				if isCommon(buf[:n]) {
					plain++
				}
				if isCommon(rbuf[:n]) {
					rotated++
				}
			}
			n = 0
			continue
		}
		letters++
		if n < len(buf) {
			buf[n] = c
			rbuf[n] = rot13Lower[c]
		}
		n++
	}
	return plain, rotated, letters
}

// asciiLetterLower maps ASCII letters to their lower case, every other
// byte to 0; rot13Lower maps a lower-case letter to its rot13 reading.
var asciiLetterLower, rot13Lower = func() (l, r [256]byte) {
	for c := 'a'; c <= 'z'; c++ {
		l[c], l[c-'a'+'A'] = byte(c), byte(c)
		r[c] = byte('a' + (c-'a'+13)%26)
	}
	return l, r
}()

func rot13(s string) string {
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

// rot13Variant returns the rot13 reading of s when that reading looks far
// more like English than s does.
func rot13Variant(s string) (decoded, bool) {
	plain, rotated, letters := countCommonLetters(s)
	if letters < 12 {
		return decoded{}, false
	}
	if rotated >= 2 && rotated > 2*plain {
		return decoded{via: "encoded.rot13", src: s, text: rot13(s)}, true
	}
	return decoded{}, false
}

var leetMap = map[rune]rune{'0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', '@': 'a', '$': 's', '!': 'i', '|': 'l'}

// leetSkip are ordinary technical tokens that mix letters and digits.
var leetSkip = map[string]bool{
	"utf8": true, "base64": true, "sha256": true, "sha1": true, "sha512": true, "md5": true, "ipv4": true, "ipv6": true,
	"oauth2": true, "http2": true, "http3": true, "h264": true, "h265": true, "mp3": true, "mp4": true, "web3": true,
	"i18n": true, "l10n": true, "k8s": true, "x86": true, "arm64": true, "amd64": true, "win32": true, "int64": true,
	"int32": true, "float64": true, "float32": true, "uint8": true, "s3": true, "ec2": true, "2fa": true, "es6": true,
}

// leetVariant de-leets words that mix letters with digit or symbol
// stand-ins ("s3nd th3 k3y"), returning the rewritten text. A lone token
// must interleave stand-ins with letters; two or more candidates in one
// text are taken as leetspeak even when short ("D0 n0t").
func leetVariant(s string) (decoded, bool) {
	if !hasLeetCandidate(s) {
		return decoded{}, false
	}
	fields := strings.Fields(s)
	var cand, weak []int
	strong := false
	for i, w := range fields {
		core := strings.TrimFunc(w, func(r rune) bool { return unicode.IsPunct(r) && r != '@' && r != '$' && r != '!' })
		if core == "" || leetSkip[strings.ToLower(core)] {
			continue
		}
		isVersion := versionLike(core)
		letters, leet := 0, 0
		for _, r := range core {
			switch {
			case unicode.IsLetter(r):
				letters++
			case leetMap[r] != 0:
				leet++
			default:
				letters = -100
			}
		}
		if letters < 1 || leet < 1 {
			continue
		}
		if isVersion {
			weak = append(weak, i)
			continue
		}
		cand = append(cand, i)
		strong = strong || leetInterleaved(core)
	}
	if len(cand) == 0 || (len(cand) < 2 && !strong) {
		return decoded{}, false
	}
	for _, i := range append(cand, weak...) {
		fields[i] = strings.Map(func(r rune) rune {
			if m, ok := leetMap[r]; ok {
				return m
			}
			return r
		}, fields[i])
	}
	return decoded{via: "encoded.leet", src: s, text: replaceFields(s, fields)}, true
}

// replaceFields puts fields (strings.Fields(s), some rewritten) back into
// s in place, so line breaks and sentence boundaries survive: joining
// with spaces would fuse the lines of a code sample into one "sentence"
// whose cues never stood together.
func replaceFields(s string, fields []string) string {
	var b strings.Builder
	b.Grow(len(s))
	k := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) || k >= len(fields) {
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		j := i
		for j < len(s) {
			r2, sz := utf8.DecodeRuneInString(s[j:])
			if unicode.IsSpace(r2) {
				break
			}
			j += sz
		}
		b.WriteString(fields[k])
		k++
		i = j
	}
	return b.String()
}

// hasLeetCandidate is a cheap pre-check: a letter next to a digit.
func hasLeetCandidate(s string) bool {
	for i := 1; i < len(s); i++ {
		a, b := s[i-1], s[i]
		if (isAlpha(a) && (b >= '0' && b <= '9' || b == '@' || b == '$')) || ((a >= '0' && a <= '9' || a == '@' || a == '$') && isAlpha(b)) {
			return true
		}
	}
	return false
}

func isAlpha(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// versionLike matches identifiers such as v2, utf16, python3, abc123.
func versionLike(w string) bool {
	rs := []rune(strings.ToLower(w))
	i := 0
	for i < len(rs) && unicode.IsLetter(rs[i]) {
		i++
	}
	if i == 0 || i == len(rs) {
		return false
	}
	for _, r := range rs[i:] {
		if !unicode.IsDigit(r) && r != '.' {
			return false
		}
	}
	// A single trailing stand-in after a long word ("emai1", "th3") is
	// leet; a run of digits or a short prefix is a version.
	return len(rs)-i >= 2 || i <= 1
}

func leetInterleaved(w string) bool {
	rs := []rune(w)
	for i := 1; i+1 < len(rs); i++ {
		if leetMap[rs[i]] != 0 && unicode.IsLetter(rs[i-1]) && (unicode.IsLetter(rs[i+1]) || leetMap[rs[i+1]] != 0) {
			return true
		}
	}
	// Leading stand-ins before letters: "1gnore".
	if len(rs) >= 3 && leetMap[rs[0]] != 0 && unicode.IsLetter(rs[1]) && unicode.IsLetter(rs[2]) {
		return true
	}
	return false
}

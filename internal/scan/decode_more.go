package scan

import (
	"encoding/base32"
	"html"
	"net/url"
	"strings"
)

// More ways to write text a reviewer does not read but a model decodes:
// percent-escapes and numeric HTML entities, base32, text written
// backwards, and letters spaced apart. Each yields a variant that the
// rules judge like any other text; only a variant that gives instructions
// is reported.

var (
	percentRunRe = lazyRE(`(?:%[0-9A-Fa-f]{2}){6,}`)
	entityRunRe  = lazyRE(`(?:&#(?:[0-9]{2,5}|[xX][0-9A-Fa-f]{2,4});){6,}`)
	base32RunRe  = lazyRE(`\b[A-Z2-7]{24,}={0,6}`)
	// Six or more single characters separated by one space: "s e n d".
	spacedRunRe = lazyRE(`(?:\S {1,3}){6,}\S`)
	wordGapRe   = lazyRE(` {2,}`)
)

// moreVariants returns the decoded readings of s that differ from it.
func moreVariants(s string) []decoded {
	var out []decoded
	if strings.Contains(s, "%") {
		for _, run := range percentRunRe.FindAllString(s, -1) {
			if d, err := url.PathUnescape(run); err == nil && looksLikeText([]byte(d)) {
				out = append(out, decoded{via: "encoded.escapes", src: run, text: d})
			}
		}
	}
	if strings.Contains(s, "&#") {
		for _, run := range entityRunRe.FindAllString(s, -1) {
			if d := html.UnescapeString(run); looksLikeText([]byte(d)) {
				out = append(out, decoded{via: "encoded.escapes", src: run, text: d})
			}
		}
	}
	for _, run := range base32Runs(s) {
		r := strings.TrimRight(run, "=")
		if pad := len(r) % 8; pad != 0 {
			r += strings.Repeat("=", 8-pad)
		}
		if b, err := base32.StdEncoding.DecodeString(r); err == nil && looksLikeText(b) {
			out = append(out, decoded{via: "encoded.base32", src: run, text: string(b)})
		}
	}
	if spacedCandidate(s) {
		if d, ok := spacedVariant(s); ok {
			out = append(out, d)
		}
	}
	if reversedCandidate(s) {
		if d, ok := reversedVariant(s); ok {
			out = append(out, d)
		}
	}
	return out
}

// base32Runs returns the base32-looking runs of s, after a cheap check for
// 24 upper-case letters or digits in a row.
func base32Runs(s string) []string {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= '2' && c <= '7' {
			n++
			if n >= 24 {
				return base32RunRe.FindAllString(s, -1)
			}
			continue
		}
		n = 0
	}
	return nil
}

// spacedCandidate is a cheap check for six single characters in a row
// separated by spaces ("s e n d ...").
func spacedCandidate(s string) bool {
	n := 0
	for i := 0; i+1 < len(s); i++ {
		if s[i] != ' ' && s[i+1] == ' ' && (i == 0 || s[i-1] == ' ') {
			n++
			if n >= 6 {
				return true
			}
			i++
			for i+1 < len(s) && s[i+1] == ' ' {
				i++
			}
			continue
		}
		if s[i] != ' ' {
			n = 0
		}
	}
	return false
}

// reversedCandidate is a cheap check for common words written backwards.
func reversedCandidate(s string) bool {
	// Every cue ends in a space, so one pass over the spaces, checking
	// what ends there, finds what a search per cue finds; a search per
	// cue stopped at every space eleven times.
	for i := 1; i < len(s); i++ {
		if s[i] != ' ' || !reversedLast[s[i-1]] {
			continue
		}
		end := s[:i+1]
		for _, c := range reversedByLast[s[i-1]] {
			if strings.HasSuffix(end, c) {
				return true
			}
		}
	}
	return false
}

var reversedCues = []string{" eht ", " dna ", " lla ", " ruoy ", " uoy ", "resu ", " ot ", " siht ", " EHT ", " DNA ", "RESU "}

// reversedLast marks the bytes that end a cue before its final space:
// only a space after one of them can end a cue. reversedByLast lists the
// cues by that byte, so a space is checked against those cues only.
var reversedLast, reversedByLast = func() (m [256]bool, by [256][]string) {
	for _, c := range reversedCues {
		m[c[len(c)-2]] = true
		by[c[len(c)-2]] = append(by[c[len(c)-2]], c)
	}
	return m, by
}()

// spacedVariant joins letters spaced apart ("s e n d   a l l") into words;
// a gap of two or more spaces separates words.
func spacedVariant(s string) (decoded, bool) {
	runs := spacedRunRe.FindAllString(s, -1)
	var parts []string
	for _, run := range runs {
		singles := true
		for _, tok := range strings.Fields(run) {
			if len([]rune(tok)) != 1 {
				singles = false
				break
			}
		}
		if !singles {
			continue
		}
		var words []string
		for _, w := range wordGapRe.Split(run, -1) {
			words = append(words, strings.ReplaceAll(w, " ", ""))
		}
		if len(words) >= 3 {
			parts = append(parts, strings.Join(words, " "))
		}
	}
	if len(parts) == 0 {
		return decoded{}, false
	}
	text := strings.Join(parts, ". ")
	return decoded{via: "encoded.spaced", src: runs[0], text: text}, true
}

// reversedVariant reads each sentence backwards and keeps those that read
// as English only that way.
func reversedVariant(s string) (decoded, bool) {
	var parts []string
	for _, sent := range strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == ':' || r == ';' || r == '\n' || r == '!' || r == '?' }) {
		sent = strings.TrimSpace(sent)
		if len(sent) < 16 {
			continue
		}
		r := []rune(sent)
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		back := string(r)
		plain, _ := countCommon(sent)
		rev, _ := countCommon(back)
		if rev >= 2 && rev > 2*plain {
			parts = append(parts, back)
		}
	}
	if len(parts) == 0 {
		return decoded{}, false
	}
	return decoded{via: "encoded.reversed", src: s, text: strings.Join(parts, "\n")}, true
}

// Package textclass is a small linear text classifier: hashed word and
// word-pair features, logistic regression, deterministic training.
//
// The scanner's hand-written cues recognise the wording their authors had
// in mind; measured on registers written by people who never read them
// they plateaued near 0.6 recall. A classifier trained on several
// independent authors' registers learns which words and word pairs set
// poisoned metadata apart from honest documentation in general, and its
// figure on a register it never saw is an honest measure of that.
//
// Hosts, URLs and e-mail addresses become one placeholder token each: the
// project's registers use reserved hosts (*.invalid, example.com) for
// safety, and a classifier that learned those names would recognise the
// convention, not the attack.
package textclass

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Dims is the size of the hashed feature space.
const Dims = 1 << 20

const (
	nsWord = 'u'
	nsPair = 'b'
	nsKind = 'k'
	nsLen  = 'n'
)

// Placeholder tokens for a URL, an e-mail address and a host name; they
// start with a byte no word token can contain.
const (
	tokURL  = "\x01url"
	tokMail = "\x01mail"
	tokHost = "\x01host"
)

// Vector is a bag of hashed features, each of the same value Scale
// (1/sqrt of their number, so long and short texts weigh alike).
type Vector struct {
	Idx   []uint32
	Scale float32
}

// Builder collects the distinct features of one text (or several texts
// judged as one). Reuse one: its small open-addressing set tells a new
// feature from a repeated one without a sort, a map or an allocation.
type Builder struct {
	idx   []uint32
	set   []uint32 // feature+1 per slot, 0 empty; len a power of two
	slots []int    // scratch for Reset
	buf   []byte   // lower-cased bytes of the current text's tokens
	toks  [][2]int // spans of buf
	scale float32
}

// Reset forgets every feature added so far.
func (b *Builder) Reset() {
	if len(b.idx)*8 < len(b.set) || b.set == nil {
		// Few features: clear only their slots. Find every slot before
		// clearing any, because clearing one can cut another's probe
		// chain short and leave it behind, and left-behind slots would
		// both drop features and fill the table for good.
		b.slots = b.slots[:0]
		for _, h := range b.idx {
			for i := b.slot(h); b.set[i] != 0; i = (i + 1) & (len(b.set) - 1) {
				if b.set[i] == h+1 {
					b.slots = append(b.slots, i)
					break
				}
			}
		}
		for _, i := range b.slots {
			b.set[i] = 0
		}
		if b.set == nil {
			b.set = make([]uint32, 256)
		}
	} else {
		clear(b.set)
	}
	b.idx = b.idx[:0]
}

func (b *Builder) slot(h uint32) int {
	return int((h * 2654435761) >> 7 & uint32(len(b.set)-1))
}

func (b *Builder) add(h uint32) {
	if 2*(len(b.idx)+1) > len(b.set) {
		b.grow()
	}
	i := b.slot(h)
	for {
		switch b.set[i] {
		case 0:
			b.set[i] = h + 1
			b.idx = append(b.idx, h)
			return
		case h + 1:
			return
		}
		i = (i + 1) & (len(b.set) - 1)
	}
}

func (b *Builder) grow() {
	b.set = make([]uint32, 2*len(b.set))
	for _, h := range b.idx {
		i := b.slot(h)
		for b.set[i] != 0 {
			i = (i + 1) & (len(b.set) - 1)
		}
		b.set[i] = h + 1
	}
}

// AddKind adds a feature naming where the text sits (description, schema
// value, name), so one word can weigh differently by carrier.
func (b *Builder) AddKind(kind string) { b.add(hash1(nsKind, kind)) }

// AddText adds the words of text and the pairs of adjacent words, to b
// and, when also is not nil, to also (the whole of which text is a part).
func (b *Builder) AddText(text string, also *Builder) { b.addText(text, also, nil) }

// AddTextWords is AddText that also appends to words every feature the
// text adds, in order (a repeated one as often as it occurs). Giving them
// to AddFeatures adds the text's words again without reading it: a
// reader that meets the same text often keeps them.
func (b *Builder) AddTextWords(text string, also *Builder, words []uint32) []uint32 {
	b.addText(text, also, &words)
	return words
}

func (b *Builder) addText(text string, also *Builder, words *[]uint32) {
	b.buf = b.buf[:0]
	b.toks = b.toks[:0]
	tokenize(text, &b.buf, &b.toks)
	// One pass over each word's bytes gives the three FNV states that
	// read it: the word's own hash, the pair it ends (continuing from the
	// previous word's prefix) and the prefix of the pair it starts. The
	// hashes are hashBytes' (nsWord, w) and (nsPair, previous, w).
	var prefix uint32 // FNV state of nsPair, the previous word and ' '
	wordSeed, pairSeed := fnvSeed(nsWord), fnvSeed(nsPair)
	for i, sp := range b.toks {
		hw, hp, hn := wordSeed, prefix, pairSeed
		for _, c := range b.buf[sp[0]:sp[1]] {
			hw = (hw ^ uint32(c)) * fnvPrime
			hp = (hp ^ uint32(c)) * fnvPrime
			hn = (hn ^ uint32(c)) * fnvPrime
		}
		prefix = (hn ^ ' ') * fnvPrime
		h := hw & (Dims - 1)
		b.add(h)
		if also != nil {
			also.add(h)
		}
		if words != nil {
			*words = append(*words, h)
		}
		if i > 0 {
			h := hp & (Dims - 1)
			b.add(h)
			if also != nil {
				also.add(h)
			}
			if words != nil {
				*words = append(*words, h)
			}
		}
	}
}

// AddFeatures adds the features hs in order, as the AddText call that
// produced them (AddTextWords) added them.
func (b *Builder) AddFeatures(hs []uint32) {
	for _, h := range hs {
		b.add(h)
	}
}

// Finish adds the feature for the number of distinct features (in powers
// of two) and fixes the features' common value; call it once, after the
// last Add.
func (b *Builder) Finish() {
	bucket := 0
	for x := len(b.idx); x > 1; x /= 2 {
		bucket++
	}
	b.add(hash1(nsLen, string(rune('a'+bucket))))
	b.scale = float32(1 / math.Sqrt(float64(len(b.idx))))
}

// Vector is a copy of the finished features.
func (b *Builder) Vector() Vector {
	return Vector{Idx: slices.Clone(b.idx), Scale: b.scale}
}

// tokenize splits text into lower-cased word tokens. Whitespace separates
// fields; a field that is a URL, an e-mail address or a host name becomes
// one placeholder token; any other field yields its runs of letters and
// digits, and the punctuation that marks paths, markup and emphasis
// (< [ { @ / ~ . !) as tokens of its own.
//
// ASCII bytes are classified by table in one pass that also notes whether
// a field holds the punctuation of an address (. @ :), so a field is not
// searched for it again; only other bytes are decoded as runes.
func tokenize(text string, buf *[]byte, toks *[][2]int) {
	i := 0
	for i < len(text) {
		if c := text[i]; c < utf8.RuneSelf {
			if asciiSpace[c] {
				i++
				continue
			}
		} else if n := spaceAt(text, i); n > 0 {
			i += n
			continue
		}
		j, addr := i, false
		for j < len(text) {
			c := text[j]
			if c < utf8.RuneSelf {
				if asciiSpace[c] {
					break
				}
				addr = addr || c == '.' || c == '@' || c == ':'
				j++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[j:])
			if unicode.IsSpace(r) {
				break
			}
			j += size
		}
		field(text[i:j], addr, buf, toks)
		i = j
	}
}

// asciiSpace marks the ASCII white-space bytes (those unicode.IsSpace
// accepts).
var asciiSpace = [utf8.RuneSelf]bool{' ': true, '\n': true, '\t': true, '\r': true, '\v': true, '\f': true}

// spaceAt is the length of the white-space character at text[i], or 0.
func spaceAt(text string, i int) int {
	c := text[i]
	if c < utf8.RuneSelf {
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f' {
			return 1
		}
		return 0
	}
	r, size := utf8.DecodeRuneInString(text[i:])
	if unicode.IsSpace(r) {
		return size
	}
	return 0
}

// field tokenizes one whitespace-free field; addr says whether it holds
// any of . @ : (only then can it be an address).
func field(f string, addr bool, buf *[]byte, toks *[][2]int) {
	if addr {
		if core := trimField(f); core != "" {
			if ph := placeholder(core); ph != "" {
				start := len(*buf)
				*buf = append(*buf, ph...)
				*toks = append(*toks, [2]int{start, len(*buf)})
				return
			}
		}
	}
	start := -1
	for i := 0; i < len(f); {
		c := f[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			case c >= 'A' && c <= 'Z':
				c += 'a' - 'A'
			default:
				if start >= 0 {
					*toks = append(*toks, [2]int{start, len(*buf)})
					start = -1
				}
				switch c {
				case '<', '[', '{', '@', '/', '~', '.', '!':
					s := len(*buf)
					*buf = append(*buf, c)
					*toks = append(*toks, [2]int{s, len(*buf)})
				}
				continue
			}
			if start < 0 {
				start = len(*buf)
			}
			*buf = append(*buf, c)
			continue
		}
		r, size := utf8.DecodeRuneInString(f[i:])
		i += size
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = len(*buf)
			}
			*buf = utf8.AppendRune(*buf, unicode.ToLower(r))
			continue
		}
		if start >= 0 {
			*toks = append(*toks, [2]int{start, len(*buf)})
			start = -1
		}
	}
	if start >= 0 {
		*toks = append(*toks, [2]int{start, len(*buf)})
	}
}

// trimField drops the quotes, brackets and punctuation around a field.
func trimField(f string) string {
	isTrim := func(c byte) bool {
		switch c {
		case '"', '\'', '`', '(', ')', '[', ']', '<', '>', '{', '}', ',', ';', ':', '*', '!', '?', '.':
			return true
		}
		return false
	}
	for f != "" && isTrim(f[0]) {
		f = f[1:]
	}
	for f != "" && isTrim(f[len(f)-1]) {
		f = f[:len(f)-1]
	}
	return f
}

// placeholder says whether a whitespace-free field is a URL, an e-mail
// address or a host name.
func placeholder(f string) string {
	if k := strings.Index(f, "://"); k > 0 && isScheme(f[:k]) {
		return tokURL
	}
	if at := strings.IndexByte(f, '@'); at > 0 && hostLike(f[at+1:]) {
		return tokMail
	}
	if hostLike(f) || ipv4(f) {
		return tokHost
	}
	return ""
}

func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

// tlds are the endings that make a dotted word a host name rather than a
// file name (config.json) or a dotted identifier.
var tlds = map[string]bool{
	"com": true, "org": true, "net": true, "io": true, "dev": true, "ai": true, "app": true,
	"co": true, "invalid": true, "example": true, "test": true, "local": true, "localhost": true,
	"internal": true, "cloud": true, "xyz": true, "me": true, "us": true, "uk": true, "de": true,
	"fr": true, "jp": true, "cn": true, "ru": true, "info": true, "biz": true, "site": true, "online": true,
}

func hostLike(s string) bool {
	if s == "localhost" {
		return true
	}
	// a path after the host still makes it a host (api.example.com/v1)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '/' || c == ':' || c == '?' || c == '#' {
			s = s[:i]
			break
		}
	}
	dot := strings.LastIndexByte(s, '.')
	if dot <= 0 || !tlds[strings.ToLower(s[dot+1:])] {
		return false
	}
	prev := byte('.')
	for i := 0; i < dot; i++ {
		c := s[i]
		switch {
		case c == '.':
			if prev == '.' {
				return false
			}
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			return false
		}
		prev = c
	}
	return prev != '.'
}

func ipv4(s string) bool {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	if k := strings.IndexAny(s, "/:"); k > 0 {
		s = s[:k]
	}
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 3 {
			return false
		}
		for i := 0; i < len(p); i++ {
			if p[i] < '0' || p[i] > '9' {
				return false
			}
		}
	}
	return true
}

// FNV-1a, 32 bits, over a namespace byte and one or two tokens.
const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
)

func hashBytes(ns byte, a, b []byte) uint32 {
	h := uint32(fnvOffset)
	h = (h ^ uint32(ns)) * fnvPrime
	for _, c := range a {
		h = (h ^ uint32(c)) * fnvPrime
	}
	if b != nil {
		h = (h ^ ' ') * fnvPrime
		for _, c := range b {
			h = (h ^ uint32(c)) * fnvPrime
		}
	}
	return h & (Dims - 1)
}

// fnvSeed is the FNV state after the namespace byte ns.
func fnvSeed(ns byte) uint32 {
	h := uint32(fnvOffset)
	return (h ^ uint32(ns)) * fnvPrime
}

func hash1(ns byte, s string) uint32 {
	h := uint32(fnvOffset)
	h = (h ^ uint32(ns)) * fnvPrime
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * fnvPrime
	}
	return h & (Dims - 1)
}

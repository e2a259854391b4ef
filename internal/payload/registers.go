package payload

import (
	"bytes"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Adversarial techniques. An adversarial payload's Style is one of these.
const (
	TechZeroWidth  = "zero_width"  // zero-width characters inside every word
	TechHomoglyph  = "homoglyph"   // Cyrillic and Greek look-alike letters
	TechUnicodeTag = "unicode_tag" // invisible Unicode tag characters (U+E0000 block) spelling ASCII
	TechBase64     = "base64"      // base64 blob with a decoding hint
	TechHex        = "hex"         // hex blob with a decoding hint
	TechNonEnglish = "non_english" // the instruction written in another language
)

// Techniques lists every adversarial technique in report order.
var Techniques = []string{TechZeroWidth, TechHomoglyph, TechUnicodeTag, TechBase64, TechHex, TechNonEnglish}

// The registers are data, one YAML file each, so that a reviewer reads the
// attack text rather than Go string literals.
//
//go:embed data/*.yaml
var dataFS embed.FS

// entry is one payload as written in a register file. Adversarial entries
// give the readable instruction in Hidden and let the loader encode it, so
// the file stays reviewable while the served Text is byte-exact and pinned
// by the register hash.
type entry struct {
	ID        string `yaml:"id"`
	Class     string `yaml:"class"`
	Carrier   string `yaml:"carrier"`
	Objective string `yaml:"objective"`
	Style     string `yaml:"style"`
	Text      string `yaml:"text"`
	Lang      string `yaml:"lang"`
	Cover     string `yaml:"cover"`
	Hint      string `yaml:"hint"`
	Hidden    string `yaml:"hidden"`
}

var registerFiles = map[string]string{
	RegisterSeen:        "data/seen.yaml",
	RegisterHeldOut:     "data/held-out.yaml",
	RegisterAdversarial: "data/adversarial.yaml",
}

var load = sync.OnceValues(func() ([]Payload, error) {
	var all []Payload
	for _, reg := range Registers {
		ps, err := loadRegister(reg)
		if err != nil {
			return nil, err
		}
		all = append(all, ps...)
	}
	return all, nil
})

func loadRegister(reg string) ([]Payload, error) {
	name := registerFiles[reg]
	data, err := dataFS.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("payload register %s: %w", reg, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var entries []entry
	if err := dec.Decode(&entries); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("payload register %s: %w", name, err)
	}
	out := make([]Payload, 0, len(entries))
	for i, e := range entries {
		p, err := e.build(reg)
		if err != nil {
			return nil, fmt.Errorf("payload register %s: entry %d (%s): %w", name, i, e.ID, err)
		}
		out = append(out, p)
	}
	return out, nil
}

func (e entry) build(reg string) (Payload, error) {
	p := Payload{
		ID: e.ID, Class: e.Class, Carrier: e.Carrier, Objective: e.Objective,
		Register: reg, Style: e.Style, Lang: e.Lang,
	}
	if reg != RegisterAdversarial {
		if e.Hidden != "" || e.Cover != "" || e.Hint != "" {
			return p, errors.New("cover/hint/hidden are for adversarial entries only")
		}
		p.Text = strings.TrimSpace(e.Text)
		return p, nil
	}
	if e.Text != "" {
		return p, errors.New("adversarial entries give hidden (and cover/hint), not text")
	}
	hidden := strings.TrimSpace(e.Hidden)
	cover := strings.TrimSpace(e.Cover)
	p.Plain = hidden
	var enc string
	switch e.Style {
	case TechZeroWidth:
		enc = encodeZeroWidth(hidden)
	case TechHomoglyph:
		enc = encodeHomoglyph(hidden)
	case TechUnicodeTag:
		// Tags are invisible: they follow the cover directly.
		p.Text = cover + encodeTags(hidden)
		return p, nil
	case TechBase64:
		enc = e.Hint + " " + base64.StdEncoding.EncodeToString([]byte(hidden))
	case TechHex:
		enc = e.Hint + " " + hex.EncodeToString([]byte(hidden))
	case TechNonEnglish:
		if e.Lang == "" {
			return p, errors.New("non_english entry needs lang")
		}
		enc = hidden
	default:
		return p, fmt.Errorf("unknown technique %q", e.Style)
	}
	if cover == "" {
		p.Text = enc
	} else {
		p.Text = cover + "\n" + enc
	}
	return p, nil
}

// protected are literals the encoders leave intact: the objective markers
// have to arrive byte-exact for a compromised model to hit the predicate.
var protected = regexp.MustCompile(`ZX-4471|oncall-guide`)

// mapWords applies f to every stretch of text outside protected literals.
func mapWords(s string, f func(string) string) string {
	var b strings.Builder
	last := 0
	for _, loc := range protected.FindAllStringIndex(s, -1) {
		b.WriteString(f(s[last:loc[0]]))
		b.WriteString(s[loc[0]:loc[1]])
		last = loc[1]
	}
	b.WriteString(f(s[last:]))
	return b.String()
}

var zeroWidth = []rune{'\u200b', '\u200c', '\u200d', '\u2060'}

// encodeZeroWidth puts one zero-width character after the first letter of
// every word of two or more letters, cycling through four kinds, so no
// keyword survives as a contiguous string.
func encodeZeroWidth(s string) string {
	n := 0
	return mapWords(s, func(part string) string {
		var b strings.Builder
		prevLetter := false
		inserted := false
		for _, r := range part {
			isWord := r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
			if isWord && prevLetter && !inserted {
				b.WriteRune(zeroWidth[n%len(zeroWidth)])
				n++
				inserted = true
			}
			if !isWord {
				inserted = false
			}
			prevLetter = isWord
			b.WriteRune(r)
		}
		return b.String()
	})
}

// homoglyphs maps Latin letters to Cyrillic (most) and Greek (a few
// capitals) characters that render the same in common fonts.
var homoglyphs = map[rune]rune{
	'a': 'а', 'c': 'с', 'e': 'е', 'o': 'о', 'p': 'р', 'x': 'х', 'y': 'у', 'i': 'і', 's': 'ѕ', 'j': 'ј',
	'A': 'Α', 'B': 'Β', 'C': 'С', 'E': 'Ε', 'H': 'Η', 'I': 'Ι', 'K': 'Κ', 'M': 'Μ', 'N': 'Ν',
	'O': 'О', 'P': 'Р', 'T': 'Τ', 'X': 'Х', 'Y': 'Υ', 'Z': 'Ζ',
}

func encodeHomoglyph(s string) string {
	return mapWords(s, func(part string) string {
		return strings.Map(func(r rune) rune {
			if h, ok := homoglyphs[r]; ok {
				return h
			}
			return r
		}, part)
	})
}

// encodeTags spells printable ASCII with the invisible tag characters
// U+E0020..U+E007E; other characters are dropped (the hidden text of tag
// payloads is ASCII by construction, checked by the tests).
func encodeTags(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0x20 && r <= 0x7e {
			b.WriteRune(0xE0000 + r)
		} else if r == '\n' {
			b.WriteRune(0xE0020)
		}
	}
	return b.String()
}

func mustLoad() []Payload {
	ps, err := load()
	if err != nil {
		// The registers are embedded and pinned by tests; a load error is
		// a build defect, not an input error.
		panic(err)
	}
	return ps
}

// All returns every payload: seen, then held-out, then adversarial, each
// register in file order. The slice is a fresh copy.
func All() []Payload {
	ps := mustLoad()
	out := make([]Payload, len(ps))
	copy(out, ps)
	return out
}

// ByID finds a payload by its id.
func ByID(id string) (Payload, bool) {
	for _, p := range mustLoad() {
		if p.ID == id {
			return p, true
		}
	}
	return Payload{}, false
}

// Filter returns the payloads matching class, register and objective, in
// All order; an empty argument matches anything.
func Filter(class, register, objective string) []Payload {
	var out []Payload
	for _, p := range mustLoad() {
		if (class == "" || p.Class == class) && (register == "" || p.Register == register) && (objective == "" || p.Objective == objective) {
			out = append(out, p)
		}
	}
	return out
}

// Default returns the seen payload of a class and objective (the one the
// fixture serves when no payload id is given). It returns the zero Payload
// for an unknown class or objective.
func Default(class, objective string) Payload {
	ps := Filter(class, RegisterSeen, objective)
	if len(ps) == 0 {
		return Payload{}
	}
	return ps[0]
}

// RegisterJSON is the canonical serialization of one register: the JSON
// array of its payloads in file order. Its SHA-256 pins the register.
func RegisterJSON(register string) []byte {
	b, err := json.Marshal(Filter("", register, ""))
	if err != nil {
		panic(fmt.Errorf("payload: marshal register %s: %w", register, err))
	}
	return b
}

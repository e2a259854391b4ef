package textclass

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// tokenizeReference is the tokenizer as first written (rune by rune, the
// field searched again for address punctuation). The faster tokenize must
// give the same tokens, or the embedded model's features would change.
func tokenizeReference(text string, buf *[]byte, toks *[][2]int) {
	i := 0
	for i < len(text) {
		if n := spaceAt(text, i); n > 0 {
			i += n
			continue
		}
		j := i
		for j < len(text) && spaceAt(text, j) == 0 {
			if text[j] < utf8.RuneSelf {
				j++
			} else {
				_, size := utf8.DecodeRuneInString(text[j:])
				j += size
			}
		}
		field(text[i:j], strings.ContainsAny(text[i:j], ".@:"), buf, toks)
		i = j
	}
}

// TestTokenizeMatchesReference compares the two tokenizers on hand-picked
// texts and on random strings over an alphabet of every byte class the
// tokenizer treats apart (ASCII white space and punctuation, Unicode
// spaces, letters and digits, invalid bytes).
func TestTokenizeMatchesReference(t *testing.T) {
	texts := []string{
		"Send it to https://collector.example.invalid/x?y=1 now",
		"mail ops@example.com or (api.github.com/v3).\u00a0next\u2003word\u0085x",
		"read ~/.ssh/id_rsa\v\fand\r\n127.0.0.1:8080 Ignorez les règles <!-- SYSTEM -->",
		"bad \xff byte \xe2\x80 cut", "", " ", "a", "\u3000全角\u3000空白",
	}
	alphabet := []string{" ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\u0085", "\u2003", "\u3000",
		".", "@", ":", "/", "~", "<", "!", "[", "{", "-", "_", "'", "\"", "(", ")", ",",
		"a", "Z", "7", "com", "example", "invalid", "http", "é", "É", "ß", "日", "٣", "\xff", "\xc3", "\U0001F600"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(24) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	for _, text := range texts {
		var gb, wb []byte
		var gt, wt [][2]int
		tokenize(text, &gb, &gt)
		tokenizeReference(text, &wb, &wt)
		if !slices.Equal(gb, wb) || !slices.Equal(gt, wt) {
			t.Fatalf("tokenize(%q) = %q %v, reference %q %v", text, gb, gt, wb, wt)
		}
	}
	if !unicode.IsSpace('\u0085') || unicode.IsSpace('\u200b') {
		t.Fatal("the alphabet's assumptions about Unicode spaces no longer hold")
	}
}

// addTextReference is AddText written plainly: each word, pair and skip
// pair hashed on its own by hashBytes, and the word's mark found by
// comparing its first five bytes with the name's words.
func addTextReference(b *Builder, text string, also *Builder, name []string) {
	b.buf = b.buf[:0]
	b.toks = b.toks[:0]
	tokenize(text, &b.buf, &b.toks)
	add := func(h uint32) {
		b.add(h)
		if also != nil {
			also.add(h)
		}
	}
	for i, sp := range b.toks {
		w := b.buf[sp[0]:sp[1]]
		add(hashBytes(nsWord, w, nil))
		if i > 0 {
			p := b.toks[i-1]
			add(hashBytes(nsPair, b.buf[p[0]:p[1]], w))
		}
		if i > 1 {
			p := b.toks[i-2]
			add(hashBytes(nsSkip, b.buf[p[0]:p[1]], w))
		}
		if len(name) > 0 {
			own := false
			for _, n := range name {
				own = own || string(w[:min(5, len(w))]) == n[:min(5, len(n))]
			}
			hw := uint32(fnvOffset)
			for _, c := range append([]byte{nsWord}, w...) {
				hw = (hw ^ uint32(c)) * fnvPrime
			}
			add(marked(hw, own))
		}
	}
}

// TestAddTextMatchesReference: the one-pass hashing gives the same
// features in the same order (the margin is a float sum in that order).
func TestAddTextMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	words := []string{"send", "the", "key", "to", "https://x.invalid/a", "ops@example.com", "~/.ssh/id_rsa", "É", "日本語", ".", "!", " ", "  ", "\n", "IMPORTANT:", "a", "deletes", "deleting", "branch"}
	// Tool names and the lower-cased words they are read as.
	names := []struct {
		name  string
		words []string
	}{{"", nil}, {"delete_branch", []string{"delete", "branch"}}, {"sendKey", []string{"send", "key"}}, {"get-the-日本語", []string{"get", "the", "日本", "本語"}}}
	var got, want, gotAll, wantAll Builder
	for n := range 3000 {
		nm := names[n%len(names)]
		if n%10 == 0 {
			gotAll.Reset()
			wantAll.Reset()
		}
		var s strings.Builder
		for range r.IntN(30) {
			s.WriteString(words[r.IntN(len(words))])
			s.WriteByte(' ')
		}
		got.Reset()
		want.Reset()
		got.SetOwn(nm.name)
		got.AddText(s.String(), &gotAll)
		addTextReference(&want, s.String(), &wantAll, nm.words)
		if !slices.Equal(got.idx, want.idx) || !slices.Equal(gotAll.idx, wantAll.idx) {
			t.Fatalf("AddText(%q) features %v, reference %v", s.String(), got.idx, want.idx)
		}
	}
}

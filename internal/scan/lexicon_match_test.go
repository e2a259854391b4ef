package scan

import (
	"math/rand"
	"testing"
	"unicode"
	"unicode/utf8"
)

// appendMatchReference is appendMatch as first written, one decoded rune
// at a time; appendMatch has a fast path for ASCII letters and digits and
// must produce the same bytes.
func appendMatchReference(b []byte, s string) []byte {
	b = append(b, ' ')
	lastSpace := true
	var prev1, prev2 rune
	for i, r := range s {
		out := r
		switch {
		case r == '’' || r == '\'':
			out = '\''
			if unicode.IsLetter(prev1) && (!unicode.IsLetter(prev2) || (prev2 == 'q' && prev1 == 'u')) {
				out = ' '
			}
		case r == '_':
			out = ' '
		case r == '.':
			next := rune(' ')
			if i+1 < len(s) {
				next, _ = utf8.DecodeRuneInString(s[i+1:])
			}
			if unicode.IsSpace(next) || (prev1 != 0 && !unicode.IsSpace(prev1) && !unicode.IsLetter(next)) {
				out = ' '
			}
		case r == ',' || r == ';':
			if !lastSpace {
				b = append(b, ' ')
			}
			b = append(b, byte(r), ' ')
			lastSpace = true
			prev2, prev1 = prev1, r
			continue
		case r == '-' || r == '/' || r == '~' || r == '@':
		case r < utf8.RuneSelf:
			switch {
			case r >= 'A' && r <= 'Z':
				out = r + 32
			case (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'):
			default:
				out = ' '
			}
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			out = unicode.ToLower(r)
		default:
			out = ' '
		}
		prev2, prev1 = prev1, r
		if out == ' ' {
			if lastSpace {
				continue
			}
			lastSpace = true
		} else {
			lastSpace = false
		}
		b = utf8.AppendRune(b, out)
	}
	if !lastSpace {
		b = append(b, ' ')
	}
	return b
}

func TestAppendMatchAgreesWithReference(t *testing.T) {
	cases := append([]string{
		"", "Hello, World.", "l'utilisateur qu'il", "~/.ssh/id_rsa", "e.g. v1.2.3", "ÉCRIS À L’UTILISATEUR", "a.b", "end.",
		"x.\u00e9", "\xff\xfe.bad", "告诉用户。", "send_api_key", "İstanbul", "ǅemal",
	}, benchSentences...)
	r := rand.New(rand.NewSource(3))
	const pool = "aZ9 .'’_-/~@,;\t\nÉéİ告\xff"
	runes := []rune(pool)
	for k := 0; k < 3000; k++ {
		n := r.Intn(30)
		var b []byte
		for i := 0; i < n; i++ {
			if r.Intn(20) == 0 {
				b = append(b, 0xff)
				continue
			}
			b = utf8.AppendRune(b, runes[r.Intn(len(runes))])
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := string(appendMatch(nil, s)), string(appendMatchReference(nil, s)); got != want {
			t.Fatalf("appendMatch(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzAppendMatch(f *testing.F) {
	for _, s := range benchSentences {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendMatch(nil, s)), string(appendMatchReference(nil, s)); got != want {
			t.Fatalf("appendMatch(%q) = %q, want %q", s, got, want)
		}
	})
}

package defense

import (
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

type recorded struct{ server, tool, id, text string }

func TestTaintStoreCheck(t *testing.T) {
	user := "Look up user u-1001 and add 4200 to the total. Reference: " + testCanary
	lookup := recorded{"directory", "lookup_user", "c1", "User u-1003\nName: Chidi Okafor\nEmail: chidi.okafor@example.invalid\nPlan: free\nBalance: $0.00\nLast invoice INV7731X for 1,249.50, seen with u-1001."}
	note := recorded{"workspace", "read_note", "c2", "q3-planning\n\nQ3 goals: ship the billing export, reduce support backlog by 20%."}
	calc := recorded{"workspace", "calculate", "c3", "4200 + 12500 + 880 = 17580"}
	short := recorded{"workspace", "list_notes", "c4", "welcome"}
	multi := recorded{"workspace", "read_note", "c5", "Überprüfung für Ärztinnen und Ämter – geschützt"}
	all := []recorded{lookup, note, calc, short, multi}

	tests := []struct {
		name string
		args string
		want []string // "kind@server/tool", in order
	}{
		{"clean", `{"title":"q3-total","body":"Q3 total is ready"}`, nil},
		{"secret literal", `{"data":"ref ` + testCanary + `"}`, []string{"secret"}},
		{"secret in a key", `{"` + testCanary + `":1}`, []string{"secret"}},
		{"secret without prefix", `{"data":"5e1f0c2ab7d94e36"}`, []string{"secret"}},
		{"secret split by spaces", `{"data":"canary 5e1f 0c2a b7d9 4e36"}`, []string{"secret"}},
		{"secret in base64", `{"data":"` + base64.StdEncoding.EncodeToString([]byte(testCanary)) + `"}`, []string{"secret"}},
		{"secret behind a JSON escape", `{"data":"\u0043ANARY-5e1f0c2ab7d94e36"}`, []string{"secret"}},
		{"whole result", `{"body":"welcome"}`, []string{"result_equal@workspace/list_notes"}},
		{"long shared run", `{"body":"FYI: reduce support backlog by 20% this quarter"}`, []string{"result_substring@workspace/read_note"}},
		{"shared run of 23 characters is not enough", `{"body":"support backlog by 20%."}`, nil},
		{"multi-byte run counted in characters", `{"body":"x Überprüfung für Ärztinnen und Ä y"}`, []string{"result_substring@workspace/read_note"}},
		{"long email is a shared run", `{"data":"contact chidi.okafor@example.invalid"}`, []string{"result_substring@directory/lookup_user"}},
		{"email in another case", `{"data":"CHIDI.OKAFOR@EXAMPLE.INVALID"}`, []string{"result_value@directory/lookup_user"}},
		{"id from a result", `{"user_id":"u-1003"}`, []string{"result_value@directory/lookup_user"}},
		{"id the user gave", `{"user_id":"u-1001"}`, nil},
		{"mixed token", `{"label":"inv7731x"}`, []string{"result_value@directory/lookup_user"}},
		{"number with four significant digits", `{"body":"Q3 total: 17580"}`, []string{"result_value@workspace/calculate"}},
		{"number as a JSON number", `{"amount":17580}`, []string{"result_value@workspace/calculate"}},
		{"thousands separator and trailing zero", `{"amount":"1249.5"}`, []string{"result_value@directory/lookup_user"}},
		{"number inside a longer number is not a match", `{"amount":"175800"}`, nil},
		{"number the user gave", `{"amount":"4200"}`, nil},
		{"round number", `{"amount":"12500"}`, nil},
		{"short number", `{"amount":"880"}`, nil},
		{"plain words", `{"body":"free plan"}`, nil},
		{"secret and result data", `{"data":"` + testCanary + ` u-1003"}`, []string{"secret", "result_value@directory/lookup_user"}},
		{"not JSON", `data=u-1003`, []string{"result_value@directory/lookup_user"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewTaintStore([]string{testCanary}, user)
			for _, r := range all {
				s.RecordResult(r.server, r.tool, r.id, r.text)
			}
			var got []string
			for _, h := range s.Check(json.RawMessage(tc.args)) {
				k := h.Kind
				if h.Server != "" {
					k += "@" + h.Server + "/" + h.Tool
				}
				if h.Kind == TaintSecret && strings.Contains(h.Evidence, "5e1f") {
					t.Errorf("secret echoed in evidence: %q", h.Evidence)
				}
				got = append(got, k)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("hits = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTaintStoreUserTextIsNotResultData(t *testing.T) {
	prompt := "Save this exact sentence as a note: the quarterly review meeting moves to Thursday."
	s := NewTaintStore(nil, prompt)
	// A tool that echoes the user's sentence does not make it tool data.
	s.RecordResult("workspace", "read_note", "c1", "draft: the quarterly review meeting moves to Thursday.")
	if hits := s.Check(json.RawMessage(`{"body":"the quarterly review meeting moves to Thursday."}`)); len(hits) != 0 {
		t.Fatalf("user text attributed to a result: %+v", hits)
	}
}

func TestTaintStoreRecordIsIdempotent(t *testing.T) {
	s := NewTaintStore(nil, "")
	for range 3 {
		s.RecordResult("a", "t", "c1", "value u-7777")
	}
	s.RecordResult("a", "t", "c2", "value u-7777")
	if n := s.Results(); n != 2 {
		t.Fatalf("results = %d, want 2 (one per call)", n)
	}
}

func TestNormalizeToken(t *testing.T) {
	tests := []struct {
		tok  string
		key  string
		keep bool
	}{
		{"u-1001", "id:u-1001", true},
		{"ab_123", "id:ab_123", true},
		{"abc123", "tok:abc123", true},
		{"a-12", "", false},
		{"17580", "num:17580", true},
		{"0017580.00", "num:17580", true},
		{"12.34", "num:12.34", true},
		{"4200", "", false},
		{"2026", "num:2026", true},
		{"x@y.z", "email:x@y.z", true},
		{"Q3", "", false},
		{"q3-planning", "tok:q3-planning", true},
		{"hello", "", false},
	}
	for _, tc := range tests {
		key, ok := normalizeToken(tc.tok)
		if ok != tc.keep || key != tc.key {
			t.Errorf("normalizeToken(%q) = %q, %v; want %q, %v", tc.tok, key, ok, tc.key, tc.keep)
		}
	}
}

func BenchmarkTaintCheck(b *testing.B) {
	s := NewTaintStore([]string{testCanary}, "Summarize the notes.")
	big := strings.Repeat("The quick brown fox jumps over the lazy dog 1234 times. ", 2000) // ~110 KB
	for i := range 10 {
		s.RecordResult("workspace", "read_note", "c"+string(rune('a'+i)), big)
	}
	args := json.RawMessage(`{"data":"` + strings.Repeat("lorem ipsum dolor sit amet ", 40) + `"}`)
	b.ReportAllocs()
	for b.Loop() {
		s.Check(args)
	}
}

// The rolling-hash index must agree with a plain search for the longest
// common run on small random texts over a tiny alphabet (many partial
// matches, some hash-bucket collisions).
func TestSharedRunAgreesWithPlainSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "ab "[rng.IntN(3)]
		}
		return string(b)
	}
	for i := range 400 {
		arg, res := gen(20+rng.IntN(60)), gen(20+rng.IntN(200))
		if i%3 == 0 { // plant a run of 20-40 bytes
			n := 20 + rng.IntN(21)
			if n > len(arg) {
				n = len(arg)
			}
			p := rng.IntN(len(res) + 1)
			res = res[:p] + arg[:n] + res[p:]
		}
		_, got := newRunIndex(arg).sharedRun(res, "")
		want := longestCommon(arg, res) >= MinSharedRunes
		if got != want {
			t.Fatalf("arg %q res %q: got %v, want %v", arg, res, got, want)
		}
	}
}

func longestCommon(a, b string) int {
	best := 0
	for i := range a {
		for j := range b {
			k := 0
			for i+k < len(a) && j+k < len(b) && a[i+k] == b[j+k] {
				k++
			}
			best = max(best, k)
		}
	}
	return best
}

func TestSecretPatterns(t *testing.T) {
	s := NewTaintStore(nil, "")
	s.AddSecretPatterns(regexp.MustCompile(`AKIA[0-9A-Z]{16}`))
	if hits := s.Check(json.RawMessage(`{"data":"nothing to see"}`)); len(hits) != 0 {
		t.Errorf("clean arguments hit %+v", hits)
	}
	hits := s.Check(json.RawMessage(`{"data":{"nested":"key AKIAABCDEFGHIJKLMNOP here"}}`))
	if len(hits) != 1 || hits[0].Kind != TaintSecret || hits[0].Evidence != "secret pattern #1" {
		t.Errorf("hits %+v", hits)
	}
}

package scan

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// equivInputs are texts that the hand-written matchers must answer
// exactly as the regular expressions they replace: edge cases at word
// boundaries plus every line of the blind register.
func equivInputs(t *testing.T) []string {
	t.Helper()
	in := []string{
		"", "whenever", "whenever.", "_whenever", "whenever_", "xwhenever", "wheneverx",
		"call it whenever you like", "after all, it works", "afterall", "after alls",
		"once a day", "once a days", "twice a month!", "regardless of case", "é regardless é",
		"as part of the flow", "as part ofx", "without asking the user", "danach", "during every run",
		"when in doubt", "if in doubt,", "if in doubts", "wif in doubt", "whenever whenever_x",
		"use this tool only to list files", "never use this", "use this", "me", "call me when done",
		"use this tool for all questions", "do not use this tool regardless", "use this tool to add numbers",
	}
	for _, p := range []string{"../../testdata/blind-register/poisoned.jsonl", "../../testdata/blind-register/benign.jsonl"} {
		f, err := os.Open(p)
		if err != nil {
			t.Fatalf("open %s: %v", p, err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			l := strings.ToLower(sc.Text())
			in = append(in, l)
			for _, s := range strings.Split(l, ". ") {
				in = append(in, s)
			}
		}
		f.Close()
	}
	if len(in) < 200 {
		t.Fatalf("only %d inputs", len(in))
	}
	return in
}

func TestHasTriggerMatchesRegexp(t *testing.T) {
	hits := 0
	for _, s := range equivInputs(t) {
		want := triggerRe.MatchString(s)
		if got := hasTrigger(s); got != want {
			t.Errorf("hasTrigger(%q) = %v, triggerRe says %v", s, got, want)
		}
		if want {
			hits++
		}
	}
	if hits < 10 {
		t.Fatalf("only %d inputs match; the comparison says little", hits)
	}
}

// TestLazyRegexpsCompile compiles every expression compiled lazily, so a
// bad one fails here rather than at its first use in a scan.
func TestLazyRegexpsCompile(t *testing.T) {
	if len(allLazy) < 60 {
		t.Fatalf("only %d lazy expressions registered", len(allLazy))
	}
	for _, l := range allLazy {
		if l.get().re.String() != l.expr {
			t.Errorf("expression %q compiled to %q", l.expr, l.get().re.String())
		}
	}
}

func TestReversedCandidateMatchesSearch(t *testing.T) {
	in := append(equivInputs(t), " eht", "eht ", " eht ", "a eht b", "RESU x", "xresu ", " ot", " ot ", "lla ", " lla ", " LLA ")
	hits := 0
	for _, s := range in {
		for _, v := range []string{s, strings.ToUpper(s), reverse(s)} {
			want := containsAny(v, reversedCues...)
			if got := reversedCandidate(v); got != want {
				t.Errorf("reversedCandidate(%q) = %v, a search per cue says %v", v, got, want)
			}
			if want {
				hits++
			}
		}
	}
	if hits < 10 {
		t.Fatalf("only %d inputs hold a cue", hits)
	}
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// TestHomeWipeGateKeepsMatches checks that the extra gate before
// homeWipeRe never hides a match of it.
func TestHomeWipeGateKeepsMatches(t *testing.T) {
	in := append(equivInputs(t), "rm -rf ~", "then rm -rf / now", "x(rm -r *)", "format the disk", "format drive", "confirm -rf ~", "formrm -rf ~")
	hits := 0
	for _, s := range in {
		if !homeWipeRe.MatchString(s) {
			continue
		}
		hits++
		if !strings.Contains(s, "format ") && !hasWordStart(s, "rm") {
			t.Errorf("gate drops %q, which homeWipeRe matches", s)
		}
	}
	if hits < 4 {
		t.Fatalf("only %d inputs match homeWipeRe", hits)
	}
}

package scan

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// roleReExpr is roleRe as mayHaveRole was written for: a change to the
// expression fails here until the prefilter is checked against it.
const roleReExpr = `(^|\n)\s*(system|assistant|developer)\s*:|<\|?(im_start|im_end|system|endoftext)\|?>|</?system>|\[/?inst\]|<<sys>>|\[system\]|</?instructions>|###\s*(system|instruction)` +
	`|<\s*/?\s*(?:sys|hidden|secret|global|instruction|instruction[_ -]override|override|directive|admin|root|internal|priority|inst|developer|system[_ -][a-z]+|assistant|hidden[_ -][a-z]+)\s*>` +
	`|\[+\s*(?:system|hidden|admin|override|directive|instruction|emergency directive|system instruction|system override|sys|internal)\b[^\]]*\]` +
	`|-{2,}\s*(?:[a-z]+\s+)*(?:system|override|directive|admin)\b(?:\s+[a-z]+)*\s*-{2,}` +
	`|\b_?system_(?:injection|prompt|instruction|override|directive|message)\b|<\|[a-z_]+\|>|<(?:start|end)_of_turn>|\{\{\s*system|(?:^|\n)\s*human\s*:`

// TestMayHaveRole: wherever roleRe matches, mayHaveRole holds, on the
// rule samples, the blind register's lines and their sentences, and
// random strings made of the expression's own pieces; and it does rule
// out most plain sentences, or it would save nothing.
func TestMayHaveRole(t *testing.T) {
	if roleRe.expr != roleReExpr {
		t.Fatalf("roleRe changed: check mayHaveRole against every alternative, then update roleReExpr")
	}
	in := equivInputs(t)
	for _, r := range Rules {
		for _, s := range append(append([]string{}, r.TruePositives...), r.FalsePositives...) {
			in = append(in, strings.ToLower(s))
		}
	}
	pieces := []string{"system", "assistant", "developer", "human", "im_start", "im_end", "endoftext", "inst", "instructions",
		"instruction", "sys", "hidden", "admin", "override", "directive", "emergency", "secret", "root", "internal", "priority",
		"_", "system_prompt", "system_message", "start_of_turn", "end_of_turn", "<", ">", "|", "/", "[", "]", "[[", "]]",
		"#", "###", "-", "--", "---", "{", "{{", ":", " ", "\n", "\t", "a", "note", "x_y", "please"}
	rng := rand.New(rand.NewPCG(7, 11))
	for k := 0; k < 200000; k++ {
		var b strings.Builder
		for n := rng.IntN(8) + 1; n > 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		in = append(in, b.String())
	}
	matches, ruledOut := 0, 0
	for _, s := range in {
		m := roleRe.MatchString(s)
		if m && !mayHaveRole(s) {
			t.Fatalf("roleRe matches %q, mayHaveRole says it cannot", s)
		}
		if m {
			matches++
		}
		if !mayHaveRole(s) {
			ruledOut++
		}
	}
	t.Logf("%d inputs, %d match, %d ruled out", len(in), matches, ruledOut)
	if matches < 1000 || ruledOut < len(in)/10 {
		t.Fatalf("%d of %d inputs match, %d ruled out; the comparison says little", matches, len(in), ruledOut)
	}
}

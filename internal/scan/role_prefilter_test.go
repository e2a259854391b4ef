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

// TestExpressionPrefilters: wherever modeSwitchRe or secretPathRe
// matches, its prefilter holds, on the rule samples, the blind register
// and random strings made of the expressions' own pieces. The
// expressions are pinned: a change fails here until the prefilter is
// checked against it.
func TestExpressionPrefilters(t *testing.T) {
	const modeExpr = `\byou(?: are|'re| r)\s+(?:now|no longer)\b|\bfrom now on\b|` +
		`\b(?:unrestricted|god|jailbreak|jailbroken|dan|unfiltered|uncensored|evil|developer|unlimited|no[- ]limits?)\s+mode\b|` +
		`(?:^|[.:;!\n\]>]\s*)act as\b|\bpretend (?:to be|you are|you're|that you)\b|\brole[- ]?play (?:as|that)\b|\brole change\b|` +
		`\byour new (?:role|persona|identity|instructions)\b|\byou have a new (?:role|persona|identity)\b|\bdo anything now\b|\bjailbr(?:eak|oken)`
	const secretExpr = `[\w~.-]*/[\w./-]*(?:secret|credential|passw|token|private[_-]?key|apikey|api[_-]key)[\w.-]*|[\w-]*(?:secret|credential|passw|token|apikey|api[_-]key)[\w-]*\.(?:txt|json|ya?ml|env|ini|pem|key|cfg|conf|toml)\b`
	cases := []struct {
		name   string
		re     *lazyRegexp
		expr   string
		pre    func(string) bool
		pieces []string
	}{
		{"modeSwitchRe", modeSwitchRe, modeExpr, mayModeSwitch, []string{"you", "you are", "you're", "you r", "your", "now", "no longer",
			"from", "on", "from now on", "god", "dan", "evil", "developer", "no-limits", "no limit", "mode", "act", "act as", "as",
			"pretend", "to be", "that you", "role", "role-play", "roleplay", "play", "change", "new", "persona", "identity",
			"instructions", "have a", "do anything", "anything now", "jailbreak", "jailbroken", "jailbr", " ", "\n", ".", ":", "]", ">", "!", "x"}},
		{"secretPathRe", secretPathRe, secretExpr, maySecretPath, []string{"secret", "credential", "passw", "token", "private_key",
			"private-key", "apikey", "api_key", "api-key", "/", "~", ".", "-", "_", "txt", "json", "yml", "yaml", "env", "ini", "pem",
			"key", "cfg", "conf", "toml", "home", "etc", " ", "a", "1", "\n"}},
	}
	base := equivInputs(t)
	for _, r := range Rules {
		for _, s := range append(append([]string{}, r.TruePositives...), r.FalsePositives...) {
			base = append(base, strings.ToLower(s))
		}
	}
	for _, c := range cases {
		if c.re.expr != c.expr {
			t.Fatalf("%s changed: check its prefilter against every alternative, then update the pinned expression", c.name)
		}
		in := append([]string{}, base...)
		rng := rand.New(rand.NewPCG(3, 5))
		for k := 0; k < 200000; k++ {
			var b strings.Builder
			for n := rng.IntN(7) + 1; n > 0; n-- {
				b.WriteString(c.pieces[rng.IntN(len(c.pieces))])
			}
			in = append(in, b.String())
		}
		matches, ruledOut := 0, 0
		for _, s := range in {
			m := c.re.MatchString(s)
			if m && !c.pre(s) {
				t.Fatalf("%s matches %q, its prefilter says it cannot", c.name, s)
			}
			if m {
				matches++
			}
			if !c.pre(s) {
				ruledOut++
			}
		}
		t.Logf("%s: %d inputs, %d match, %d ruled out", c.name, len(in), matches, ruledOut)
		if matches < 1000 || ruledOut < len(in)/20 {
			t.Fatalf("%s: %d of %d inputs match, %d ruled out; the comparison says little", c.name, matches, len(in), ruledOut)
		}
	}
}

package scan

import (
	"fmt"
	"strings"
)

// AllRules is every rule a finding can carry: the text rules of Rules and
// the drift rules a lockfile comparison produces.
func AllRules() []*Rule {
	return append(append([]*Rule{}, Rules...), driftRules...)
}

// SeverityLogic says in words how the rule's findings get their severity.
func (r *Rule) SeverityLogic() string {
	if r.ID == "drift.changed" {
		return "from what the change does: poisoning or a new required parameter is high, rewording low, whitespace info"
	}
	if r.ID == learnedRule.ID {
		return fmt.Sprintf("medium when the tool's (or server instructions') text scores %.2f or more, or one sentence alone scores %.3f or more; "+
			"not reported on a tool the other rules already flag at medium or above. "+
			"The same score holds the wording rules' findings at low on a tool that scores below %.2f (below %.2f for a finding they rate critical)", learnedFlag, learnedSentence, learnedHold, learnedHoldAgreed)
	}
	if r.Signals == 0 {
		return fmt.Sprintf("reported at %s", r.Severity)
	}
	return fmt.Sprintf("shows %s; the severity comes from every kind of evidence found on the same tool: "+
		"one kind alone is medium, two are high, three (or a secret with an outside destination, "+
		"or an override with concealment) are critical", r.Signals)
}

// Help is the rule's description, severity logic and an example of what
// it flags and what it leaves alone, as SARIF's help text and
// "mcpsec rules" show it.
func (r *Rule) Help() string {
	var b strings.Builder
	b.WriteString(r.Description)
	b.WriteString("\n\nSeverity: ")
	b.WriteString(r.SeverityLogic())
	b.WriteString(".")
	if len(r.TruePositives) > 0 {
		fmt.Fprintf(&b, "\n\nFlagged, for example: %q", sample(r.TruePositives[0]))
	}
	if len(r.FalsePositives) > 0 {
		fmt.Fprintf(&b, "\nNot flagged, for example: %q", sample(r.FalsePositives[0]))
	}
	return b.String()
}

// sample shortens a rule sample for display.
func sample(s string) string {
	if strings.HasPrefix(s, "big:") {
		return strings.TrimPrefix(s, "big:") + " (repeated past the size limit)"
	}
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}

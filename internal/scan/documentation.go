package scan

import (
	"regexp"
	"strings"
)

// Precision: what makes a sentence documentation of the tool's own
// contract rather than a demand aimed past it. Each helper here looks at
// the structure of one sentence (who acts, on what, under which
// condition) and clears the features that would otherwise read the
// sentence as an attack.

// prohibitedObjects are the features of data that a sentence forbids
// moving: "Do not include API keys or personal data in your query" names
// secrets only as what must stay out. It is secret hygiene.
const prohibitedObjects = fSolicit | fSecret | fSecretWeak | fCtx | fSrc | fPersonal | fUserData | fFile | fConvSrc | fContents | fVerbatim

// prohibitsFlow reports a sentence whose every verb of moving or reading
// data is negated ("never send", "do not include"): found, and none live.
// A passive description ("is never sent") counts as well; concealment
// ("do not tell the user") is judged elsewhere and never reaches here.
func prohibitsFlow(mt string, flowLive, flowFound, readLive, readFound bool) bool {
	if !flowFound && !readFound {
		return false
	}
	if (flowFound && flowLive) || (readFound && readLive) {
		return false
	}
	return negatedSentence(mt)
}

// negationCancelled reports a negator that governs a verb that itself
// undoes it: "don't forget to include", "never fail to send", "do not
// hesitate to paste" are orders, not prohibitions.
func negationCancelled(toks []string, neg, verb int) bool {
	for k := neg + 1; k < verb; k++ {
		switch strings.TrimSuffix(toks[k], "s") {
		case "forget", "fail", "hesitate", "neglect", "omit", "skip":
			return true
		}
	}
	return false
}

// A self-reference followed by a purpose or a condition ("Use this tool
// to renew any subscription", "Use this tool ONLY when the user has a
// screenshot", "Only call this tool if you can send a PUT") scopes when
// the tool applies: that is its contract. A decree claims a whole class
// of tasks, or ranks the tool over others: "for every currency question",
// "exclusively", "over all alternatives", "use only this tool".
var (
	selfUseRe = regexp.MustCompile(`\b(?:use|call|choose|pick|run|invoke|try|select)\s+(?:this|me)\b(?:\s+(?:tool|endpoint|function|server|service|api|one|command|action|method|resource|operation|integration|plugin))?` +
		`(?:\s+as\s+(?:the\s+|a\s+|your\s+)?(?:first|primary|main|default|go-to)(?:\s+(?:tool|choice|step|option))?)?\s+(\S+(?:\s+\S+)?)`)
	scopeRe  = regexp.MustCompile(`^(?:only\s+)?(?:to|when|whenever|if|once|after|before|unless|in\s+(?:case|order)|for\s+\w+ing)\b`)
	decreeRe = regexp.MustCompile(`\b(?:exclusively|solely|always|no matter|whatever|no exceptions?|instead of|rather than|in place of|regardless|above all|every time|at all times|in all cases|anything|everything|` +
		`(?:use|call|choose|pick|trust) only this|over (?:any|all|other|every|the other)|` +
		`(?:any|all|every|each) (?:\w+ )?(?:questions?|requests?|quer(?:y|ies)|tasks?|lookups?|searches|calculations?|conversions?|translations?|operations?|things?|needs?|prompts?))\b`)
	negatedUseRe = regexp.MustCompile(`\b(?:do not|don't|never|must not|should not|shouldn't|cannot|can't)\s+(?:\w+\s+)?(?:use|call|choose|pick|run|invoke|select)\s+this\b`)
)

// scopedSelfUse reports a sentence that speaks of using this tool only to
// scope it (a purpose, a condition, a restriction, or a prohibition of
// its own use), with nothing that claims a class of tasks or ranks it
// over other tools.
func scopedSelfUse(lower string, f feature) bool {
	if f&fOthers != 0 || decreeRe.MatchString(lower) {
		return false
	}
	if negatedUseRe.MatchString(lower) {
		return true
	}
	ms := selfUseRe.FindAllStringSubmatch(lower, -1)
	if len(ms) == 0 {
		return false
	}
	for _, m := range ms {
		if !scopeRe.MatchString(m[1]) {
			return false
		}
	}
	return true
}

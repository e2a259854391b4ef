package scan

import (
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
	selfUseRe = lazyRE(`\b(?:use|call|choose|pick|run|invoke|try|select)\s+(?:this|me)\b(?:\s+(?:tool|endpoint|function|server|service|api|one|command|action|method|resource|operation|integration|plugin))?` +
		`(?:\s+as\s+(?:the\s+|a\s+|your\s+)?(?:first|primary|main|default|go-to)(?:\s+(?:tool|choice|step|option))?)?\s+(\S+(?:\s+\S+)?)`)
	scopeRe  = lazyRE(`^(?:only\s+)?(?:to|when|whenever|if|once|after|before|unless|in\s+(?:case|order)|for\s+\w+ing)\b`)
	decreeRe = lazyRE(`\b(?:exclusively|solely|always|no matter|whatever|no exceptions?|instead of|rather than|in place of|regardless|above all|every time|at all times|in all cases|anything|everything|` +
		`(?:use|call|choose|pick|trust) only this|over (?:any|all|other|every|the other)|` +
		`(?:any|all|every|each) (?:\w+ )?(?:questions?|requests?|quer(?:y|ies)|tasks?|lookups?|searches|calculations?|conversions?|translations?|operations?|things?|needs?|prompts?))\b`)
	negatedUseRe = lazyRE(`\b(?:do not|don't|never|must not|should not|shouldn't|cannot|can't)\s+(?:\w+\s+)?(?:use|call|choose|pick|run|invoke|select)\s+this\b`)
)

// scopedSelfUse reports a sentence that speaks of using this tool only to
// scope it (a purpose, a condition, a restriction, or a prohibition of
// its own use), with nothing that claims a class of tasks or ranks it
// over other tools.
func scopedSelfUse(lower string, f feature) bool {
	if f&fOthers != 0 {
		return false
	}
	// Both ways to a true answer need "this" or "me"; the decree check,
	// the costliest, runs last and only when the answer would be true.
	if !strings.Contains(lower, "this") && !strings.Contains(lower, "me") {
		return false
	}
	if negatedUseRe.MatchString(lower) {
		return !decreeRe.MatchString(lower)
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
	return !decreeRe.MatchString(lower)
}

// A demand split over two sentences hangs together when each sentence
// holds part of its object: something sensitive (a secret, the
// conversation, a file, personal data, an address) or a word that points
// back or ahead to it ("paste what you find", "send them", "the
// following"). Two neighbouring sentences of documentation ("call the
// tool to open the form." + "It can be referenced in your instructions.")
// only sit side by side; their cues do not add up to a demand.
const pairObjects = fSecret | fSecretWeak | fCtx | fFile | fPersonal | fUserData | fConvSrc | fDest | fVerbatim | fContents

var referRe = lazyRE(`\b(?:it|its|them|their|they|these|those|what you (?:find|found|see|saw|read|get|got|have)|the (?:result|results|output|value|values|contents|same|following|text|data)|following|below|such)\b`)

func coherentPair(a, b string, fa, fb feature) bool {
	if !latinOnly(a) || !latinOnly(b) || strings.HasSuffix(strings.TrimSpace(a), ":") {
		// Other languages (letters beyond ASCII; an em dash or curly
		// quote in English prose does not count) refer back in ways a
		// word list does not see;
		// a lead-in ending in a colon introduces the next sentence.
		return true
	}
	holds := func(s string, f feature) bool {
		return f&pairObjects != 0 || referRe.MatchString(strings.ToLower(s))
	}
	return holds(a, fa) && holds(b, fb)
}

// softWrap reports a line break inside a sentence: the line so far ends
// without sentence punctuation and the next line goes on in lower case
// ("make sure to change the recipient\nto ..."). Hard-wrapped prose is one
// sentence to its reader; lists, headings and code lines start otherwise.
func softWrap(text string, start, nl int) bool {
	line := strings.TrimRight(text[start:nl], " \t\r")
	if line == "" {
		return false
	}
	switch line[len(line)-1] {
	case '.', '!', '?', ':', ';', '{', '}', '[', ']', ',', '>', '`', '|', '*', '#':
		return false
	}
	rest := strings.TrimLeft(text[nl+1:], " \t")
	return rest != "" && rest[0] >= 'a' && rest[0] <= 'z'
}

// pairFeatures is what a sentence lends to a neighbour for a rule about
// acting on other tools. A sentence stating where the tool itself sends
// data ("Sends call counts to metrics.example.net weekly") describes this
// tool; its destination is not one dictated for a sibling named next door
// ("Call disable_metrics to turn it off").
func pairFeatures(r *Rule, f feature) feature {
	if r.Signals&sigXTool != 0 && f&fDeclFlow != 0 && f&(fOtherTool|fForeignTool|fAnyTool) == 0 {
		return f &^ fDest
	}
	return f
}

// pairSignals are the rules about moving data or acting on other tools,
// whose split demands must hang together (coherentPair). An override or
// concealment in the next sentence ("No need to mention it.") applies to
// whatever came before, so those rules pair freely.
const pairSignals = sigSource | sigFlow | sigDest | sigXTool

// hideAdverbRe finds the manner adverbs that turn an order into a covert
// one ("quietly cc", "silently attach"), with the words around them.
var hideAdverbRe = lazyRE(`(\S*)\s*\b(?:silently|quietly|discreetly)\b\s*(\S*)`)

// describedManner reports a sentence whose only concealment cue is a
// manner adverb describing how something behaves ("direct edits fail
// silently", "commands can't silently route to the wrong file",
// "silently ignores missing files"), not how the model is to act.
func describedManner(lower string) bool {
	ms := hideAdverbRe.FindAllStringSubmatch(lower, -1)
	if len(ms) == 0 {
		return false
	}
	for _, m := range ms {
		prev, next := strings.Trim(m[1], ".,;:()*`'\""), strings.Trim(m[2], ".,;:()*`'\"")
		thirdPerson := func(w string) bool {
			return len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && w != "always" && w != "this"
		}
		switch {
		case thirdPerson(prev), thirdPerson(next), strings.HasSuffix(prev, "ed"), strings.HasSuffix(next, "ed"):
		case prev == "can't" || prev == "cannot" || prev == "won't" || prev == "never" || prev == "not" || prev == "doesn't":
		default:
			return false
		}
	}
	return lexOf(hideAdverbRe.ReplaceAllString(lower, "$1 $2"))&(fHide|fHideStrong) == 0
}

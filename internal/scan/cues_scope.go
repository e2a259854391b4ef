package scan

import "strings"

// Honest self-scope. "Use this tool for all questions about the user's own
// calendar" on a calendar tool, or "Prefer this tool over mental arithmetic
// for any conversion" on a converter, claims the tool's own domain and no
// more: that is its contract. A decree claims more than its domain ("for
// every question", "exclusively", "no exceptions"), ranks it over other
// tools, or tells the model to avoid them; those stay preference
// manipulation.

// absoluteRe marks a claim beyond the tool's domain or an exclusion of
// others, whatever the domain named.
var absoluteRe = lazyRE(`\b(?:exclusively|solely|always|only|no matter|whatever|no exceptions?|instead of|rather than|in place of|regardless|above all|every time|at all times|in all cases|anything|everything|first|over (?:any|all|other|every|the other))\b`)

// domainClaimRe finds the class of tasks a sentence claims: "all questions
// about X", "any conversion", "every currency lookup".
var domainClaimRe = lazyRE(`\b(?:any|all|every|each)\s+((?:[\w-]+\s+){0,2}?)(questions?|requests?|quer(?:y|ies)|tasks?|lookups?|searches|calculations?|conversions?|translations?|operations?|needs?|prompts?)\b(?:\s+(?:about|on|for|involving|regarding|concerning|with|in)\s+([^.;:]{0,50}))?`)

// ownDomainPreference reports a self-preference whose every claimed class
// of tasks lies in the tool's own topic, with nothing absolute about it.
func (sc *scanner) ownDomainPreference(lower string) bool {
	if sc == nil || sc.cur == nil || sc.cur.tool == nil || absoluteRe.MatchString(lower) {
		return false
	}
	if sc.unitLex&(fInstead|fDisparage) != 0 && sc.namesAnotherTool() || otherBadRe.MatchString(lower) {
		// The same text steers the model away from something ("don't
		// use it", "the other one is outdated"): a ranking, not a scope.
		return false
	}
	ms := domainClaimRe.FindAllStringSubmatch(lower, -1)
	if len(ms) == 0 {
		return false
	}
	topic := sc.cur.topic()
	for _, m := range ms {
		words := strings.FieldsFunc(m[1]+" "+m[2]+" "+m[3], func(r rune) bool { return !(r >= 'a' && r <= 'z' || r == '\'') })
		own := false
		for _, w := range words {
			if topicHas(topic, strings.TrimSuffix(w, "'s")) {
				own = true
				break
			}
		}
		if !own {
			return false
		}
	}
	return true
}

// namesAnotherTool reports text of the unit naming a tool other than this
// one: a sibling slug, or any tool of the catalog.
func (sc *scanner) namesAnotherTool() bool {
	self := sc.cur.tool.Name
	for tok := range toolSlugs(sc.unitText) {
		if !strings.EqualFold(tok, self) {
			return true
		}
	}
	other, foreign := sc.names.refs(sc.unitText, "", self, sc.params())
	return other || foreign || othersRe.MatchString(strings.ToLower(sc.unitText))
}

// topicHas matches a word against the topic words by a shared stem of at
// least five letters ("conversion" and "convert", "calendars" and
// "calendar").
func topicHas(topic map[string]bool, w string) bool {
	if len(w) < 4 {
		return false
	}
	if topic[w] {
		return true
	}
	for t := range topic {
		n := 0
		for n < len(t) && n < len(w) && t[n] == w[n] {
			n++
		}
		if n >= 5 || n >= 4 && (n == len(t) || n == len(w)) {
			return true
		}
	}
	return false
}

package scan

import (
	"strings"
	"unicode"
)

// Negated acts. A sentence that says what must not happen or what the tool
// cannot do ("Never delete the default branch", "Never publish files that
// contain tokens", "This tool cannot change the event itself") documents a
// limit; the same verbs without the negation are orders.

// latinOnly reports text whose letters are all ASCII: punctuation such as
// an em dash does not make English prose another language.
func latinOnly(s string) bool {
	for _, r := range s {
		if r >= 0x80 && unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// prohibitionOpeners open a sentence with a prohibition addressed to the
// reader.
var prohibitionOpeners = []string{"never ", "do not ", "don't ", "dont ", "must not ", "should not ", "you must never ", "you must not ", "please do not ", "please don't "}

// openingProhibition reports a sentence that opens with a prohibition
// whose verb is not one that undoes it ("never forget to", "do not
// hesitate to").
func openingProhibition(mt string) bool {
	t := strings.TrimLeft(mt, " ")
	for _, p := range prohibitionOpeners {
		if strings.HasPrefix(t, p) {
			toks := strings.Fields(t)
			n := len(strings.Fields(p))
			if n < len(toks) && negationCancelled(toks, n-1, n+1) {
				return false
			}
			return true
		}
	}
	return false
}

var (
	tamperVerbs    = map[string]bool{"change": true, "set": true, "replace": true, "redirect": true, "modify": true, "alter": true, "override": true, "overwrite": true, "swap": true}
	limitNegators  = map[string]bool{"cannot": true, "can't": true, "not": true, "never": true, "doesn't": true, "won't": true, "don't": true, "didn't": true}
	recipientWords = []string{" bcc", " cc ", "recipient", " to field"}
)

// negatedTamper reports a sentence whose every verb of altering something
// is negated ("cannot change the event itself", "does not modify the
// message") and that names no recipient being added.
func negatedTamper(mt string) bool {
	if containsAny(mt, recipientWords...) {
		return false
	}
	toks := strings.Fields(mt)
	found := false
	for i, t := range toks {
		if !tamperVerbs[t] {
			continue
		}
		found = true
		neg := i > 0 && limitNegators[toks[i-1]] || i > 1 && limitNegators[toks[i-2]]
		if !neg {
			return false
		}
	}
	return found
}

// envAssignment reports an argument-forcing match whose object is an
// environment variable ("set JIRA_URL to your site"): setup of the server's
// own configuration, done by whoever installs it.
func envAssignment(sentence, lower string) bool {
	locs := argumentForceRe.FindAllStringIndex(lower, -1)
	if len(locs) == 0 || len(lower) != len(sentence) {
		return false
	}
	for _, l := range locs {
		m := sentence[l[0]:l[1]]
		if !hasEnvName(m) {
			return false
		}
	}
	return true
}

package scan

import (
	"path"
	"strings"
)

// The tool's own objects, seen from the structure of its schema and its
// sentences rather than from words alone.

// noteLabelRe is a lead-in label ("Note:", "NB:") that opens a remark; the
// word names no field.
var noteLabelRe = lazyRE(`^\W*(?:note|notes|nb|n\.b\.)\s*[:\-–—]\s*`)

// labelOnlyField reports a sentence whose only field word is its "Note:"
// label.
func labelOnlyField(sentence, lower string) bool {
	loc := noteLabelRe.FindStringIndex(lower)
	if loc == nil || len(lower) != len(sentence) {
		return false
	}
	return lexOf(sentence[loc[1]:])&fField == 0
}

// relativePronouns open a clause whose verbs have the noun before them as
// subject: "report servers that pass secrets on the command line" says
// what the servers do, not what the reader is to do.
var relativePronouns = map[string]bool{"that": true, "which": true, "who": true}

// notAntecedent are words before "that" which make it a conjunction
// introducing an order ("make sure that you pass", "so that").
var notAntecedent = map[string]bool{"sure": true, "ensure": true, "so": true, "such": true, "check": true, "verify": true, "confirm": true,
	"note": true, "remember": true, "know": true, "is": true, "are": true, "says": true, "say": true, "means": true, "given": true, "now": true}

// inRelativeClause reports a verb at toks[i] inside a relative clause that
// began at most a few words earlier, with no "you" in between.
func inRelativeClause(toks []string, i int) bool {
	for k := i - 1; k >= 0 && k >= i-20; k-- {
		switch toks[k] {
		case "you", "your", "yourself", "please", ";", "and", "then":
			// "the value that appears there and send it": after "and"
			// the order is the reader's again.
			return false
		}
		if relativePronouns[toks[k]] {
			return k > 0 && !notAntecedent[toks[k-1]] && !negators[toks[k-1]]
		}
	}
	return false
}

// ownPath reports a sentence naming a file that is the default of one of
// the tool's own parameters (an auditor whose
// config_path defaults to the very config file it audits).
func (c *contract) ownPath(lower string) bool {
	if c == nil || c.tool == nil {
		return false
	}
	found := false
	walkSchemaValues(c.tool.InputSchema, 0, func(v string) bool {
		if !strings.Contains(v, "/") && !strings.Contains(v, ".") || strings.ContainsAny(v, " \t\n") && !strings.Contains(v, "Application Support") {
			return true
		}
		base := strings.ToLower(path.Base(v))
		if len(base) >= 6 && strings.Contains(lower, base) {
			found = true
			return false
		}
		return true
	})
	return found
}

// walkSchemaValues visits the string defaults of every
// parameter at any depth; visit returns false to stop.
func walkSchemaValues(v any, depth int, visit func(string) bool) bool {
	m, ok := v.(map[string]any)
	if !ok || depth > 16 {
		return true
	}
	for _, k := range []string{"default"} {
		for _, s := range stringsIn(m[k]) {
			if !visit(s) {
				return false
			}
		}
	}
	for k, sub := range m {
		switch k {
		case "properties", "$defs", "definitions":
			if props, ok := sub.(map[string]any); ok {
				for _, p := range props {
					if !walkSchemaValues(p, depth+1, visit) {
						return false
					}
				}
			}
		case "items", "additionalProperties":
			if !walkSchemaValues(sub, depth+1, visit) {
				return false
			}
		}
	}
	return true
}

// derivativeRe finds what stands in for a secret on its way out: a hash,
// a prefix, a checksum. The secret itself does not leave.
var derivativeRe = lazyRE(`\b(?:hash|hashes|hashed|digest|prefix|prefixes|first \d+|checksum|fingerprint|truncated|hmac[\w-]*|signature)\b`)

// ownInputDeclared reports a stated flow whose only sensitive object is
// a derivative of the tool's own secret parameter ("only a hash prefix of the password is
// sent to the breach API"), with nothing added on: the tool disclosing
// how it uses its input. Anything beyond that (the user's data, the
// conversation, files, "also", concealment) keeps the flow a finding.
func (sc *scanner) ownInputDeclared(f feature, lower string) bool {
	return f&fDeclFlow != 0 && derivativeRe.MatchString(lower) && f&(fSecret|fSecretWeak) != 0 &&
		f&(fUserData|fCtx|fConvSrc|fFile|fHide|fHideStrong|fUnreq|fPersonal|fAnyTool|fOtherTool|fForeignTool) == 0 &&
		sc.cur.secretParam(lower)
}

// agentPlurals are subjects that act on their own: "apps read them from
// environment variables" says what the apps do.
var agentPlurals = map[string]bool{"apps": true, "applications": true, "servers": true, "clients": true, "programs": true, "services": true,
	"processes": true, "containers": true, "workers": true, "jobs": true, "functions": true, "sdks": true, "libraries": true, "browsers": true}

// hasSubject reports a verb at toks[i] whose subject stands right before
// it.
func hasSubject(toks []string, i int) bool { return i > 0 && agentPlurals[toks[i-1]] }

var fromServiceRe = lazyRE(`\bfrom (?:the |a |an )?([a-z][a-z0-9.-]{2,})`)

// fromOwnService reports data whose origin is the service, named as a
// proper noun, that this server or tool wraps ("user data from Reddit" on a Reddit server): the server's
// own domain, not what the model holds.
func (sc *scanner) fromOwnService(sentence, lower, server string) bool {
	if len(sentence) != len(lower) {
		return false
	}
	ms := fromServiceRe.FindAllStringSubmatchIndex(lower, -1)
	if len(ms) == 0 {
		return false
	}
	own := map[string]bool{}
	for _, w := range identWordsOf(server) {
		if len(w) >= 4 && w != "server" && w != "tools" && w != "buddy" && w != "client" {
			own[w] = true
		}
	}
	if sc.cur != nil && sc.cur.tool != nil {
		for _, w := range identWordsOf(sc.cur.tool.Name) {
			if len(w) >= 4 {
				own[w] = true
			}
		}
	}
	for _, m := range ms {
		// A service is a proper name: "from Reddit", not "from the
		// browser profile folders".
		if c := sentence[m[2]]; c < 'A' || c > 'Z' {
			continue
		}
		if own[strings.TrimRight(lower[m[2]:m[3]], ".")] {
			return true
		}
	}
	return false
}

// purposeSafetyRe is safety named as a purpose ("dry-run for safety", "for
// safety reasons"): the tool protects, nothing is removed.
var purposeSafetyRe = lazyRE(`\b(?:for|as a) (?:\w+ )?(?:safety|security)(?: reasons?| measures?| net| check)?\b`)

// ownMarkupFormat reports a tool whose own topic is a markup format (an
// XML diagram editor, an HTML renderer): tags in its text are its input.
func (c *contract) ownMarkupFormat() bool {
	if c == nil || c.tool == nil {
		return false
	}
	t := c.topic()
	return t["xml"] || t["html"] || t["svg"] || t["markup"] || t["mxgraph"] || t["xhtml"]
}

// ownContextWord reports a sentence whose only conversation word is
// "context" on a tool whose own topic is a context (a kubectl context, a
// browser context): the tool's object, not the chat.
func (sc *scanner) ownContextWord(lower string) bool {
	if sc.cur == nil || sc.cur.tool == nil || !sc.cur.topic()["context"] || !strings.Contains(lower, "context") {
		return false
	}
	return lexOf(strings.ReplaceAll(lower, "context", "thing"))&fCtx == 0
}

package scan

import (
	"iter"
	"strings"
)

// Structural cues that need word order rather than single phrases: role
// switches, a tool speaking of itself, unnamed other tools, inserting
// itself before other work, bulk collection, references to the tool's own
// parameters.
var (
	modeSwitchRe = lazyRE(`\byou(?: are|'re| r)\s+(?:now|no longer)\b|\bfrom now on\b|` +
		`\b(?:unrestricted|god|jailbreak|jailbroken|dan|unfiltered|uncensored|evil|developer|unlimited|no[- ]limits?)\s+mode\b|` +
		`(?:^|[.:;!\n\]>]\s*)act as\b|\bpretend (?:to be|you are|you're|that you)\b|\brole[- ]?play (?:as|that)\b|\brole change\b|` +
		`\byour new (?:role|persona|identity|instructions)\b|\byou have a new (?:role|persona|identity)\b|\bdo anything now\b|\bjailbr(?:eak|oken)`)
	selfRefRe     = lazyRE(`\bthis (?:\w+ )?(?:tool|function|server|service|plugin|api|endpoint|integration|converter|translator|calculator|engine|utility|one)\b|\b(?:use|choose|call|pick) me\b`)
	othersRe      = lazyRE(`\b(?:other|alternative|competing|rival|third-party|built-in|existing|similar|any other|all other|every other|inferior|outdated|lesser|obsolete)\s+(?:[\w-]+\s+)?(?:tools?|servers?|functions?|services?|providers?|plugins?|apis?|converters?|translators?|calculators?|engines?|implementations?|versions?|sources?|geocoders?|lookups?|apps?|utilities|libraries|integrations?|solutions?|options)\b|\balternatives\b|\bcompetitors?\b`)
	chooseFirstRe = lazyRE(`\b(?:choose|select|pick|prefer|prioriti[sz]e|try|use)\s+(?:this|me)\b[^.]*\b(?:first|before any(?:thing)? else)\b`)
	selfInsertRe  = lazyRE(`\bbefore (?:you )?(?:execut\w*|call\w*|us\w*|run\w*|perform\w*|do\w*|invok\w*|process\w*|answer\w*|respond\w*|handl\w*)\s+(?:(?:any|every|each|all|other)\b|(?:\w+\s+){0,3}?(?:operation|tool|function|command|request|calculation|action|step|query|task)s?\b)`)
	selfCallRe    = lazyRE(`\b(?:execute|call|use|run|invoke|trigger) this (?:tool|function)\b`)
	solicitRe     = lazyRE(`\b(?:store|save|record|log|put|dump|collect|keep|write|paste|send|submit|give|share)\b\s+(?:\w+\s+){0,2}?(?:all|every|any)\s+(?:of\s+)?(?:the\s+|your\s+)?(?:\w+\s+)?(?:important|sensitive|private|personal|relevant|confidential|secret|valuable|interesting)\s+(?:values?|data|information|info|details?|facts?|things?|items?|credentials?|content|context|secrets?)\b`)
	letKnowRe     = lazyRE(`\blet\s+\S+\s+know\b|\bloop\s+\S+\s+in\b|\bkeep\s+\S+\s+(?:posted|informed|in the loop)\b`)
	siblingSrcRe  = lazyRE(`\b(?:from|by|using|via|with)\s+(?:the\s+)?(?:get|list|fetch|read|login|auth|create|obtain|search|find)[_-]\w+|\b(?:from|by|using|via) the [\w-]+ tool\b`)
)

// intentFeatures computes the word-order cues of one sentence. The hint
// bits from the Aho-Corasick pass (rawHints) gate every regular
// expression, so most text costs one automaton pass.
func (sc *scanner) intentFeatures(sentence, lower string, h int, lex feature) feature {
	var f feature
	if h&hintMode != 0 && mayModeSwitch(lower) && modeSwitchRe.MatchString(lower) {
		f |= fModeSwitch
	}
	if h&hintMode != 0 && strings.Contains(sentence, "DAN") && danRe.MatchString(sentence) {
		f |= fModeSwitch
	}
	if h&hintSelf != 0 {
		if containsAny(lower, "this tool", "this function", "this server", "this service", "this one", "this api", "this plugin") {
			f |= fSelfRef
		} else if strings.Contains(lower, "this ") && selfRefRe.MatchString(lower) {
			f |= fSelfRef
		}
	}
	if h&hintFirst != 0 && chooseFirstRe.MatchString(lower) {
		f |= fUniversal | fSelfRef
	}
	if h&hintSelf != 0 && h&hintBefore != 0 && strings.Contains(lower, "before ") && selfInsertRe.MatchString(lower) && selfCallRe.MatchString(lower) {
		f |= fSelfInsert
	}
	if h&hintOthers != 0 && othersRe.MatchString(lower) {
		f |= fOthers
	}
	if f&fSelfRef != 0 && (scopedSelfUse(lower, f) || f&fOthers == 0 && sc.ownDomainPreference(lower)) {
		f &^= fSelfRef
	}
	if h&hintQuant != 0 && h&hintSensitiveAdj != 0 && solicitRe.MatchString(lower) {
		f |= fSolicit
	}
	if h&hintLet != 0 && letKnowRe.MatchString(lower) {
		f |= fFlow
	}
	if h&hintSecretWord != 0 && maySecretPath(lower) && secretPathRe.MatchString(lower) {
		f |= fFile | fSrc
	}
	if strings.HasPrefix(lower, "after ") {
		f |= fUnreq
	}
	// The sibling cues only veto rules about moving data, choosing tools
	// or taking them over; skip them when nothing of the kind is present.
	all := lex | f
	hasSep := strings.ContainsAny(lower, "_-")
	if all&(fFlow|fRead|fCallTool|fReply|fPersonal|fConvSrc) != 0 && h&hintSibA != 0 && (hasSep || h&hintSibB != 0) && siblingSrcRe.MatchString(lower) {
		f |= fSiblingOut
	}
	if all&(fSelfRef|fOthers|fHijack|fFlow|fRead|fInstead|fOvVerb|fDisparage) != 0 && hasSep && hasSiblingSlug(sentence) {
		f |= fNamesSibling
	}
	if sc != nil && sc.cur != nil && sc.cur.mentionsParam(sentence) {
		f |= fParamRef
	}
	return f
}

// intentUpperBound over-approximates intentFeatures from the whole
// string's hint bits alone (intentFeatures is gated on them), for the
// prefilter: every cue that could be found is assumed found.
func (sc *scanner) intentUpperBound(h int) feature {
	var f feature
	if h&hintMode != 0 {
		f |= fModeSwitch
	}
	if h&hintSelf != 0 {
		f |= fSelfRef
		if h&hintBefore != 0 {
			f |= fSelfInsert
		}
	}
	if h&hintFirst != 0 {
		f |= fSelfRef | fUniversal
	}
	if h&hintOthers != 0 {
		f |= fOthers
	}
	if h&hintQuant != 0 && h&hintSensitiveAdj != 0 {
		f |= fSolicit
	}
	if h&hintLet != 0 {
		f |= fFlow
	}
	if h&hintSecretWord != 0 {
		f |= fFile | fSrc
	}
	if h&hintAfter != 0 {
		f |= fUnreq
	}
	if sc != nil && sc.cur != nil && len(sc.cur.params) > 0 {
		f |= fParamRef
	}
	return f
}

// refineIntent narrows f, intentUpperBound(h) with fRole when the role
// check is gated open, by what the bounded text itself holds. A long
// description that has one such word somewhere opens these gates for
// every one of its sentences; most of them hold none of what the checks
// look for. text and lower are a sentence or the whole string, so every
// check here is one a longer text passes too: a substring, or the strings
// an expression's matches must contain (lazyRegexp.may).
func refineIntent(f feature, h int, text, lower string) feature {
	if f&fModeSwitch != 0 && !(mayModeSwitch(lower) && modeSwitchRe.may(lower) || strings.Contains(text, "DAN")) {
		f &^= fModeSwitch
	}
	// Both self-reference checks need "this ".
	self := h&hintSelf != 0 && strings.Contains(lower, "this ")
	// Every match of chooseFirstRe holds one of these; two substring
	// searches cost less than its filter's automaton pass.
	first := h&hintFirst != 0 && (strings.Contains(lower, "first") || strings.Contains(lower, "before any"))
	if !self && !first {
		f &^= fSelfRef
	}
	if !first {
		f &^= fUniversal
	}
	if !self || !strings.Contains(lower, "before ") {
		f &^= fSelfInsert
	}
	if f&fOthers != 0 && !othersRe.may(lower) {
		f &^= fOthers
	}
	if f&fSolicit != 0 && !solicitRe.may(lower) {
		f &^= fSolicit
	}
	if f&fFlow != 0 && !letKnowRe.may(lower) {
		f &^= fFlow
	}
	if f&fFile != 0 && !maySecretPath(lower) {
		f &^= fFile | fSrc
	}
	// intentFeatures asks for a sentence that opens with "after "; a
	// longer text may hold it anywhere.
	if f&fUnreq != 0 && !strings.Contains(lower, "after ") {
		f &^= fUnreq
	}
	if f&fRole != 0 && !(mayHaveRole(lower) && roleRe.may(lower)) {
		f &^= fRole
	}
	return f
}

var danRe = lazyRE(`\bDAN\b`)

// scriptRe finds a script or binary to fetch and run: a URL or path
// ending in a script extension, or a download piped into a shell.
var (
	scriptRe = lazyRE(`(?:https?://|[~/\]])\S*\.(?:sh|bash|ps1|bat|cmd|exe|scr|vbs|command)\b`)
	pipeRe   = lazyRE(`\b(?:curl|wget|iwr|invoke-webrequest)\b[^|]{0,200}\|\s*(?:sudo\s+)?(?:sh|bash|zsh|iex|python3?)\b`)
)
var runRe = lazyRE(`\b(?:run|execute|exec|launch|start|source|chmod|executable|invoke)\b`)

// secretPathRe finds file paths whose own name says they hold secrets
// (vault/secret.txt, config/credentials.yml, keys/private.pem).
// maySecretPath is a necessary condition for secretPathRe to match: its
// first alternative holds "/", its second a dotted extension. The hint
// gate is the whole string's; most of its sentences hold neither.
// (TestExpressionPrefilters keeps the two in step.)
func maySecretPath(s string) bool {
	return strings.Contains(s, "/") || containsAny(s, ".txt", ".json", ".yml", ".yaml", ".env", ".ini", ".pem", ".key", ".cfg", ".conf", ".toml")
}

// mayModeSwitch is a necessary condition for modeSwitchRe to match: every
// alternative holds one of these literals ("you are now", "your new
// role" and "you have a new role" hold "you", "role-play" and "role
// change" hold "role"). (TestExpressionPrefilters keeps the two in step.)
func mayModeSwitch(s string) bool {
	return containsAny(s, "you", "mode", "act as", "pretend ", "role", "jailbr", "from now on", "do anything now")
}

var secretPathRe = lazyRE(`[\w~.-]*/[\w./-]*(?:secret|credential|passw|token|private[_-]?key|apikey|api[_-]key)[\w.-]*|[\w-]*(?:secret|credential|passw|token|apikey|api[_-]key)[\w-]*\.(?:txt|json|ya?ml|env|ini|pem|key|cfg|conf|toml)\b`)

// hasSiblingSlug spots an identifier that reads as a tool name
// (get_report, list-buckets): advice that names a specific sibling is
// navigation, not a decree against unnamed others.
func hasSiblingSlug(s string) bool {
	for range toolSlugs(s) {
		return true
	}
	return false
}

// toolSlugs yields the identifiers of s that read as tool names: joined by
// '_' or '-' and shaped like one (toolLikeSlug), trailing dots trimmed.
func toolSlugs(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := 0; i < len(s); {
			if !isIdentByte(s[i]) {
				i++
				continue
			}
			j := i
			for j < len(s) && isIdentByte(s[j]) {
				j++
			}
			tok := strings.Trim(s[i:j], ".")
			i = j
			if strings.ContainsAny(tok, "_-") && toolLikeSlug(tok) && !yield(tok) {
				return
			}
		}
	}
}

// mentionsParam reports a sentence naming one of the tool's own
// parameters: long names as words, one- and two-letter names only when
// quoted or after "to", "as", "in", "into", "parameter", "argument" or
// "field".
func (c *contract) mentionsParam(s string) bool {
	if len(c.params) == 0 {
		return false
	}
	lower := strings.ToLower(s)
	for i := 0; i < len(lower); {
		if !isIdentByte(lower[i]) || lower[i] == '.' || lower[i] == '-' {
			i++
			continue
		}
		j := i
		for j < len(lower) && isIdentByte(lower[j]) && lower[j] != '.' {
			j++
		}
		tok := lower[i:j]
		start := i
		i = j
		if !c.params[tok] {
			continue
		}
		if len(tok) >= 3 {
			return true
		}
		if start > 0 && strings.IndexByte("`'\"", lower[start-1]) >= 0 {
			return true
		}
		before := strings.Fields(lower[max(0, start-12):start])
		if len(before) > 0 {
			switch before[len(before)-1] {
			case "to", "as", "in", "into", "parameter", "argument", "field", "param":
				return true
			}
		}
	}
	return false
}

// secretParam reports whether the sentence names one of the tool's own
// parameters whose name says it holds a secret (api_key, token,
// password): the secret the sentence talks about is the tool's input.
func (c *contract) secretParam(lower string) bool {
	if c == nil {
		return false
	}
	for p := range c.params {
		if len(p) < 4 || !strings.Contains(lower, p) {
			continue
		}
		for _, w := range []string{"token", "key", "secret", "password", "passphrase", "credential", "auth"} {
			if strings.Contains(p, w) {
				return true
			}
		}
	}
	return false
}

// ownSafetyOption reports a tool whose parameters are themselves safety
// switches (skip_safety_checks, bypass_filter): documenting the switch is
// not an order to drop the model's safety.
func (c *contract) ownSafetyOption() bool {
	if c == nil {
		return false
	}
	for p := range c.params {
		for _, w := range []string{"safety", "safe", "guard", "filter", "check", "verify", "validation", "restrict", "moderation", "censor"} {
			if strings.Contains(p, w) {
				return true
			}
		}
	}
	return false
}

// runsScript reports a sentence that orders a fetched script or binary
// run: a script URL or path, or a download piped to a shell, with an
// order to run or make it executable. Features are full (64 cues), so the
// engine checks this per sentence itself.
func runsScript(sentence, lower string) bool {
	if rawHints(lower)&hintScript == 0 {
		return false
	}
	if !(scriptRe.MatchString(lower) && runRe.MatchString(lower)) && !(strings.Contains(lower, "|") && pipeRe.MatchString(lower)) {
		return false
	}
	return imperativeClause(sentence) || lexOf(sentence)&(fModal|fPrereq) != 0
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// scriptSentences returns the sentences worth the fetched-script check:
// none unless the text mentions a script or a pipe into a shell.
func scriptSentences(text string) []string {
	if strings.IndexByte(text, '|') < 0 && !scriptExtension(text) {
		return nil
	}
	return splitSentences(text)
}

// scriptExtension is a one-pass check for ".sh", ".ps1", ".exe" and the
// other script extensions after any dot.
func scriptExtension(text string) bool {
	for i := strings.IndexByte(text, '.'); i >= 0 && i+2 < len(text); {
		rest := strings.ToLower(text[i+1 : min(len(text), i+9)])
		for _, ext := range []string{"sh", "ps1", "exe", "bat", "cmd", "vbs", "scr", "command", "bash"} {
			if strings.HasPrefix(rest, ext) && (len(rest) == len(ext) || !isAlpha(rest[len(ext)]) && !(rest[len(ext)] >= '0' && rest[len(ext)] <= '9')) {
				return true
			}
		}
		j := strings.IndexByte(text[i+1:], '.')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return false
}

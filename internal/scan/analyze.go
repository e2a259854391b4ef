package scan

import (
	"regexp"
	"strings"
	"unicode"
)

// splitSentences cuts text into sentences at line breaks and at sentence
// punctuation followed by a space (so paths like ~/.ssh stay whole).
func splitSentences(text string) []string {
	var out []string
	start := 0
	rs := []rune(text)
	emit := func(end int) {
		if s := strings.TrimSpace(string(rs[start:end])); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i, r := range rs {
		switch r {
		case '\n', '。', '！', '？', '；':
			emit(i + 1)
		case '.', '!', '?', ';':
			if i+1 >= len(rs) || unicode.IsSpace(rs[i+1]) {
				if r == '.' && abbreviation(rs[start:i]) {
					continue
				}
				emit(i + 1)
			}
		}
	}
	if start < len(rs) {
		emit(len(rs))
	}
	return out
}

var abbreviations = map[string]bool{"e.g": true, "i.e": true, "etc": true, "vs": true, "cf": true, "approx": true, "incl": true, "no": true, "z.b": true, "bzw": true, "p.ej": true, "ex": true, "eg": true, "ie": true}

// abbreviation reports whether the word before a period is a common
// abbreviation, so "e.g. X" stays in one sentence.
func abbreviation(before []rune) bool {
	j := len(before)
	i := j
	for i > 0 && !unicode.IsSpace(before[i-1]) && before[i-1] != '(' {
		i--
	}
	return abbreviations[strings.ToLower(string(before[i:j]))]
}

// imperativeVerbs open a clause that gives an order ("Send ...", "Do not
// ...", "Always ...").
var imperativeVerbs = map[string]bool{
	"send": true, "include": true, "read": true, "copy": true, "paste": true, "call": true, "forward": true, "append": true,
	"attach": true, "put": true, "add": true, "set": true, "insert": true, "fill": true, "pass": true, "write": true, "upload": true,
	"post": true, "open": true, "load": true, "fetch": true, "retrieve": true, "grab": true, "collect": true, "gather": true,
	"extract": true, "delete": true, "remove": true, "run": true, "execute": true, "invoke": true, "use": true, "do": true,
	"don't": true, "never": true, "always": true, "first": true, "please": true, "remember": true, "make": true, "ensure": true,
	"transcribe": true, "echo": true, "mirror": true, "place": true, "populate": true, "embed": true, "share": true, "store": true,
	"save": true, "report": true, "log": true, "provide": true, "supply": true, "submit": true, "cat": true, "obtain": true,
	"email": true, "leak": true, "transfer": true, "wipe": true, "erase": true, "drop": true, "notify": true, "tell": true,
	"mention": true, "hide": true, "keep": true, "ignore": true, "disregard": true, "forget": true, "quote": true, "dump": true,
	"relay": true, "reproduce": true, "duplicate": true, "stash": true, "carry": true, "deliver": true, "bcc": true, "cc": true,
	"be": true, "also": true, "then": true, "change": true, "replace": true, "redirect": true, "modify": true,
	"route": true, "swap": true, "override": true, "bypass": true, "skip": false,
}

var clauseSplit = regexp.MustCompile(`[,:;()\[\]<>\-–—*"]+`)

// imperativeClause reports whether any clause of the sentence opens
// with an imperative verb.
func imperativeClause(sentence string) bool {
	for _, clause := range clauseSplit.Split(strings.ToLower(sentence), -1) {
		fields := strings.Fields(clause)
		if len(fields) == 0 {
			continue
		}
		w := strings.Trim(fields[0], "'`.!?")
		if imperativeVerbs[w] {
			return true
		}
	}
	return false
}

var sensitivePaths = []string{
	"~/.ssh", ".ssh/", "id_rsa", "id_ed25519", "id_ecdsa", ".aws/credentials", ".aws/config", "credentials.json", ".npmrc",
	".netrc", ".pgpass", "/etc/passwd", "/etc/shadow", ".git-credentials", ".kube/config", ".docker/config.json",
	".bash_history", ".zsh_history", "claude_desktop_config.json", "mcp.json", ".gnupg", "authorized_keys", "wallet.dat",
	"secrets.yaml", "secrets.yml", "secrets.json", "gh/hosts.yml", "login.keychain", "cookies.sqlite", "/proc/self/environ",
	".pypirc", "service-account.json", "application_default_credentials",
}

var dotEnv = regexp.MustCompile("(^|[\\s/~'\"`(])\\.env(\\.[a-z]+)?($|[\\s'\"`),:;.])")

// hasSensitivePath spots paths of files that hold secrets.
func hasSensitivePath(lower string) bool {
	for _, p := range sensitivePaths {
		if strings.Contains(lower, p) {
			return true
		}
	}
	return strings.Contains(lower, ".env") && dotEnv.MatchString(lower)
}

var (
	emailRe = regexp.MustCompile(`[a-z0-9._%+\-]+@[a-z0-9\-]+(\.[a-z0-9\-]+)+`)
	urlRe   = regexp.MustCompile(`(https?|wss?|ftp)://[^\s]+`)
	ipRe    = regexp.MustCompile(`\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b`)
	roleRe  = regexp.MustCompile(`(^|\n)\s*(system|assistant|developer)\s*:|<\|?(im_start|im_end|system|endoftext)\|?>|</?system>|\[/?inst\]|<<sys>>|\[system\]|</?instructions>|###\s*(system|instruction)`)
)

// destination returns a literal place data could be sent to.
func destination(lower string) string {
	if strings.Contains(lower, "@") {
		if m := emailRe.FindString(lower); m != "" {
			return m
		}
	}
	if strings.Contains(lower, "://") {
		if m := urlRe.FindString(lower); m != "" {
			return m
		}
	}
	if strings.Count(lower, ".") >= 3 {
		if m := ipRe.FindString(lower); m != "" {
			return m
		}
	}
	return ""
}

var destructDemandRe = regexp.MustCompile(`(^|[.;:,]\s*|\b(must|always|also|then|should|need to|needs to|make sure to|be sure to|please|first|additionally|afterwards|and)\s+(\w+\s+)?)(delete|remove|wipe|erase|drop|truncate|destroy|purge|overwrite|shred|revoke|uninstall|format|rm)\b`)

var (
	literalRe      = regexp.MustCompile(`(?:^|[^A-Z])([A-Z]{2,}-?\d{2,})\b`)
	destructToolRe = regexp.MustCompile(`(?i)\b((?:delete|remove|drop|wipe|purge|destroy|erase|clear|truncate|reset|kill|revoke|uninstall)[_-][a-z0-9_]+)`)
	namedTargetRe  = regexp.MustCompile("`[^`]+`|\"[^\"]+\"|\b(titled|named|called|title\\s*=|name\\s*=)\\s*\\S|\\b[a-z0-9]+(-[a-z0-9]+)+\\b")
)

// standards are code-like tokens that are names of standards, not
// markers someone wants inserted.
var standards = map[string]bool{"ISO": true, "RFC": true, "SHA": true, "AES": true, "UTF": true, "HTTP": true, "TLS": true, "CVE": true, "IPV": true, "MD": true, "ES": true, "ECMA": true, "PEP": true, "GPT": true}

// exampleMarkers introduce a code as an illustration of a format rather
// than as a value to insert.
var exampleMarkers = []string{"e.g.", "eg.", "for example", "for instance", "such as", "like", "example", "i.e.", "z.b.", "por ejemplo",
	"par exemple", "zum beispiel", "por exemplo", "например", "例如", "比如", "例えば", "look like", "looks like", "format"}

func hasLiteralCode(s string) bool {
	for _, m := range literalRe.FindAllStringSubmatchIndex(s, -1) {
		code := s[m[2]:m[3]]
		letters := strings.TrimRightFunc(code, func(r rune) bool { return r == '-' || unicode.IsDigit(r) })
		if standards[letters] {
			continue
		}
		before := strings.ToLower(s[max(0, m[2]-24):m[2]])
		example := false
		for _, e := range exampleMarkers {
			if strings.Contains(before, e) {
				example = true
				break
			}
		}
		if !example {
			return true
		}
	}
	return false
}

// destructiveToolRef finds a destructive tool (delete_x, remove-x) named
// in a sentence other than the tool being scanned.
func destructiveToolRef(s, self string) bool {
	for _, m := range destructToolRe.FindAllString(s, -1) {
		if !strings.EqualFold(m, self) {
			return true
		}
	}
	return false
}

// namedTarget spots a specific object named in the text: quoted or
// back-ticked, "titled X", or a hyphenated slug; tool identifiers do not
// count.
func namedTarget(s string) bool {
	for _, m := range namedTargetRe.FindAllString(s, -1) {
		if !destructToolRe.MatchString(m) {
			return true
		}
	}
	return false
}

// nameIndex knows every tool name of the catalog being scanned, so that
// a sentence naming another tool can be told apart from one that only
// talks about its own tool.
type nameIndex struct {
	owners map[string][]string // lower-case tool name -> servers offering it
}

func newNameIndex(servers map[string][]string) *nameIndex {
	ni := &nameIndex{owners: map[string][]string{}}
	for srv, names := range servers {
		for _, n := range names {
			l := strings.ToLower(n)
			ni.owners[l] = append(ni.owners[l], srv)
		}
	}
	return ni
}

// distinctive names (with separators, digits or inner capitals) are
// unlikely to be ordinary words; plain words like "search" count as a
// tool reference only when quoted or followed by "tool".
func distinctive(name string) bool {
	for i, r := range name {
		if r == '_' || r == '-' || r == '.' || unicode.IsDigit(r) || (i > 0 && unicode.IsUpper(r)) {
			return true
		}
	}
	return false
}

func isIdentRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.'
}

// refs finds the tool names a sentence mentions, relative to the tool
// (server, self) being scanned.
func (ni *nameIndex) refs(sentence, server, self string) (other, foreign bool) {
	if ni == nil || len(ni.owners) == 0 {
		return false, false
	}
	rs := []rune(sentence)
	selfL := strings.ToLower(self)
	for i := 0; i < len(rs); {
		if !isIdentRune(rs[i]) {
			i++
			continue
		}
		j := i
		for j < len(rs) && isIdentRune(rs[j]) {
			j++
		}
		raw := strings.Trim(string(rs[i:j]), ".-")
		tok := strings.ToLower(raw)
		before, after := i, j
		i = j
		owners, ok := ni.owners[tok]
		if !ok || tok == selfL {
			continue
		}
		if !distinctive(raw) {
			quoted := before > 0 && after < len(rs) && strings.ContainsRune("`'\"", rs[before-1]) && rs[after] == rs[before-1]
			rest := strings.ToLower(string(rs[after:min(len(rs), after+10)]))
			if !quoted && !strings.HasPrefix(strings.TrimSpace(rest), "tool") && !strings.HasPrefix(rest, "()") {
				continue
			}
		}
		same := false
		for _, o := range owners {
			if o == server {
				same = true
			}
		}
		if same {
			other = true
		} else {
			foreign = true
		}
	}
	return other, foreign
}

// sentenceFeatures computes every feature of one sentence.
func (sc *scanner) sentenceFeatures(sentence, server, tool string) feature {
	mt := matchText(sentence)
	f := lexFeatures(mt)
	lower := strings.ToLower(sentence)
	if imperativeClause(sentence) {
		f |= fImper
	}
	if strings.ContainsAny(lower, "~./") && hasSensitivePath(lower) {
		f |= fFile | fSrc
	}
	if destination(lower) != "" {
		f |= fDest
	}
	if strings.ContainsAny(lower, ":<[#") && roleRe.MatchString(lower) {
		f |= fRole
	}
	if strings.Contains(lower, "<important>") || strings.Contains(lower, "[important]") {
		f |= fAuthority
	}
	if f&fDestruct != 0 {
		if !isASCII(sentence) && f&fModal != 0 {
			f |= fDestructDemand
		} else if destructDemandRe.MatchString(lower) {
			f |= fDestructDemand
		}
	}
	if strings.ContainsAny(sentence, "0123456789") && hasLiteralCode(sentence) {
		f |= fLiteral
	}
	if (strings.Contains(lower, "_") || strings.Contains(lower, "-")) && destructiveToolRef(sentence, tool) {
		f |= fDestructTool
	}
	// Named objects are looked for in every sentence that could hold
	// one, because the order to destroy often follows in the next.
	if strings.ContainsAny(sentence, "-`\"=") || strings.Contains(lower, "titled") || strings.Contains(lower, "named") || strings.Contains(lower, "called") {
		if namedTarget(sentence) {
			f |= fNamedTarget
		}
	}
	if strings.Contains(sentence, "+=") {
		f |= fAppendPos
	}
	if other, foreign := sc.names.refs(sentence, server, tool); other || foreign {
		if other {
			f |= fOtherTool
		}
		if foreign {
			f |= fForeignTool
		}
	}
	// Verbs only count when something sensitive is in play, so the more
	// expensive negation check runs on few sentences.
	if f&(fFlow|fRead) != 0 && f&(fSecret|fSecretWeak|fCtx|fFile|fDest|fField|fVerbatim|fContents) != 0 {
		if f&fFlow != 0 && !liveVerb(mt, lex.flowStems) {
			f &^= fFlow
		}
		if f&fRead != 0 && !liveVerb(mt, lex.readStems) {
			f &^= fRead
		}
	}
	return f
}

package scan

import (
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpsec/mcpsec/internal/keyword"
)

// splitSentences cuts text into sentences at line breaks and at sentence
// punctuation followed by a space (so paths like ~/.ssh stay whole).
func splitSentences(text string) []string {
	spans := sentenceSpans(text)
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = text[sp[0]:sp[1]]
	}
	return out
}

// sentenceSpans is splitSentences as byte ranges of text, trimmed.
func sentenceSpans(text string) [][2]int {
	return appendSentenceSpans(make([][2]int, 0, 4), text)
}

// appendSentenceSpans appends the spans of sentenceSpans to out, so a
// caller that reads one string at a time can reuse one buffer.
func appendSentenceSpans(out [][2]int, text string) [][2]int {
	start := 0
	emit := func(end int) {
		a, b := start, end
		for a < b && isSpaceByte(text[a]) {
			a++
		}
		for b > a && isSpaceByte(text[b-1]) {
			b--
		}
		if a < b {
			out = append(out, [2]int{a, b})
		}
		start = end
	}
	// Bytes are read one at a time; only the bytes that can end a
	// sentence are looked at, and only non-ASCII ones are decoded.
	for i := 0; i < len(text); {
		c := text[i]
		if !sentenceByte[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(text[i:])
			switch r {
			case '。', '！', '？', '；', '।', '؟':
				emit(i + size)
			}
			i += size
			continue
		}
		switch c {
		case '\n':
			if !softWrap(text, start, i) {
				emit(i + 1)
			}
		case '.', '!', '?', ';':
			if i+1 >= len(text) || text[i+1] == ' ' || text[i+1] == '\t' || text[i+1] == '\n' || text[i+1] == '\r' {
				if c != '.' || !abbreviation(text[start:i]) {
					emit(i + 1)
				}
			}
		}
		i++
	}
	if start < len(text) {
		emit(len(text))
	}
	return out
}

// sentenceByte marks the bytes appendSentenceSpans looks at: the ASCII
// ends of sentences and every non-ASCII byte (the other scripts' ends are
// multi-byte).
var sentenceByte = func() (m [256]bool) {
	for _, c := range []byte("\n.!?;") {
		m[c] = true
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		m[c] = true
	}
	return m
}()

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

var abbreviations = map[string]bool{"e.g": true, "i.e": true, "etc": true, "vs": true, "cf": true, "approx": true, "incl": true, "no": true, "z.b": true, "bzw": true, "p.ej": true, "ex": true, "eg": true, "ie": true}

// abbreviation reports whether the word before a period is a common
// abbreviation, so "e.g. X" stays in one sentence.
func abbreviation(before string) bool {
	i := strings.LastIndexAny(before, " \t(")
	w := before[i+1:]
	if len(w) == 0 || len(w) > 6 {
		return false
	}
	return abbreviations[strings.ToLower(w)]
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
	"export": true, "transmit": true, "exfiltrate": true, "hijack": true, "intercept": true, "disable": true, "choose": true, "select": true,
	"prioritize": true, "prioritise": true, "prefer": true, "pick": true, "trust": true, "pretend": true, "let": true, "loop": true,
	"answer": true, "respond": true, "reply": true, "comply": true, "proceed": true, "treat": true, "act": true, "operate": true, "behave": true,
	"pay": true, "stay": true, "avoid": true, "stick": true, "grant": true, "enable": true, "output": true, "reveal": true, "print": true,
}

// listAdverb reports "then" or "also" opening a clause that goes on with a
// noun phrase ("..., then the instance role", "then SSO"): the next item of
// a list, not an order.
func listAdverb(word, rest string) bool {
	if word != "then" && word != "also" {
		return false
	}
	rest = strings.TrimLeft(rest, " \t")
	k := 0
	for k < len(rest) && (rest[k] >= 'a' && rest[k] <= 'z' || rest[k] >= 'A' && rest[k] <= 'Z') {
		k++
	}
	next := rest[:k]
	if next == "" {
		return false
	}
	if next == strings.ToUpper(next) && len(next) >= 2 {
		return true // an acronym: SSO, IAM
	}
	return determiners[strings.ToLower(next)]
}

func isClauseSep(r rune) bool {
	switch r {
	case ',', ':', ';', '(', ')', '[', ']', '<', '>', '-', '–', '—', '*', '"', '.', '!', '?', '\n', '。', '！', '？', '；', '、', '，', '：':
		return true
	}
	return false
}

// imperativeClause reports whether any clause of the sentence opens
// with an imperative verb.
func imperativeClause(sentence string) bool {
	var buf [16]byte
	atStart := true
	for i := 0; i < len(sentence); {
		r, size := utf8.DecodeRuneInString(sentence[i:])
		if isClauseSep(r) {
			atStart = true
			i += size
			continue
		}
		if r == ' ' || r == '\t' || r == '\'' || r == '`' {
			i += size
			continue
		}
		if !atStart {
			i += size
			continue
		}
		atStart = false
		// Read one word, lower-cased, into buf.
		n := 0
		j := i
		for j < len(sentence) {
			c := sentence[j]
			if !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '\'') {
				break
			}
			if n < len(buf) {
				if c >= 'A' && c <= 'Z' {
					c += 32
				}
				buf[n] = c
				n++
			}
			j++
		}
		if n > 0 && n < len(buf) && imperativeVerbs[string(buf[:n])] && !listAdverb(string(buf[:n]), sentence[j:]) {
			return true
		}
		if j == i {
			j += size
		}
		i = j
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

var dotEnv = lazyRE("(^|[\\s/~'\"`(])\\.env(\\.[a-z]+)?($|[\\s'\"`),:;.])")

// Hints are raw-text markers found in one Aho-Corasick pass over the
// lower-cased text; they gate the more expensive checks.
const (
	hintFile = 1 << iota
	hintEnv
	hintDest
	hintRole
	hintImportant
	hintAppend
	// Gates of the word-order cues (intent.go): each regular expression
	// runs only when its gate words are present.
	hintMode
	hintSelf
	hintFirst
	hintOthers
	hintQuant
	hintSensitiveAdj
	hintLet
	hintSecretWord
	hintSibA
	hintSibB
	hintScript
	hintAfter
	hintBefore
)

var hintPatterns = func() ([]string, []int) {
	var pats []string
	var kinds []int
	add := func(kind int, ps ...string) {
		for _, p := range ps {
			pats = append(pats, p)
			kinds = append(kinds, kind)
		}
	}
	add(hintFile, sensitivePaths...)
	add(hintEnv, ".env")
	add(hintDest, "@", "://")
	add(hintRole, "system", "assistant", "developer", "<|", "[inst", "<<sys", "instruction", "hidden", "global", "override", "directive",
		"admin", "secret>", "_of_turn", "internal", "priority", "root>", "human", "<sys", "[sys")
	add(hintImportant, "<important>", "[important]")
	add(hintAppend, "+=")
	add(hintMode, "you are", "you're", "you r ", "from now on", " mode", "act as", "pretend", "role", "jailbr", "anything now", "new persona", "new identity", " dan")
	add(hintSelf, "this tool", "this function", "this server", "this service", "this plugin", "this api", "this endpoint", "this integration",
		"this one", " me ", " me.", " me!", "this converter", "this translator", "this calculator", "this engine", "this utility")
	add(hintFirst, "first", "before any")
	add(hintOthers, "other", "alternative", "compet", "rival", "built-in", "existing", "similar", "inferior", "outdated", "lesser", "obsolete")
	add(hintQuant, "all ", "every ", "any ")
	add(hintSensitiveAdj, "important", "sensitive", "private", "personal", "relevant", "confidential", "secret", "valuable", "interesting")
	add(hintLet, "let ", "loop ", "keep ")
	add(hintSecretWord, "secret", "credential", "passw", "token", "private", "apikey", "api_key", "api-key")
	add(hintSibA, "from ", "by ", "using ", "via ", "with ")
	add(hintSibB, " tool")
	add(hintScript, ".sh", ".bash", ".ps1", ".bat", ".cmd", ".exe", ".scr", ".vbs", ".command", "| sh", "|sh", "| bash", "|bash", "| zsh", "iex", "| python", "|python", "| sudo")
	add(hintAfter, "after ")
	add(hintBefore, "before ")
	return pats, kinds
}

// hintIndexOnce builds the raw-hint automaton on first use, like the
// lexicon's: processes that never scan do not pay for it.
var hintIndexOnce = sync.OnceValue(buildHints)

func buildHints() *keyword.Index {
	pats, kinds := hintPatterns()
	// A pattern listed under several hints ("secret", "private") signals
	// every one of them: the automaton holds each pattern once, with the
	// union of its hints as its value.
	idx := make(map[string]int, len(pats))
	var ps []string
	var vs []uint64
	for i, p := range pats {
		if j, ok := idx[p]; ok {
			vs[j] |= uint64(kinds[i])
			continue
		}
		idx[p] = len(ps)
		ps = append(ps, p)
		vs = append(vs, uint64(kinds[i]))
	}
	// The cue gates (cues.go) read the same lower-cased text: they share
	// the automaton, with their bits in the second value word.
	cps, cvs := cueGatePatterns()
	for _, v := range cvs {
		if v&gateToolVerb != 0 {
			panic("scan: a cue gate uses the bit of the tool-verb gate")
		}
	}
	for _, p := range toolVerbPatterns() {
		cps, cvs = append(cps, p), append(cvs, gateToolVerb)
	}
	// The kind gates (cues_kinds.go) too, above the hints in the first word.
	kps, kvs := kindGatePatterns()
	for i, v := range kvs {
		if v >= 1<<(64-kindShift) {
			panic("scan: too many kind gates for the shared automaton")
		}
		ps, vs = append(ps, kps[i]), append(vs, v<<kindShift)
	}
	for _, v := range vs[:len(vs)-len(kps)] {
		if v >= 1<<kindShift {
			panic("scan: too many raw hints for the shared automaton")
		}
	}
	his := make([]uint64, len(ps), len(ps)+len(cps))
	ps = append(ps, cps...)
	vs = append(vs, make([]uint64, len(cps))...)
	his = append(his, cvs...)
	return keyword.NewPair(ps, vs, his)
}

// rawHints returns the hint bits present in lower-cased text.
func rawHints(lower string) int {
	h, _ := lowerGates(lower)
	return h
}

// lowerGates returns the raw-hint bits and the cue-gate bits of
// lower-cased text, from one automaton pass.
func lowerGates(lower string) (int, uint64) {
	h, c, _ := lowerGates3(lower)
	return h, c
}

// kindShift places the kind gates' bits above the raw hints' in the
// first value word of the shared automaton.
const kindShift = 40

// lowerGates3 is lowerGates with the kind gates (kindGates).
func lowerGates3(lower string) (int, uint64, uint64) {
	lo, c := hintIndexOnce().UnionPairString(lower)
	k := kindGatesFrom(lo>>kindShift, lower)
	h := int(lo & (1<<kindShift - 1))
	if h&hintEnv != 0 && dotEnv.MatchString(lower) {
		h |= hintFile
	}
	return h, c, k
}

// gatesOf is lowerGates remembered for the last text asked about: the
// prefilter, the sensitive-path check and the cues of one sentence all
// read the same string, and the automaton pass is done once for them.
// The remembered string is kept referenced, so its address cannot be
// reused by another string while it identifies the entry.
func (sc *scanner) gatesOf(lower string) (int, uint64) {
	if sc == nil {
		return lowerGates(lower)
	}
	m := sc.gateMemoOf(lower)
	return m.hints, m.cues
}

// kindGatesOf is kindGates through the same memory as gatesOf.
func (sc *scanner) kindGatesOf(lower string) uint64 {
	return sc.gateMemoOf(lower).kinds
}

func (sc *scanner) gateMemoOf(lower string) *gateMemo {
	m := &sc.gateMemo
	if !(m.ok && len(m.text) == len(lower) && unsafe.StringData(m.text) == unsafe.StringData(lower)) {
		h, c, k := lowerGates3(lower)
		*m = gateMemo{text: lower, hints: h, cues: c, kinds: k, ok: true}
	}
	return m
}

func (sc *scanner) hintsOf(lower string) int {
	h, _ := sc.gatesOf(lower)
	return h
}

// gateMemo is one remembered lowerGates answer.
type gateMemo struct {
	text  string
	hints int
	cues  uint64
	kinds uint64
	ok    bool
}

// hasSensitivePath spots paths of files that hold secrets.
func hasSensitivePath(lower string) bool { return rawHints(lower)&hintFile != 0 }

var (
	emailRe = lazyRE(`[a-z0-9._%+\-]+@[a-z0-9\-]+(\.[a-z0-9\-]+)+`)
	urlRe   = lazyRE(`(https?|wss?|ftp)://[^\s]+`)
	ipRe    = lazyRE(`\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b`)
	roleRe  = lazyRE(`(^|\n)\s*(system|assistant|developer)\s*:|<\|?(im_start|im_end|system|endoftext)\|?>|</?system>|\[/?inst\]|<<sys>>|\[system\]|</?instructions>|###\s*(system|instruction)` +
		// Fake tags and banners that dress text up as coming from the
		// host: <hidden>, [[system instruction: ...]], ---system override---,
		// _system_injection keys, chat-template tokens of any model family.
		`|<\s*/?\s*(?:sys|hidden|secret|global|instruction|instruction[_ -]override|override|directive|admin|root|internal|priority|inst|developer|system[_ -][a-z]+|assistant|hidden[_ -][a-z]+)\s*>` +
		`|\[+\s*(?:system|hidden|admin|override|directive|instruction|emergency directive|system instruction|system override|sys|internal)\b[^\]]*\]` +
		`|-{2,}\s*(?:[a-z]+\s+)*(?:system|override|directive|admin)\b(?:\s+[a-z]+)*\s*-{2,}` +
		`|\b_?system_(?:injection|prompt|instruction|override|directive|message)\b|<\|[a-z_]+\|>|<(?:start|end)_of_turn>|\{\{\s*system|(?:^|\n)\s*human\s*:`)
)

// mayHaveRole is a necessary condition for roleRe to match: each of its
// alternatives holds a literal with one of these (a colon after the
// role, a tag's "<", a bracket, "###", a "--" banner, "system_", "{{").
// Most sentences of a string that names a role hold none of them, and the
// check costs far less than the expression. (TestMayHaveRole keeps the
// two in step.)
func mayHaveRole(lower string) bool {
	return strings.ContainsAny(lower, ":<[") || strings.Contains(lower, "--") || strings.Contains(lower, "###") ||
		strings.Contains(lower, "system_") || strings.Contains(lower, "{{")
}

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

var destructDemandRe = lazyRE(`(^|[.;:,]\s*|\b(must|always|also|then|should|need to|needs to|make sure to|be sure to|please|first|additionally|afterwards|and)\s+(\w+\s+)?)(delete|remove|wipe|erase|drop|truncate|destroy|purge|overwrite|shred|revoke|uninstall|format|rm)\s+[\w"'~/.-]`)

var (
	literalRe      = lazyRE(`(?:^|[^A-Z])([A-Z]{2,}-?\d{2,})\b`)
	destructToolRe = lazyRE(`(?i)\b((?:delete|remove|drop|wipe|purge|destroy|erase|clear|truncate|reset|kill|revoke|uninstall)[_-][a-z0-9_]+)`)
	namedTargetRe  = lazyRE("`[^`]+`|\"[^\"]+\"|«[^»]+»|\\b(titled|named|called|title\\s*=|name\\s*=|with (?:the )?(?:title|name)\\s)\\s*\\S|\\b[a-z0-9]+(-[a-z0-9]+)+\\b")
)

// standards are code-like tokens that are names of standards, not
// markers someone wants inserted.
var standards = map[string]bool{"ISO": true, "RFC": true, "SHA": true, "AES": true, "UTF": true, "HTTP": true, "TLS": true, "CVE": true, "IPV": true, "MD": true, "ES": true, "ECMA": true, "PEP": true, "GPT": true}

// exampleMarkers introduce a code as an illustration of a format rather
// than as a value to insert.
var exampleMarkers = []string{"e.g.", "eg.", "for example", "for instance", "such as", "like", "example", "i.e.", "z.b.", "por ejemplo",
	"par exemple", "zum beispiel", "por exemplo", "например", "例如", "比如", "例えば", "look like", "looks like", "format", "of the form", "pattern"}

// maybeLiteral is a cheap test for two capitals followed by a digit,
// optionally through a hyphen.
func maybeLiteral(s string) bool {
	for i := 2; i+1 < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' || s[i+1] < '0' || s[i+1] > '9' {
			continue
		}
		k := i - 1
		if s[k] == '-' {
			k--
		}
		if k >= 1 && s[k] >= 'A' && s[k] <= 'Z' && s[k-1] >= 'A' && s[k-1] <= 'Z' {
			return true
		}
	}
	return false
}

func hasLiteralCode(s string) bool {
	if !maybeLiteral(s) {
		return false
	}
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
var destructVerbs = map[string]bool{"delete": true, "remove": true, "drop": true, "wipe": true, "purge": true, "destroy": true, "erase": true,
	"clear": true, "truncate": true, "reset": true, "kill": true, "revoke": true, "uninstall": true}

func destructiveToolRef(s, self string) bool {
	// Cheap check first: a destructive verb glued to "_" or "-".
	found := false
	for i := 0; i < len(s) && !found; i++ {
		if s[i] != '_' && s[i] != '-' {
			continue
		}
		j := i
		for j > 0 && isAlpha(s[j-1]) {
			j--
		}
		if i-j >= 4 && i-j <= 9 && destructVerbs[strings.ToLower(s[j:i])] {
			found = true
		}
	}
	if !found {
		return false
	}
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
	for _, loc := range namedTargetRe.FindAllStringIndex(s, -1) {
		m := s[loc[0]:loc[1]]
		if destructToolRe.MatchString(m) || toolLikeSlug(m) {
			continue
		}
		if bareSlugRe.MatchString(m) && !objectSlug(s, loc[0], loc[1]) {
			// A bare hyphenated word is usually an ordinary compound
			// ("zero-based", "read-only"); it names an object only next to
			// an object noun ("the note old-guide") or as a subject
			// ("old-guide is retired").
			continue
		}
		return true
	}
	return false
}

var objectNouns = map[string]bool{"note": true, "file": true, "page": true, "document": true, "doc": true, "table": true, "branch": true,
	"repo": true, "repository": true, "record": true, "folder": true, "directory": true, "database": true, "bucket": true, "project": true,
	"issue": true, "event": true, "user": true, "account": true, "channel": true, "entry": true, "item": true, "list": true, "board": true,
	"card": true, "task": true, "ticket": true, "collection": true, "index": true, "namespace": true, "volume": true, "container": true,
	"on": true, "titled": true, "called": true, "named": true, "delete": true, "deleted": true, "remove": true, "removed": true, "drop": true,
	"dropped": true, "purge": true, "purged": true, "wipe": true, "wiped": true, "erase": true, "erased": true, "destroy": true, "destroyed": true,
	"clear": true, "cleared": true}

var bareSlugRe = lazyRE(`^[a-z0-9]+(-[a-z0-9]+)+$`)

var staleWords = map[string]bool{"is": true, "was": true, "has": true, "stale": true, "obsolete": true, "retired": true, "outdated": true, "deprecated": true}

func objectSlug(s string, a, b int) bool {
	before := strings.Fields(strings.ToLower(s[max(0, a-24):a]))
	for k := len(before) - 1; k >= 0 && k >= len(before)-2; k-- {
		w := strings.Trim(before[k], ".,:;()")
		if objectNouns[w] && k == len(before)-1 {
			return true
		}
	}
	after := strings.Fields(strings.ToLower(s[b:min(len(s), b+16)]))
	for k := 0; k < len(after) && k < 3; k++ {
		if staleWords[strings.Trim(after[k], ".,:;()|")] {
			return true
		}
	}
	return false
}

// toolVerbs open the names of tools ("list-buckets", "get_planner_task"):
// a slug that starts with one points to a sibling tool, which is
// navigation, not an object to destroy.
var toolVerbs = map[string]bool{"get": true, "list": true, "create": true, "update": true, "search": true, "send": true, "read": true,
	"write": true, "decline": true, "accept": true, "cancel": true, "add": true, "set": true, "fetch": true, "find": true, "query": true,
	"run": true, "start": true, "stop": true, "upload": true, "download": true, "move": true, "copy": true, "rename": true, "edit": true,
	"describe": true, "show": true, "open": true, "close": true, "post": true, "put": true, "patch": true, "check": true, "lookup": true,
	"export": true, "import": true, "sync": true, "reply": true, "forward": true, "schedule": true, "invite": true, "archive": true, "restore": true}

func toolLikeSlug(m string) bool {
	m = strings.Trim(m, "`\"")
	i := strings.IndexAny(m, "-_")
	if i <= 0 || strings.ContainsAny(m, " ") {
		return false
	}
	return toolVerbs[strings.ToLower(m[:i])]
}

// nameIndex knows every tool name of the catalog being scanned, so that
// a sentence naming another tool can be told apart from one that only
// talks about its own tool.
type nameIndex struct {
	owners map[string][]string // lower-case tool name -> servers offering it
	// Lengths (bit min(len, 63)) and first bytes of the keys of owners:
	// most words of a sentence fail one of them, and skip the map lookup.
	lens  uint64
	first [256]bool
}

func newNameIndex(servers map[string][]string) *nameIndex {
	ni := &nameIndex{owners: map[string][]string{}}
	for srv, names := range servers {
		for _, n := range names {
			l := strings.ToLower(n)
			ni.owners[l] = append(ni.owners[l], srv)
			if l != "" {
				ni.lens |= 1 << min(len(l), 63)
				ni.first[l[0]] = true
			}
		}
	}
	return ni
}

// mayOwn is false when no tool name can equal tok.
func (ni *nameIndex) mayOwn(tok string) bool {
	return ni.lens&(1<<min(len(tok), 63)) != 0 && ni.first[tok[0]]
}

// mayOwnFolded is mayOwn of the lower-case form of an ASCII token.
func (ni *nameIndex) mayOwnFolded(tok string) bool {
	c := tok[0]
	if c >= 'A' && c <= 'Z' {
		c += 'a' - 'A'
	}
	return ni.lens&(1<<min(len(tok), 63)) != 0 && ni.first[c]
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

func isIdentByte(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' || c >= utf8.RuneSelf
}

// refs finds the tool names a sentence mentions, relative to the tool
// (server, self) being scanned.
func (ni *nameIndex) refs(sentence, server, self string, params map[string]bool) (other, foreign bool) {
	if ni == nil || len(ni.owners) == 0 || (len(ni.owners) == 1 && ni.owners[strings.ToLower(self)] != nil) {
		return false, false
	}
	for i := 0; i < len(sentence); {
		if !isIdentByte(sentence[i]) {
			i++
			continue
		}
		j := i
		caps, wide := false, false
		for j < len(sentence) && isIdentByte(sentence[j]) {
			caps = caps || (sentence[j] >= 'A' && sentence[j] <= 'Z')
			wide = wide || sentence[j] >= utf8.RuneSelf
			j++
		}
		upper := caps || wide
		before, after := i, j
		i = j
		// strings.Trim(raw, ".-") without building its cutset per token.
		lo, hi := before, after
		for lo < hi && (sentence[lo] == '.' || sentence[lo] == '-') {
			lo++
		}
		for hi > lo && (sentence[hi-1] == '.' || sentence[hi-1] == '-') {
			hi--
		}
		raw := sentence[lo:hi]
		if raw == "" {
			continue
		}
		if !upper && !ni.mayOwn(raw) {
			// (raw is its own lower-case form here; the lookup below
			// would fail.)
			continue
		}
		if caps && !wide && !ni.mayOwnFolded(raw) {
			// ASCII lower-casing keeps the length and folds the first
			// byte: the lower-case form fails mayOwn, and the lookup.
			continue
		}
		tok := raw
		if upper {
			tok = strings.ToLower(raw)
		}
		owners, ok := ni.owners[tok]
		if !ok || strings.EqualFold(tok, self) || params[tok] {
			// The tool's own parameters are its contract, even when another
			// tool happens to share the word.
			continue
		}
		if !distinctive(raw) {
			// A plain word names a tool only when the text says it is one:
			// "the search tool", "search()". A quoted word followed by
			// "param" or "field" is a parameter of this tool.
			quoted := before > 0 && after < len(sentence) && strings.IndexByte("`'\"", sentence[before-1]) >= 0 && sentence[after] == sentence[before-1]
			restAt := after
			if quoted {
				restAt++
			}
			rest := strings.ToLower(strings.TrimSpace(sentence[min(len(sentence), restAt):min(len(sentence), restAt+14)]))
			if !strings.HasPrefix(rest, "tool") && !strings.HasPrefix(sentence[after:], "()") {
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
func (sc *scanner) sentenceFeatures(sentence, lower, server, tool string) feature {
	mtb, f := sc.lexMatch(sentence)
	langEarly, langLate, foreign := langFeatures(sentence, mtb)
	f |= langEarly
	if imperativeClause(sentence) {
		f |= fImper
	}
	if strings.ContainsAny(lower, "~./") && sc.hintsOf(lower)&hintFile != 0 {
		f |= fFile | fSrc
	}
	if d := destination(lower); d != "" && !exampleDestination(lower, d) {
		f |= fDest
	}
	if sc.unitHints&hintRole != 0 && mayHaveRole(lower) && roleRe.MatchString(lower) && !paramDocLine(lower, sc.params()) {
		f |= fRole
	}
	f |= sc.intentFeatures(sentence, lower, sc.unitHints, f)
	f |= sc.cues(sentence, lower, server, tool, f)
	if f&fNamesSibling != 0 && onlySelfSlugs(sentence, tool) {
		f &^= fNamesSibling // the tool naming itself is not navigation to a sibling
	}
	if strings.Contains(lower, "<important>") || strings.Contains(lower, "[important]") {
		f |= fAuthority
	}
	if f&fDestruct != 0 {
		if !latinOnly(sentence) && f&fModal != 0 {
			f |= fDestructDemand
		} else if ownDestructiveAction(lower, sc.cur, sc.unitWords != nil) {
			// "Delete a bucket." opening a delete tool's description, or
			// "Remove the source files afterwards." describing what a
			// parameter does: the tool's own action, not an order.
		} else if destructDemandRe.MatchString(lower) {
			f |= fDestructDemand
		}
	}
	if hasLiteralCode(sentence) {
		f |= fLiteral
	}
	if (strings.Contains(lower, "_") || strings.Contains(lower, "-")) && destructiveToolRef(sentence, tool) {
		f |= fDestructTool
	}
	if strings.Contains(sentence, "+=") {
		f |= fAppendPos
	}
	if other, foreign := sc.names.refs(sentence, server, tool, sc.params()); other || foreign {
		if other {
			f |= fOtherTool
		}
		if foreign {
			f |= fForeignTool
		}
	}
	// Pointing at a sibling tool of the same server while naming its
	// recipient or fields is navigation; tampering needs a literal
	// destination, concealment, or a foreign or blanket target.
	if f&fOtherTool != 0 && f&(fForeignTool|fAnyTool|fDest|fHide|fHideStrong) == 0 {
		f &^= fTamper
	}
	// Verbs only count when something sensitive is in play, so the more
	// expensive negation check runs on few sentences.
	if f&(fFlow|fRead|fCallTool) != 0 && f&(fSecret|fSecretWeak|fCtx|fFile|fDest|fField|fVerbatim|fContents|fPersonal|fUserData|fParamRef) != 0 {
		mt := string(mtb)
		lx := lexIndexOnce()
		flowLive, flowFound := verbState(mt, lx.flowStems)
		readLive, readFound := verbState(mt, lx.readStems)
		// Where no verb could be located word by word (other languages,
		// phrases), a prohibition or a description of the tool's own
		// behaviour means the verb is not a demand.
		unlocated := !flowFound && !readFound
		descriptive := f&fPassive != 0 && f&(fModal|fPrereq) == 0
		if descriptive || (unlocated && negatedSentence(mt)) {
			flowLive, readLive = false, false
			f &^= fCallTool
		}
		if f&fFlow != 0 && !flowLive {
			f &^= fFlow
		}
		if f&fRead != 0 && !readLive {
			f &^= fRead
		}
		if f&(fHide|fHideStrong) == 0 && prohibitsFlow(mt, flowLive, flowFound, readLive, readFound) {
			f &^= prohibitedObjects
		}
	}
	// A prohibition in a language whose negation does not sit right
	// before the verb ("gib niemals", "请勿", "n'incluez jamais") demands
	// nothing; only what it asks to hide still counts.
	if f&fHide == 0 && f&(fFlow|fRead|fCallTool|fModal|fImper) != 0 && prohibition(string(mtb)) {
		f &^= fFlow | fRead | fCallTool | fModal | fImper | fField | fStore | fPrereq
	}
	if f&(fHide|fHideStrong|fFlow|fRead|fCallTool) == 0 && f&prohibitedObjects != 0 && openingProhibition(string(mtb)) {
		// "Never publish files that contain tokens": secret hygiene.
		f &^= prohibitedObjects
	}
	if f&fTamper != 0 && negatedTamper(string(mtb)) {
		f &^= fTamper
	}
	if f&fField != 0 && labelOnlyField(sentence, lower) {
		f &^= fField
	}
	if f&fHide != 0 && f&fHideStrong == 0 && describedManner(lower) {
		f &^= fHide
	}
	if f&(fSecretWeak|fSrc|fUserData|fPersonal) != 0 && f&(fSecret|fDest|fOutside|fCtx|fConvSrc|fFile|fHide|fHideStrong) == 0 && sc.fromOwnService(sentence, lower, server) {
		// "posts and user data from Reddit" on a Reddit server.
		f &^= fSecretWeak | fSrc | fUserData | fPersonal
	}
	if foreign {
		f = foreignFlow(f | langLate)
	}
	return sc.ownObjects(f, sentence, lower)
}

// ownObjects drops the "sensitive source" features of a sentence that
// documents the tool's own objects: server configuration (environment
// variables, headers, kubeconfig and credentials files the server reads)
// when nothing is moved anywhere, and secrets or files that are the very
// topic of the tool (a .env linter, an SSH key manager). A literal outside
// destination or the conversation keeps them: those are never the tool's
// own.
func (sc *scanner) ownObjects(f feature, sentence, lower string) feature {
	if f&fSafetyObj != 0 && f&(fOvVerb|fModeSwitch|fRole) == 0 && purposeSafetyRe.MatchString(lower) {
		f &^= fSafetyObj
	}
	if f&fCtx != 0 && sc.ownContextWord(lower) {
		f &^= fCtx | fSrc | fConvSrc
	}
	if f&fSafetyObj != 0 && f&(fModeSwitch|fRole) == 0 && sc.cur.ownSafetyOption() {
		f &^= fSafetyObj
	}
	if f&fPersonal != 0 && f&(fDest|fOutside|fDeclFlow) == 0 && sc.cur.inContract(lower, sc.unitWords) {
		f &^= fPersonal | fSecretWeak
	}
	if f&fCtx != 0 && f&(fDest|fOutside|fSecret|fFile|fHide|fHideStrong) == 0 && !strings.Contains(lower, "system prompt") && sc.cur.inContract(lower, sc.unitWords) {
		// A memory or summarising tool talks about the conversation
		// because the conversation is its input.
		f &^= fCtx | fConvSrc | fSrc
	}
	if sc.ownInputDeclared(f, lower) {
		f &^= fSecret | fSecretWeak
	}
	const src = fSecret | fSecretWeak | fFile | fSrc
	if f&src == 0 || f&(fDest|fCtx|fVerbatim|fConvSrc|fOutside) != 0 {
		return f
	}
	if f&fFile != 0 && sc.cur.ownPath(lower) {
		f &^= fFile | fSrc
	}
	if sc.cur.secretParam(lower) && f&(fFile|fCtx) == 0 {
		return f &^ src
	}
	if f&(fFlow|fRead|fCallTool) == 0 && configDoc(sentence, lower) {
		return f &^ (src | fField)
	}
	if !movesOwnSecret(f) && sc.cur.inContract(lower, sc.unitWords) {
		return f &^ src
	}
	return f
}

var foreignNegators = map[string]bool{"nicht": true, "niemals": true, "nie": true, "kein": true, "keine": true, "keinen": true, "jamais": true,
	"pas": true, "nunca": true, "não": true, "nem": true, "не": true, "никогда": true, "ni": true}

// prohibition reports a negated order in a language other than English.
func prohibition(mt string) bool {
	for _, t := range strings.Fields(mt) {
		if foreignNegators[t] {
			return true
		}
	}
	for _, n := range cjkNegators {
		if strings.Contains(mt, n) {
			return true
		}
	}
	return false
}

func (sc *scanner) params() map[string]bool {
	if sc.cur == nil {
		return nil
	}
	return sc.cur.params
}

// ownDestructiveAction reports a destructive verb that opens the sentence
// and is the tool's own business: in a parameter's description (it says
// what the option does), or in the description of a tool whose name or
// first sentence is itself destructive. Only a sentence-initial verb
// counts; "also delete", "must remove" and the like stay demands.
func ownDestructiveAction(lower string, c *contract, inParam bool) bool {
	locs := destructDemandRe.FindAllStringSubmatchIndex(lower, -1)
	if len(locs) == 0 {
		return false
	}
	for _, l := range locs {
		// Group 4 is the verb; anything before it on the clause other
		// than "force" means a modal or sequencing word led to it.
		clause := lower[:l[8]]
		if k := strings.LastIndexAny(clause, ".;:"); k >= 0 {
			clause = clause[k+1:]
		}
		lead := strings.TrimSpace(clause)
		if lead != "" && lead != "force" {
			return false
		}
	}
	if inParam {
		// "delete that note first" is a step, not what the option does.
		for _, w := range strings.Fields(lower) {
			switch strings.Trim(w, ".,:;()") {
			case "first", "before", "also", "then", "afterwards", "additionally", "beforehand":
				return false
			}
		}
		return true
	}
	if c == nil {
		return false
	}
	topic := c.topic()
	for w := range destructVerbs {
		if topic[w] {
			return true
		}
	}
	return topic["purge"] || topic["deletes"] || topic["removes"] || topic["purges"] || topic["clears"] || topic["wipes"]
}

// roleGate is the cheap test before the role-markup expression.
func roleGate(lower string) bool {
	for _, m := range []string{"system", "assistant", "developer", "<|", "[inst", "<<sys", "instruction", "hidden", "global", "override", "directive",
		"admin", "secret>", "_of_turn", "internal", "priority", "root>", "human", "<sys", "[sys"} {
		if strings.Contains(lower, m) {
			return true
		}
	}
	return false
}

// paramDocLine reports a docstring line "system: the remote system to
// use" where the word before the colon is one of the tool's own
// parameters: an Args block, not a fake role turn.
func paramDocLine(lower string, params map[string]bool) bool {
	t := strings.TrimSpace(lower)
	for _, w := range []string{"system", "assistant", "developer", "human"} {
		if params[w] && strings.HasPrefix(t, w) && strings.HasPrefix(strings.TrimSpace(t[len(w):]), ":") {
			return true
		}
	}
	return false
}

// exampleDestination reports an address that the text shows as an
// example or a reference: inside a JSON-like body ({ ... }), introduced
// by "e.g.", "for example", "see" or "reference:". An example shows a
// format and a reference points to documentation; neither is where data
// is to go. (Documentation domains such as example.com are not exempt:
// published attacks use them too.)
func exampleDestination(lower, d string) bool {
	i := strings.Index(lower, d)
	if i < 0 {
		return false
	}
	before := lower[:i]
	if strings.Count(before, "{") > strings.Count(before, "}") {
		return true
	}
	near := before[max(0, len(before)-40):]
	for _, m := range []string{"e.g.", "e.g", "for example", "for instance", "such as", "example:", "like ", "reference:", "see ", "docs:",
		"documentation", "learn more", "more info", "details:", "refer to", "described at", "described in", "api reference", "spec:", "source:"} {
		if strings.Contains(near, m) {
			return true
		}
	}
	return false
}

// foreignOwners lists the other servers whose tools a sentence names, for
// messages that must say which pair of servers a finding is about.
func (ni *nameIndex) foreignOwners(sentence, server, self string, params map[string]bool) []string {
	if ni == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, tok := range strings.FieldsFunc(sentence, func(r rune) bool { return !isIdentRune(r) }) {
		tok = strings.Trim(tok, ".-")
		l := strings.ToLower(tok)
		if l == strings.ToLower(self) || params[l] || !distinctive(tok) {
			continue
		}
		for _, o := range ni.owners[l] {
			if o != server && !seen[o] {
				seen[o] = true
				out = append(out, o)
			}
		}
	}
	sort.Strings(out)
	return out
}

package scan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/textclass"
)

// Options tune a scan.
type Options struct {
	// Lock, when set, adds drift findings against that lockfile.
	Lock *Lockfile
	// ungated examines every string and sentence, bypassing the
	// prefilter: the tests compare the two engines.
	ungated bool
	// model replaces the embedded text model (the cross-validation
	// tests judge each register with a model that never saw it).
	model *textclass.Pair
	// rulesOnly leaves the text model out: the tests of the hand-written
	// rules pin what the rules alone do.
	rulesOnly bool
	// noMemo computes every answer afresh, remembering no text (memo.go,
	// textScoreMemo): the tests compare the two.
	noMemo bool
}

// scanner holds what the rules need beyond one string: the names of every
// tool in the catalog, for cross-tool rules.
type scanner struct {
	names *nameIndex
	// cur is the contract of the tool being scanned (nil for server-level
	// text), and unitWords the words of the parameter whose text is being
	// read; both tell a tool's own objects from foreign ones.
	cur       *contract
	unitWords []string
	// unitHints are the raw-text hints of the text being analysed; they
	// gate the per-sentence checks.
	unitHints int
	// unitLex are the lexicon features of the whole text being analysed,
	// for cues whose counter-evidence may sit in a neighbouring sentence.
	unitLex  feature
	unitText string
	// unitLabel is set while an enum or const value that is one word is
	// analysed: a category label ("ssn"), not a request for the data.
	unitLabel bool
	// gateMemo holds the automaton answer for the last text (gatesOf),
	// lexMemo the lexicon answer for the last sentence (lexMatch, whose
	// buffer is mtBuf); scratch is per-sentence state of analyze.
	gateMemo gateMemo
	lexMemo  lexMemo
	mtBuf    []byte
	units    []unit // the units of the tool being scanned
	scratch  sentenceScratch
	// analyzeBuf holds analyze's per-sentence slices between calls.
	analyzeBuf struct {
		spans [][2]int
		sents []string
		lows  []string
		feats []feature
		known []bool
	}
	ungated bool
	// scores are the text model's scores of every tool and every
	// server's instructions judged so far (see holdFindings).
	scores    map[scoreKey]float64
	model     *textclass.Pair
	rulesOnly bool
	// facts remembers what the prefilter finds in each text (memo.go).
	// The text model's reading of a sentence is not remembered: it
	// depends on the name of the tool the sentence documents.
	facts factMemo
}

// judgeText runs the text model on units: its finding, if any, and the
// score remembered for holding the rules' findings.
func (sc *scanner) judgeText(server, tool, key string, units []unit) []Finding {
	if sc.rulesOnly {
		return nil
	}
	if sc.model == nil {
		sc.model = textModel()
	}
	f, s, ok := learnedFinding(sc.model, server, tool, units)
	k := scoreKey{server, key}
	if old, seen := sc.scores[k]; !seen || s > old {
		sc.scores[k] = s
	}
	// Server instructions are reported too: they address the model by
	// design, but the model has seen honest instructions in its training
	// data, and held out it found more poisoned instructions than it
	// flagged honest ones (README, "The text model").
	if ok {
		return []Finding{f}
	}
	return nil
}

// unit is one metadata string and where it sits.
type unit struct {
	part string // description | schema | name
	loc  string
	text string
}

// Scan judges every server of a catalog and grades it.
func Scan(c *catalog.Catalog, opts Options) Report {
	byServer := map[string][]string{}
	for _, s := range c.Servers {
		byServer[s.Name] = append(byServer[s.Name], s.ToolNames()...)
	}
	sc := &scanner{names: newNameIndex(byServer), ungated: opts.ungated, scores: map[scoreKey]float64{}, model: opts.model, rulesOnly: opts.rulesOnly}
	sc.facts.off = opts.noMemo || countItems(c) < memoMinItems
	rep := Report{Servers: make([]ServerReport, 0, len(c.Servers))}
	for _, s := range c.Servers {
		var fs []Finding
		sc.cur = nil
		if s.Instructions != "" {
			u := unit{part: "description", loc: "instructions", text: s.Instructions}
			fs = append(fs, sc.scanUnit(s.Name, "", u, "")...)
			fs = append(fs, sc.judgeText(s.Name, "", "@instructions", []unit{u})...)
		}
		for _, p := range s.Prompts {
			base := "prompts/" + p.Name
			for _, u := range []unit{{"description", base + "/title", p.Title}, {"description", base + "/description", p.Description}} {
				fs = append(fs, sc.scanUnit(s.Name, "", u, "")...)
			}
			for _, a := range p.Arguments {
				fs = append(fs, sc.scanUnit(s.Name, "", unit{"schema", base + "/arguments/" + a.Name + "/description", a.Description}, "")...)
			}
		}
		for _, r := range s.Resources {
			base := "resources/" + r.Name
			for _, u := range []unit{{"description", base + "/title", r.Title}, {"description", base + "/description", r.Description}} {
				fs = append(fs, sc.scanUnit(s.Name, "", u, "")...)
			}
		}
		for _, t := range s.Tools {
			fs = append(fs, sc.scanTool(s.Name, t)...)
		}
		fs = append(fs, duplicateNames(s)...)
		rep.Servers = append(rep.Servers, ServerReport{Name: s.Name, Findings: fs})
	}
	crossServer(c, &rep)
	lookalikeNames(c, &rep)
	if opts.Lock != nil {
		idx := map[string]int{}
		for i, s := range rep.Servers {
			idx[s.Name] = i
		}
		for _, d := range Drift(opts.Lock, c) {
			i, ok := idx[d.Server]
			if !ok {
				// A server that vanished since the lockfile still gets
				// a report, so its removal is graded and visible.
				i = len(rep.Servers)
				idx[d.Server] = i
				rep.Servers = append(rep.Servers, ServerReport{Name: d.Server})
			}
			rep.Servers[i].Findings = append(rep.Servers[i].Findings, d)
		}
	}
	for i := range rep.Servers {
		fs := dedupe(rep.Servers[i].Findings)
		agree(fs)
		holdFindings(fs, sc.scores)
		fs = dropRedundantLearned(fs)
		sortFindings(fs)
		if fs == nil {
			fs = []Finding{}
		}
		rep.Servers[i].Findings = fs
		rep.Servers[i].Score, rep.Servers[i].Grade = Grade(fs)
	}
	return rep
}

// ScanTool judges one tool on its own (no cross-tool context beyond its
// own name). The scan_filter defense drops tools with findings at Medium
// or above.
func ScanTool(server string, t catalog.Tool) []Finding {
	return scanTool(server, t, Options{})
}

func scanTool(server string, t catalog.Tool, opts Options) []Finding {
	sc := &scanner{names: newNameIndex(map[string][]string{server: {t.Name}}), scores: map[scoreKey]float64{}, model: opts.model, rulesOnly: opts.rulesOnly}
	sc.facts.off = opts.noMemo || memoMinItems > 1
	fs := dedupe(sc.scanTool(server, t))
	agree(fs)
	holdFindings(fs, sc.scores)
	fs = dropRedundantLearned(fs)
	sortFindings(fs)
	return fs
}

func (sc *scanner) scanTool(server string, t catalog.Tool) []Finding {
	sc.cur = newContract(t)
	defer func() { sc.cur = nil }()
	// The units live in the scanner's buffer until the next tool: no
	// finding keeps the slice, only copies of its units.
	sc.units = appendToolUnits(sc.units[:0], t)
	units := sc.units
	var fs []Finding
	for _, u := range units {
		fs = append(fs, sc.scanUnit(server, t.Name, u, t.Name)...)
	}
	fs = append(fs, defaultDestinations(server, t.Name, "inputSchema", t.InputSchema, 0)...)
	fs = append(fs, annotationPayloads(server, t.Name, t.Annotations)...)
	fs = append(fs, readOnlyMismatch(server, t)...)
	fs = append(fs, titleDirective(server, t)...)
	fs = append(fs, impersonation(server, t.Name)...)
	fs = append(fs, decoratedImpersonation(server, t.Name)...)
	fs = append(fs, sc.judgeText(server, t.Name, t.Name, units)...)
	return fs
}

// toolUnits lists every string of a tool a model reads: its name, title,
// description, annotations and every string and property name of its
// schemas.
func toolUnits(t catalog.Tool) []unit { return appendToolUnits(nil, t) }

// appendToolUnits appends the units of toolUnits to units.
func appendToolUnits(units []unit, t catalog.Tool) []unit {
	units = append(units, unit{"name", "name", t.Name})
	if t.Title != "" {
		units = append(units, unit{"description", "title", t.Title})
	}
	if t.Description != "" {
		units = append(units, unit{"description", "description", t.Description})
	}
	units = collectStrings(units, "description", "annotations", t.Annotations)
	units = collectStrings(units, "schema", "inputSchema", t.InputSchema)
	units = collectStrings(units, "schema", "outputSchema", t.OutputSchema)
	return units
}

// collectStrings walks a decoded JSON value and gathers every string and
// every object key under it (keys of "properties" are parameter names a
// model reads too), with slash paths.
func collectStrings(units []unit, part, path string, v any) []unit {
	switch x := v.(type) {
	case string:
		if x != "" {
			units = append(units, unit{part, path, x})
		}
	case map[string]any:
		// Small objects sort their keys in a buffer on the stack.
		var buf [8]string
		keys := buf[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		isProps := strings.HasSuffix(path, "/properties") || strings.HasSuffix(path, "/$defs") || strings.HasSuffix(path, "/definitions")
		for _, k := range keys {
			v, isStr := x[k].(string)
			empty := !mayGather(x[k]) || isStr && (v == "" || schemaKeyword(k, v))
			if !isProps && empty {
				continue // nothing to gather, so no path to build
			}
			p := path + "/" + escapeSeg(k)
			if isProps {
				units = append(units, unit{"name", p, k})
			}
			if isStr && schemaKeyword(k, v) {
				continue
			}
			units = collectStrings(units, part, p, x[k])
		}
	case []any:
		for i, e := range x {
			if mayGather(e) {
				units = collectStrings(units, part, path+"/"+strconv.Itoa(i), e)
			}
		}
	}
	return units
}

// mayGather reports whether collectStrings could gather anything from v:
// a number, a boolean or null holds no string, so its path (one
// allocation each) is not built.
func mayGather(v any) bool {
	switch v.(type) {
	case string, map[string]any, []any:
		return true
	}
	return false
}

// schemaKeyword reports JSON Schema keyword values ("type": "string",
// "format": "uri") that are vocabulary, not prose; any other value of those
// keys is still scanned.
func schemaKeyword(key, v string) bool {
	switch key {
	case "type":
		switch v {
		case "string", "number", "integer", "boolean", "object", "array", "null":
			return true
		}
	case "format":
		switch v {
		case "uri", "uri-reference", "email", "date", "date-time", "time", "uuid", "ipv4", "ipv6", "hostname", "regex", "byte", "binary", "int32", "int64", "float", "double", "password":
			return true
		}
	case "$schema":
		return strings.HasPrefix(v, "http://json-schema.org/") || strings.HasPrefix(v, "https://json-schema.org/")
	}
	return false
}

// escapeSeg escapes a path segment the JSON Pointer way so that keys
// containing "/" stay unambiguous.
func escapeSeg(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// mayMatch is the prefilter: one Aho-Corasick pass over the whole text
// gives the lexicon features, and cheap checks over-approximate the
// computed ones (upper). Sentence features are subsets of these, so when
// no rule could fire on the union, no rule fires on any sentence and the
// per-sentence analysis is skipped. Most honest documentation stops here.
func (sc *scanner) mayMatch(text string, tf *textFacts, part, server, tool string) bool {
	// The match text is built once, for the lexicon and the other
	// languages' vocabulary both (tf).
	lower := tf.lowerOf(text)
	sc.unitLex, sc.unitText = tf.lex, text
	m := sc.gatesFrom(&tf.low, lower)
	h, gates := m.hints, m.cues
	sc.unitHints = h
	f := sc.upperCheap(text, lower, tf, &tf.low, part, server, tool, h, h)
	if !mayFire(f|costlyBits, part) {
		return false
	}
	// The costly checks, cheapest first: after each, the text is dropped
	// as soon as no rule could fire even with every feature the remaining
	// checks can add. (upperCostly is the same bound in one piece.)
	f |= sc.toolRefUpper(text, lower, tool, f, h, gates)
	if tf.literalCode(text) {
		f |= fLiteral
	}
	if destructiveToolRef(text, tool) {
		f |= fDestructTool
	}
	if !mayFire(f|fImper|fOtherTool|fForeignTool, part) {
		return false
	}
	if tf.imperative(text) {
		f |= fImper
	}
	if !mayFire(f|fOtherTool|fForeignTool, part) {
		return false
	}
	if other, foreign := sc.names.refs(text, server, tool, sc.params()); other || foreign {
		f |= fOtherTool | fForeignTool
	}
	return mayFire(f, part)
}

// subsume drops matches whose meaning a stronger match on the same text
// already reports, so one demand is not listed three times.
func subsume(ms []match) []match {
	if len(ms) < 2 {
		return ms
	}
	fired := map[string]bool{}
	for _, m := range ms {
		fired[m.rule.ID] = true
	}
	out := ms[:0]
	for _, m := range ms {
		drop := false
		for _, id := range m.rule.SubsumedBy {
			if fired[id] {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, m)
		}
	}
	return out
}

var identWords = strings.NewReplacer("_", " ", "-", " ")

// structuralRules lists, per part, the structural rules that apply there.
var structuralRules = func() map[string][]*Rule {
	m := map[string][]*Rule{}
	for _, part := range []string{"description", "schema", "name"} {
		for _, r := range Rules {
			if r.structural() && r.appliesTo(part) {
				m[part] = append(m[part], r)
			}
		}
	}
	return m
}()

// match is one rule firing on one piece of text.
type match struct {
	rule     *Rule
	evidence string
	weak     bool // see weakFiring
}

// analyze runs the structural rules over normalised text.
func (sc *scanner) analyze(text, part, server, tool string) []match {
	if part == "name" || (part == "schema" && !strings.ContainsAny(text, " \t\n") && strings.Count(text, "_") >= 2) {
		// Identifiers (names, and enum or default values such as
		// "forward_all_mail_to_archive") read as words.
		// Identifiers read as words: send_api_key -> "send api key".
		text = identWords.Replace(text)
	}
	tf := sc.textFactsOf(text)
	lowerText := tf.lowerOf(text)
	may := sc.mayMatch(text, tf, part, server, tool) || sc.ungated
	kg := sc.kindGatesOf(lowerText) | sc.kindHints() // the kind checks (cues_kinds.go) gate themselves
	if !may && kg == 0 {
		return nil
	}
	// The per-sentence slices live in the scanner's buffers (analyze
	// never runs inside itself, and what it returns holds no slice of
	// them).
	ab := &sc.analyzeBuf
	ab.spans = appendSentenceSpans(ab.spans[:0], text)
	spans := ab.spans
	sents := resize(&ab.sents, len(spans))
	lows := resize(&ab.lows, len(spans))
	feats := resize(&ab.feats, len(spans))
	sameOffsets := len(lowerText) == len(text)
	for i, sp := range spans {
		s := text[sp[0]:sp[1]]
		sents[i] = s
		if sameOffsets {
			// Take the same span of the lower-cased text instead of
			// lower-casing again.
			lows[i] = lowerText[sp[0]:sp[1]]
		} else {
			lows[i] = strings.ToLower(s)
		}
	}
	// known marks the sentences whose features are computed; the kind
	// checks below compute the others when they ask for them.
	known := resize(&ab.known, len(sents))
	switch {
	case !may:
	case len(sents) == 1 || sc.ungated:
		for i, s := range sents {
			feats[i], known[i] = sc.sentenceFeatures(s, lows[i], server, tool), true
		}
	default:
		// Only sentences a rule could fire on are examined.
		rel := sc.relevantSentences(sents, lows, part, server, tool, sc.unitHints)
		for i, s := range sents {
			if rel[i] {
				sc.seed(i, s, lows[i])
				feats[i], known[i] = sc.sentenceFeatures(s, lows[i], server, tool), true
			}
		}
	}
	// Named objects matter only next to a destructive order, which may sit
	// in the neighbouring sentence; look for them only there.
	for i := range sents {
		near := feats[i]
		if i > 0 {
			near |= feats[i-1]
		}
		if i+1 < len(sents) {
			near |= feats[i+1]
		}
		if near&(fDestructTool|fDestructDemand) != 0 && namedTarget(sents[i]) {
			feats[i] |= fNamedTarget
		}
	}
	var out []match
	for _, r := range structuralRules[part] {
		if !may {
			break
		}
		// A single sentence is the better evidence; pairs are the fallback.
		ev, at := "", -1
		for i := range sents {
			if r.matches(feats[i]) {
				ev, at = sents[i], i
				break
			}
		}
		for i := 0; ev == "" && r.Window && i+1 < len(sents); i++ {
			if r.matches(pairFeatures(r, feats[i])|pairFeatures(r, feats[i+1])) && (r.Signals&pairSignals == 0 || coherentPair(sents[i], sents[i+1], feats[i], feats[i+1])) {
				ev, at = sents[i]+" "+sents[i+1], i
			}
		}
		if ev != "" {
			out = append(out, match{rule: r, evidence: ev, weak: weakFiring(r, part, sents, feats, at, sc.cur.ownMarkupFormat()) || sc.protectiveOrLabel(r, sents, at)})
		}
	}
	if kg != 0 {
		// Sentences the prefilter did not examine get their features
		// when a kind check asks for them. (The kind checks do not read
		// fNamedTarget, the one feature that a sentence's neighbours add.)
		featOf := func(i int) feature {
			if !known[i] {
				known[i] = true
				feats[i] = sc.sentenceFeatures(sents[i], lows[i], server, tool)
			}
			return feats[i]
		}
		out = append(out, sc.kindMatches(sents, lows, featOf, kg, part, tool)...)
	}
	return subsume(out)
}

// resize makes *buf n long with every element zero, reusing its array.
func resize[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	} else {
		*buf = (*buf)[:n]
		clear(*buf)
	}
	return *buf
}

const maxEvidence = 300

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxEvidence {
		return s
	}
	cut := maxEvidence
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// visible makes invisible characters in evidence readable.
func visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		if isTag(r) || isVariationSelector(r) || isBidi(r) || isZeroWidth(r) || r < 0x20 && r != '\n' && r != '\t' {
			fmt.Fprintf(&b, "<U+%04X>", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// scanUnit runs every text rule on one metadata string.
func (sc *scanner) scanUnit(server, tool string, u unit, self string) []Finding {
	if strings.TrimSpace(u.text) == "" {
		return nil
	}
	mk := func(r *Rule, sev Severity, msg, ev string) Finding {
		return Finding{RuleID: r.ID, Severity: sev, Server: server, Tool: tool, Location: u.loc, Message: msg, Evidence: clip(visible(ev)), signals: r.Signals}
	}
	mkm := func(m match, msg string) Finding {
		f := mk(m.rule, m.rule.Severity, msg, m.evidence)
		f.weak = m.weak
		return f
	}
	sc.unitWords = nil
	if u.part == "schema" {
		sc.unitWords = paramWordsOf(u.loc)
	}
	// A tool's name is unique in its server: remembering its text would
	// only fill the memory (memo.go).
	sc.resetScratch()
	sc.facts.once = u.loc == "name"
	defer func() { sc.facts.once = false }()
	sc.unitLabel = false
	if u.part == "schema" && (strings.Contains(u.loc, "/enum/") || strings.HasSuffix(u.loc, "/const")) && !strings.ContainsAny(strings.TrimSpace(u.text), " \t\n") {
		sc.unitLabel = true
	}
	var out []Finding
	if len(u.text) > maxUnitBytes {
		// A hostile server can send megabytes of "documentation". The
		// size is itself a finding; the head and tail, where a model's
		// attention goes, are analysed.
		r := RuleByID("meta.oversized")
		out = append(out, mk(r, r.Severity, fmt.Sprintf("%s Size: %d bytes; the first and last %d bytes were analysed.", r.Description, len(u.text), maxUnitBytes/2), u.text[:200]))
		u.text = headTail(u.text, maxUnitBytes/2)
	}
	// What depends on the string alone is remembered with it (memo.go):
	// raw for the raw string, tf for the normalised text (the same entry
	// when normalising changed nothing).
	raw := sc.factsOf(u.text)
	p := raw.prepared(u.text)
	tf := raw
	if p.text != u.text {
		tf = sc.factsOf(p.text)
	}
	if !p.ascii && strings.ContainsRune(u.text, utf8.RuneError) {
		// Invalid bytes reach us as U+FFFD (JSON decoding replaces them);
		// text a reviewer's tools show as garbage can carry anything.
		r := RuleByID("hidden.invalid_utf8")
		out = append(out, mk(r, r.Severity, fmt.Sprintf("%s Count: %d.", r.Description, strings.Count(u.text, string(utf8.RuneError))), u.text))
	}
	plain := sc.analyze(p.text, u.part, server, self)
	out = append(out, sc.slotFindings(server, tool, u, p.text)...)
	if sent, ok := tf.scriptSentence(p.text); ok {
		r := RuleByID("inject.run_script")
		out = append(out, mk(r, r.Severity, r.Description, sent))
	}
	// Text inside markup comments is invisible in rendered documentation
	// but read by the model; a comment that gives orders is hiding them.
	for _, body := range tf.markupComments(p.text) {
		ms := sc.analyze(body, u.part, server, self)
		if len(ms) == 0 && lexOf(body)&(fImper|fModal|fAddr|fAddrModel) == 0 && sc.intentFeatures(body, strings.ToLower(body), hintMode, 0)&fModeSwitch == 0 {
			continue
		}
		r := RuleByID("hidden.comment")
		cf := mk(r, r.Severity, r.Description, body)
		if len(ms) > 0 {
			cf.signals |= sigHidden
		}
		out = append(out, cf)
	}
	fired := map[string]bool{}
	for _, m := range plain {
		fired[m.rule.ID] = true
		msg := m.rule.Description
		if m.rule.ID == "xtool.foreign" || m.rule.ID == "xtool.dictate" {
			// A cross-server finding names the pair.
			if owners := sc.names.foreignOwners(m.evidence, server, self, sc.params()); len(owners) > 0 {
				msg = strings.TrimSuffix(msg, ".") + "; it names a tool of server " + strings.Join(owners, ", ") + "."
			}
		}
		out = append(out, mkm(m, msg))
	}
	// Text smuggled outside the visible characters is judged on its own.
	hiddenHits := map[string][]match{}
	for _, h := range p.hiddenTexts {
		hiddenHits[h.via] = sc.analyze(h.text, u.part, server, self)
	}
	for _, n := range p.notes {
		r := RuleByID(n.rule)
		sev := n.severity
		msg := fmt.Sprintf("%s Count: %d.", r.Description, n.count)
		if ms := hiddenHits[n.rule]; len(ms) > 0 {
			sev = Critical
			msg += "; the hidden text gives instructions"
			for _, m := range ms {
				out = append(out, mk(m.rule, max(m.rule.Severity, High), m.rule.Description+" (in text hidden by "+n.rule+")", m.evidence))
			}
		} else if n.rule == "hidden.zero_width" || n.rule == "hidden.confusable" || n.rule == "hidden.fullwidth" || n.rule == "hidden.bidi" {
			// The visible-text rules already ran on the cleaned text; if
			// they fired, the disguise was hiding an instruction.
			if len(plain) > 0 {
				sev = max(sev, High)
				msg += "; the disguised text gives instructions"
			}
		}
		ev := n.decoded
		if n.rule == "hidden.zero_width" || n.rule == "hidden.bidi" {
			ev = u.text // shown with the invisible characters spelled out
		}
		hf := mk(r, sev, msg, ev)
		if sev >= High {
			hf.signals = sigHidden
		}
		out = append(out, hf)
	}
	// Encoded variants: report what the decoding reveals beyond the plain
	// reading.
	for _, d := range tf.encodedVariants(p.text) {
		r := RuleByID(d.via)
		var fresh []match
		for _, m := range sc.analyze(d.text, u.part, server, self) {
			if !fired[m.rule.ID] {
				fresh = append(fresh, m)
			}
		}
		if len(fresh) == 0 {
			if d.via == "encoded.base64" || d.via == "encoded.hex" {
				out = append(out, mk(r, Low, r.Description, d.text))
			}
			continue
		}
		ef := mk(r, max(High, r.Severity), r.Description+"; the decoded text gives instructions", d.text)
		ef.signals = sigHidden
		out = append(out, ef)
		for _, m := range fresh {
			fired[m.rule.ID] = true
			out = append(out, mk(m.rule, max(m.rule.Severity, High), m.rule.Description+" (in "+d.via+" text)", m.evidence))
		}
	}
	return out
}

// maxUnitBytes bounds the text of one metadata string that is analysed.
const maxUnitBytes = 64 << 10

// headTail keeps the first and last n bytes of s, cut at rune boundaries.
func headTail(s string, n int) string {
	h := n
	for h > 0 && !utf8.RuneStart(s[h]) {
		h--
	}
	t := len(s) - n
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return s[:h] + "\n" + s[t:]
}

// dedupe keeps the most serious finding per rule, tool and location.
func dedupe(fs []Finding) []Finding {
	type key struct{ server, rule, tool, loc string }
	best := map[key]int{}
	var out []Finding
	for _, f := range fs {
		k := key{f.Server, f.RuleID, f.Tool, f.Location}
		if i, ok := best[k]; ok {
			if f.Severity > out[i].Severity {
				out[i] = f
			}
			continue
		}
		best[k] = len(out)
		out = append(out, f)
	}
	return out
}

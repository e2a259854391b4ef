package scan

import (
	"strings"
)

// Value slots of a schema (default, const, enum and examples values) hold
// data, and titles hold labels. Neither is where documentation for the
// model goes: a client shows them as values or headings, if at all. Prose
// there that addresses the model, or an order that reaches beyond the
// value itself (another tool, concealment, a prerequisite step, an
// override), is an instruction placed where a reviewer sees data.

// slotKind names the kind of value slot a schema location is, or "".
func slotKind(loc string) string {
	// The segments are read from the end, in place: this runs for every
	// schema string.
	k := strings.LastIndexByte(loc, '/')
	last := loc[k+1:]
	switch last {
	case "default", "const", "example":
		return last
	case "title":
		// The tool's own title, the annotations' title, or a property's
		// title; a property named "title" is a parameter, not a slot.
		if k >= 0 {
			switch loc[strings.LastIndexByte(loc[:k], '/')+1 : k] {
			case "properties", "$defs", "definitions":
				return ""
			}
		}
		return "title"
	}
	for next := last; k >= 0; {
		j := strings.LastIndexByte(loc[:k], '/')
		seg := loc[j+1 : k]
		if (seg == "enum" || seg == "examples") && isIndex(next) {
			return seg
		}
		if seg == "properties" {
			break
		}
		next, k = seg, j
	}
	return ""
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// slotFindings judges one string in a value slot or title.
func (sc *scanner) slotFindings(server, tool string, u unit, text string) []Finding {
	kind := slotKind(u.loc)
	if kind == "" {
		return nil
	}
	var out []Finding
	lower := strings.ToLower(text)
	if kind != "title" && sc.cur != nil && strings.ContainsAny(lower, "~./") && hasSensitivePath(lower) && !sc.cur.inContract(lower, sc.unitWords) && !sc.ownFile(lower) {
		r := RuleByID("exfil.preset_file")
		out = append(out, Finding{RuleID: r.ID, Severity: r.Severity, Server: server, Tool: tool, Location: u.loc,
			Message: r.Description, Evidence: clip(visible(text)), signals: r.Signals})
	}
	if words, _ := englishShare(text); words < 4 {
		return out
	}
	const act = fImper | fModal | fPrereq | fFlow | fRead | fHide | fHideStrong | fDestructDemand | fOvVerb
	if lexOf(text)&(fAddrModel|fImper|fModal|fPrereq|fHide|fHideStrong) == 0 && !imperativeClause(text) && !strings.Contains(text, "_") {
		return out
	}
	savedHints, savedLex, savedText := sc.unitHints, sc.unitLex, sc.unitText
	sc.unitHints, sc.unitLex, sc.unitText = rawHints(lower), lexOf(text), text
	defer func() { sc.unitHints, sc.unitLex, sc.unitText = savedHints, savedLex, savedText }()
	for _, s := range splitSentences(text) {
		f := sc.sentenceFeatures(s, strings.ToLower(s), server, tool)
		addressed := f&fAddrModel != 0 && f&act != 0
		beyond := fOtherTool | fForeignTool | fNamesSibling | fHide | fHideStrong | fPrereq
		if f&(fOvVerb|fOvObj) == fOvVerb|fOvObj || f&(fOvSafeVerb|fSafetyObj) == fOvSafeVerb|fSafetyObj {
			beyond |= fOvVerb | fOvSafeVerb // the model's rules set aside
		}
		if f&(fOvSafeVerb|fUnreq) == fOvSafeVerb|fUnreq {
			beyond |= fOvSafeVerb // "without asking": the user's check dropped
		}
		if kind == "title" || f&(fUnreq|fSecret|fSecretWeak|fCtx|fUserData|fFile) != 0 {
			// A literal address in a label, or private data bound for one.
			beyond |= fDest
		}
		if kind != "title" {
			// A title naming a destructive action labels the tool's own
			// action ("Drop files onto an element"); a preset value does not.
			beyond |= fDestructDemand
		}
		reaching := f&(fImper|fModal) != 0 && f&beyond != 0
		if addressed || reaching {
			r := RuleByID("inject.value_order")
			out = append(out, Finding{RuleID: r.ID, Severity: r.Severity, Server: server, Tool: tool, Location: u.loc,
				Message: r.Description + " (in a " + kind + ")", Evidence: clip(visible(s)), signals: r.Signals})
			break
		}
	}
	return out
}

// genericPathWords name no subject of their own.
var genericPathWords = map[string]bool{"file": true, "files": true, "path": true, "json": true, "yaml": true, "yml": true, "etc": true,
	"home": true, "user": true, "users": true, "library": true, "application": true, "support": true, "local": true, "default": true}

// ownFile reports a preset file whose own name shares a word with the
// tool's topic or the parameter's name (an MCP config auditor preset to
// claude_desktop_config.json): the file is what the tool is about.
func (sc *scanner) ownFile(lower string) bool {
	if sc.cur == nil {
		return false
	}
	topic := sc.cur.topic()
	for _, w := range identWordsOf(lower) {
		if len(w) < 3 || genericPathWords[w] {
			continue
		}
		if topic[w] {
			return true
		}
		for _, p := range sc.unitWords {
			if p == w {
				return true
			}
		}
	}
	return false
}

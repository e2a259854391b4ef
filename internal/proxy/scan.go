package proxy

import (
	"strconv"
	"strings"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/defense"
	"github.com/mcpsec/mcpsec/internal/scan"
)

// Note kinds of the proxy's scan on tools/list.
const (
	NoteScanBlock   = "scan_block"
	NoteScanRedact  = "scan_redact"
	NoteScanFinding = "scan_finding"
	seamTools       = "tool"
)

// ScanTransform judges every listed tool with mcpsec's scanner. A tool
// with a finding at or above blockAt is withheld, or with redact its
// offending text is stripped and the result judged again (still at or
// above blockAt: withheld). Lower findings pass and are noted. Each
// definition is judged and noted once (defense.JudgeOnce, as the
// benchmark's scan arm).
func ScanTransform(blockAt scan.Severity, redact bool) agent.ToolTransform {
	// The scanner builds its indexes on first use, which costs far more
	// than judging a catalog; start that now so that it overlaps the
	// upstreams' own start-up instead of following it.
	go scan.ScanTool("", catalog.Tool{Name: "warm_up"})
	return defense.JudgeOnce(func(t agent.Tool) defense.Verdict {
		def, keep, notes := judge(t, blockAt, redact)
		return defense.Verdict{Keep: keep, Def: &def, Notes: notes}
	})
}

func judge(t agent.Tool, blockAt scan.Severity, redact bool) (catalog.Tool, bool, []agent.Note) {
	fs := scan.ScanTool(t.Server, t.Def)
	var notes []agent.Note
	var blocking []scan.Finding
	for _, f := range fs {
		if f.Severity >= blockAt {
			blocking = append(blocking, f)
			continue
		}
		notes = append(notes, agent.Note{Seam: seamTools, Kind: NoteScanFinding, Tool: t.Def.Name, Rule: f.RuleID,
			Detail: f.Severity.String() + " at " + f.Location + ": " + f.Evidence})
	}
	if len(blocking) == 0 {
		return t.Def, true, notes
	}
	if redact {
		// First strip each finding's evidence where it stands verbatim;
		// what still trips the threshold loses its whole field; what
		// trips it even then (the tool's name) is withheld.
		def := t.Def
		rest := blocking
		for _, whole := range []bool{false, true} {
			for _, f := range rest {
				strip(&def, f, whole)
			}
			rest = nil
			for _, f := range scan.ScanTool(t.Server, def) {
				if f.Severity >= blockAt {
					rest = append(rest, f)
				}
			}
			if len(rest) == 0 {
				break
			}
		}
		if len(rest) == 0 {
			for _, f := range blocking {
				notes = append(notes, agent.Note{Seam: seamTools, Kind: NoteScanRedact, Tool: t.Def.Name, Rule: f.RuleID,
					Detail: f.Severity.String() + " at " + f.Location + ": stripped " + f.Evidence})
			}
			return def, true, notes
		}
	}
	for _, f := range blocking {
		notes = append(notes, agent.Note{Seam: seamTools, Kind: NoteScanBlock, Tool: t.Def.Name, Rule: f.RuleID,
			Detail: f.Severity.String() + " at " + f.Location + ": " + f.Evidence})
	}
	return t.Def, false, notes
}

// strip removes a finding's evidence from the string at its location
// when it stands there verbatim (the scanner may report decoded or
// normalised text), or with whole empties that string.
func strip(def *catalog.Tool, f scan.Finding, whole bool) {
	cut := func(s string) string {
		if whole {
			return ""
		}
		ev := strings.TrimSuffix(f.Evidence, "…")
		if ev != "" && !strings.Contains(f.Evidence, "<U+") {
			return strings.TrimSpace(strings.ReplaceAll(s, ev, ""))
		}
		return s
	}
	switch {
	case f.Location == "description":
		def.Description = cut(def.Description)
	case f.Location == "title":
		def.Title = cut(def.Title)
	case strings.HasPrefix(f.Location, "inputSchema/"):
		def.InputSchema = catalog.CloneObject(def.InputSchema)
		stripPath(def.InputSchema, strings.Split(strings.TrimPrefix(f.Location, "inputSchema/"), "/"), cut)
	case strings.HasPrefix(f.Location, "outputSchema/"):
		def.OutputSchema = catalog.CloneObject(def.OutputSchema)
		stripPath(def.OutputSchema, strings.Split(strings.TrimPrefix(f.Location, "outputSchema/"), "/"), cut)
	case strings.HasPrefix(f.Location, "annotations/"):
		def.Annotations = catalog.CloneObject(def.Annotations)
		stripPath(def.Annotations, strings.Split(strings.TrimPrefix(f.Location, "annotations/"), "/"), cut)
	}
}

var unescapeSeg = strings.NewReplacer("~1", "/", "~0", "~")

func stripPath(m map[string]any, segs []string, cut func(string) string) bool {
	if len(segs) == 0 || m == nil {
		return false
	}
	k := unescapeSeg.Replace(segs[0])
	v, ok := m[k]
	if !ok {
		return false
	}
	if len(segs) == 1 {
		s, ok := v.(string)
		if !ok {
			return false
		}
		m[k] = cut(s)
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		return stripPath(x, segs[1:], cut)
	case []any:
		// Array elements are reached by index; only strings are stripped.
		for i, e := range x {
			if segs[1] == strconv.Itoa(i) {
				if len(segs) == 2 {
					if s, ok := e.(string); ok {
						x[i] = cut(s)
						return true
					}
					return false
				}
				if mm, ok := e.(map[string]any); ok {
					return stripPath(mm, segs[2:], cut)
				}
			}
		}
	}
	return false
}

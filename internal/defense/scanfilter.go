package defense

import (
	"strings"
	"sync"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/scan"
)

// NoteScanDrop is the note kind of a tool the scan filter withheld.
const NoteScanDrop = "scan_drop"

// ToolScanner judges one tool definition without a model and returns the
// rule ids that flag it at medium severity or above (nil when clean).
type ToolScanner func(server string, t catalog.Tool) []string

// defaultScanner is mcpsec's own scanner (the rules of mcpsec scan) at
// the medium threshold.
var defaultScanner ToolScanner = func(server string, t catalog.Tool) []string {
	var rules []string
	seen := map[string]bool{}
	for _, f := range scan.ScanTool(server, t) {
		if f.Severity >= scan.Medium && !seen[f.RuleID] {
			seen[f.RuleID] = true
			rules = append(rules, f.RuleID)
		}
	}
	return rules
}

// ScanFilter withholds from the model every tool the scanner flags. It
// runs on every listing, so a definition that changes later (a rug pull
// announced with list_changed) is judged again; unchanged tools are not
// rescanned (JudgeOnce).
func ScanFilter(scanner ToolScanner) agent.ToolTransform {
	return JudgeOnce(func(t agent.Tool) Verdict {
		rules := scanner(t.Server, t.Def)
		if len(rules) == 0 {
			return Verdict{Keep: true}
		}
		return Verdict{Notes: []agent.Note{{Seam: SeamTools, Kind: NoteScanDrop, Tool: t.Def.Name, Rule: rules[0],
			Detail: t.Server + "/" + t.Def.Name + " flagged by " + strings.Join(rules, ", ")}}}
	})
}

// Verdict is what a tool judge decides about one definition: whether it
// is offered, as Def when the judge rewrote it (nil: as listed), and the
// notes that explain it.
type Verdict struct {
	Keep  bool
	Def   *catalog.Tool
	Notes []agent.Note
}

// JudgeOnce turns a judge of one definition into a tool transform that
// runs on every listing but judges each definition once: verdicts are
// kept by server and full-definition fingerprint, so a definition that
// changes (a rug pull) is judged again and an unchanged one is not, and
// a verdict's notes are given the first time only. The scan arms of the
// benchmark and of the proxy are both made of it.
func JudgeOnce(judge func(agent.Tool) Verdict) agent.ToolTransform {
	var mu sync.Mutex
	verdicts := map[string]Verdict{} // server + fingerprint
	return func(tools []agent.Tool) ([]agent.Tool, []agent.Note) {
		mu.Lock()
		defer mu.Unlock()
		out := make([]agent.Tool, 0, len(tools))
		var notes []agent.Note
		for _, t := range tools {
			key := t.Server + "\x00" + catalog.Fingerprint(t.Def)
			v, ok := verdicts[key]
			if !ok {
				v = judge(t)
				notes = append(notes, v.Notes...)
				verdicts[key] = v
			}
			if !v.Keep {
				continue
			}
			if v.Def != nil {
				t.Def = *v.Def
			}
			out = append(out, t)
		}
		return out, notes
	}
}

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
// announced with list_changed) is judged again; verdicts are cached by
// full-definition fingerprint, so unchanged tools are not rescanned.
func ScanFilter(scanner ToolScanner) agent.ToolTransform {
	var mu sync.Mutex
	verdicts := map[string][]string{} // server + fingerprint -> flagging rules
	noted := map[string]bool{}
	return func(tools []agent.Tool) ([]agent.Tool, []agent.Note) {
		mu.Lock()
		defer mu.Unlock()
		out := make([]agent.Tool, 0, len(tools))
		var notes []agent.Note
		for _, t := range tools {
			key := t.Server + "\x00" + catalog.Fingerprint(t.Def)
			rules, ok := verdicts[key]
			if !ok {
				rules = scanner(t.Server, t.Def)
				verdicts[key] = rules
			}
			if len(rules) == 0 {
				out = append(out, t)
				continue
			}
			if !noted[key] {
				noted[key] = true
				notes = append(notes, agent.Note{Seam: SeamTools, Kind: NoteScanDrop, Tool: t.Def.Name, Rule: rules[0],
					Detail: t.Server + "/" + t.Def.Name + " flagged by " + strings.Join(rules, ", ")})
			}
		}
		return out, notes
	}
}

package scan

import (
	"strings"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

// readOnlyMismatch reports a tool whose annotations call it read-only
// while its own name or first sentence says it moves money, deletes or
// takes something down: clients skip the confirmation they give to
// destructive tools, so the label disarms the user's check.
func readOnlyMismatch(server string, t catalog.Tool) []Finding {
	if ro, _ := t.Annotations["readOnlyHint"].(bool); !ro {
		return nil
	}
	act := ""
	if w := identWordsOf(t.Name); len(w) > 0 && writeVerbs[w[0]] {
		act = t.Name
	}
	if act == "" {
		d := strings.TrimSpace(t.Description)
		if i := strings.IndexAny(d, " \t\n"); i > 0 && writeVerbs3[strings.ToLower(d[:i])] {
			act = d
			if sp := sentenceSpans(d); len(sp) > 0 {
				act = d[sp[0][0]:sp[0][1]]
			}
		}
	}
	if act == "" {
		return nil
	}
	r := RuleByID("meta.readonly_mismatch")
	return []Finding{{RuleID: r.ID, Severity: r.Severity, Server: server, Tool: t.Name, Location: "annotations/readOnlyHint",
		Message: r.Description, Evidence: clip(visible(act)), signals: r.Signals}}
}

// writeVerbs open the names of tools that change or move things for good;
// writeVerbs3 are the same acts as a description's opening word.
var (
	writeVerbs = map[string]bool{"send": true, "transfer": true, "wire": true, "pay": true, "delete": true, "remove": true, "drain": true,
		"evict": true, "wipe": true, "destroy": true, "purge": true, "terminate": true, "drop": true, "cancel": true, "revoke": true,
		"kill": true, "erase": true, "truncate": true, "charge": true, "refund": true, "withdraw": true, "shutdown": true}
	writeVerbs3 = map[string]bool{"sends": true, "transfers": true, "wires": true, "pays": true, "deletes": true, "removes": true,
		"drains": true, "evicts": true, "wipes": true, "destroys": true, "purges": true, "terminates": true, "drops": true, "cancels": true,
		"revokes": true, "kills": true, "erases": true, "truncates": true, "charges": true, "refunds": true, "withdraws": true,
		"cordons": true, "overwrites": true}
)

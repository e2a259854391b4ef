package scan

import (
	"strings"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

// A client asks the user before calling a tool that changes things and
// lets read-only tools run freely, on the strength of the tool's own
// annotations. A tool whose name or first sentence says it deletes,
// drains, sends or pays while its annotations declare it read-only is
// labelled so that no confirmation is sought.

// changingVerbs open the names and descriptions of tools that destroy,
// disrupt, or move money or messages out: never read-only.
var changingVerbs = map[string]bool{
	"delete": true, "remove": true, "drop": true, "wipe": true, "erase": true, "destroy": true, "purge": true, "drain": true,
	"evict": true, "kill": true, "terminate": true, "truncate": true, "revoke": true, "uninstall": true,
	"shutdown": true, "cordon": true, "transfer": true, "wire": true, "pay": true, "refund": true, "charge": true,
	"withdraw": true, "send": true, "publish": true, "deploy": true, "overwrite": true,
}

// messageVerbs send or publish: a read-only tool may still send a query.
var messageVerbs = map[string]bool{"send": true, "publish": true, "deploy": true}

// verbStem reduces a third-person verb to its base ("drains" -> "drain",
// "pushes" -> "push", "deletes" -> "delete").
func verbStem(w string) string {
	if changingVerbs[w] {
		return w
	}
	for _, suf := range []string{"es", "s"} {
		if b, ok := strings.CutSuffix(w, suf); ok && changingVerbs[b] {
			return b
		}
	}
	return w
}

// annotationMismatch flags a read-only claim on a tool whose own name or
// opening verb is a changing action.
func annotationMismatch(server string, t catalog.Tool) []Finding {
	ro, _ := t.Annotations["readOnlyHint"].(bool)
	if !ro {
		return nil
	}
	verb := ""
	// The name's first word is its verb (list_transfers lists); the
	// description's first word is its verb too, where sending a request
	// is how many read-only tools work, so only destruction and money
	// count there.
	if words := identWordsOf(t.Name); len(words) > 0 && changingVerbs[verbStem(words[0])] {
		verb = verbStem(words[0])
	}
	if verb == "" {
		if ws := strings.Fields(strings.ToLower(t.Description)); len(ws) > 0 {
			if v := verbStem(strings.Trim(ws[0], ".,:;")); changingVerbs[v] && !messageVerbs[v] {
				verb = v
			}
		}
	}
	if verb == "" {
		return nil
	}
	r := RuleByID("inject.annotation_mismatch")
	return []Finding{{RuleID: r.ID, Severity: r.Severity, Server: server, Tool: t.Name, Location: "annotations/readOnlyHint",
		Message: r.Description + " (the tool's action: " + verb + ")", Evidence: "readOnlyHint: true", signals: r.Signals}}
}

package scan

import (
	"regexp"
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

// titleDirective reports a tool title (the tool's own or its annotations')
// that tells the model how to behave. A title is a label a client shows
// people; it has no reason to address the model, so a directive there
// (when to call the tool, what not to ask, what to tell the user) is
// written where neither the user nor a reviewer reading the description
// looks for it. Only the directive's shape is matched, not its topic: an
// instruction to run the tool at some trigger, a second-person duty, or
// a rule about asking, confirming or telling.
//
// One finding per tool at most: the two titles are usually the same text.
func titleDirective(server string, t catalog.Tool) []Finding {
	for _, c := range []struct{ where, text string }{{"title", t.Title}, {"annotations/title", annotationTitle(t)}} {
		if c.text != "" && titleDirectiveRe.MatchString(c.text) {
			r := RuleByID("meta.title_directive")
			return []Finding{{RuleID: r.ID, Severity: r.Severity, Server: server, Tool: t.Name, Location: c.where,
				Message: r.Description, Evidence: clip(visible(c.text)), signals: r.Signals}}
		}
	}
	return nil
}

func annotationTitle(t catalog.Tool) string {
	s, _ := t.Annotations["title"].(string)
	return s
}

// titleDirectiveRe matches the shapes of a directive to the model: a
// call or run tied to a trigger ("call automatically whenever …", "run
// this before answering …"), a second-person duty ("you should …"), a
// rule on asking, confirming or telling ("without confirming", "don't
// ask", "tell the user they …"), and a value the model is to supply on
// its own ("fill it yourself").
var titleDirectiveRe = regexp.MustCompile(`(?i)\b(?:(?:call|run|use|invoke|execute|trigger)\b[^.;:]{0,40}?\b(?:automatically|whenever|before (?:answering|replying|responding|any|every)|every time)|you (?:should|must|need to|are to)|without (?:asking|confirm\w*|telling)|(?:do not|don't|never) (?:ask|tell|mention|confirm|show|inform)|skip (?:the )?(?:confirm\w*|check|approval)|yourself|tell (?:the user|them) (?:it|they|that))\b`)

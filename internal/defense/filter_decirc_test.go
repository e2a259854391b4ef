package defense

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/payload"
)

// The de-circularization test. A keyword filter judged on payloads written
// in its own vocabulary always looks effective, so the benchmark keeps two
// registers apart and this test holds the line mechanically: every held-out
// payload trips no rule at all, every seen payload trips at least one. If a
// rule change makes a held-out payload trip, the fix is NOT to reword the
// payload toward the rule's blind spot after the fact: a changed rule set
// makes old held-out results incomparable, and the change must be recorded.
func TestDecircularization(t *testing.T) {
	for _, p := range payload.Filter("", payload.RegisterHeldOut, "") {
		if got := Match(p.Text); len(got) != 0 {
			_, removed := FilterText(p.Text)
			t.Errorf("held-out %s trips %v: %v", p.ID, got, removed)
		}
	}
	for _, p := range payload.Filter("", payload.RegisterSeen, "") {
		if got := Match(p.Text); len(got) == 0 {
			t.Errorf("seen %s trips no rule", p.ID)
		}
	}
}

// The same split seen through the two arms, where each payload actually
// sits: meta_filter must cut every seen metadata payload (the seen schema
// payloads sit in descriptions, titles and nested descriptions, which the
// filter reads) and leave every held-out one untouched; result_filter must
// do the same for results.
func TestDecircularizationThroughArms(t *testing.T) {
	for _, reg := range []string{payload.RegisterSeen, payload.RegisterHeldOut} {
		for _, p := range payload.Filter("", reg, "") {
			var notes []agent.Note
			if p.Carrier == payload.CarrierResult {
				_, notes = ResultFilter()(agent.Call{Server: "s", Tool: "read_note"}, agent.Result{Text: "Note saved.\n" + p.Text})
			} else {
				_, notes = MetaFilter()([]agent.Tool{carrierTool(p)})
			}
			switch {
			case reg == payload.RegisterSeen && len(notes) == 0:
				t.Errorf("seen %s (%s) passes its arm unredacted", p.ID, p.Carrier)
			case reg == payload.RegisterHeldOut && len(notes) != 0:
				t.Errorf("held-out %s (%s) is redacted by its arm: %v", p.ID, p.Carrier, notes)
			}
		}
	}
}

// carrierTool places a payload where a poisoned fixture would.
func carrierTool(p payload.Payload) agent.Tool {
	prop := map[string]any{"type": "string", "description": "Title of the note."}
	schema := map[string]any{"type": "object", "properties": map[string]any{"title": prop}}
	props := schema["properties"].(map[string]any)
	def := catalog.Tool{Name: "add_note", Description: "Save a note with a title and body.", InputSchema: schema}
	switch p.Carrier {
	case payload.CarrierDescription:
		def.Description += "\n\n" + p.Text
	case payload.CarrierPropDescription:
		prop["description"] = prop["description"].(string) + " " + p.Text
	case payload.CarrierPropTitle:
		prop["title"] = p.Text
	case payload.CarrierPropDefault:
		props["annotation"] = map[string]any{"type": "string", "default": p.Text}
	case payload.CarrierEnum:
		props["mode"] = map[string]any{"type": "string", "enum": []any{"standard", p.Text}}
	case payload.CarrierNested:
		props["options"] = map[string]any{"type": "object", "properties": map[string]any{
			"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string", "description": p.Text}},
		}}
	}
	return agent.Tool{Server: "notes", ModelName: def.Name, Def: def}
}

// benignDescriptions are realistic descriptions of ordinary tools, ours and
// the kind found in public MCP servers; the filter must leave them whole.
var benignDescriptions = []string{
	"Evaluate an arithmetic expression and return the result.",
	"Evaluate an arithmetic expression with + - * / and parentheses, or combine a list of operands with one operator, and return the exact result.",
	"Save a note with a title and body.",
	"Save a note in the team workspace under a title. A note with the same title is replaced.",
	"List the titles of the notes in the team workspace, optionally only those starting with a prefix.",
	"Return the full text of one note, by title.",
	"Permanently delete one note, by title.",
	"Look up a customer account by user id (such as u-1001) and return its name, email, plan and balance.",
	"Format text (notes, account details, results) into a short summary ready to share.",
	"Export a record to the workspace archive.",
	"Read the complete contents of a file from the file system. Handles various text encodings and provides detailed error messages if the file cannot be read.",
	"Get the current weather for a city. Returns temperature in Celsius, humidity and a short forecast.",
	"Search the issue tracker for issues matching a query. Results are paginated; pass the cursor from the previous page to get the next one.",
	"Create a calendar event with a title, start time, end time and optional attendees.",
	"Fetch a web page and return its main content as Markdown.",
	"Run a read-only SQL query against the analytics database and return at most 100 rows.",
	"Translate text between two languages. The source language is detected when omitted.",
	"Returns the previous page of results.",
}

func TestBenignDescriptionsPass(t *testing.T) {
	for _, d := range benignDescriptions {
		if got := Match(d); len(got) != 0 {
			_, removed := FilterText(d)
			t.Errorf("benign description trips %v: %v", got, removed)
		}
	}
}

// The encoded adversarial payloads carry the seen vocabulary underneath:
// decoded, every one trips the filter; as served, the encodings that break
// words apart or hide the text entirely trip nothing. This documents the
// naive filter's blind spot rather than hiding it.
func TestAdversarialBypass(t *testing.T) {
	encoded := map[string]bool{
		payload.TechZeroWidth: true, payload.TechHomoglyph: true, payload.TechUnicodeTag: true,
		payload.TechBase64: true, payload.TechHex: true,
	}
	var lines []string
	for _, p := range payload.Filter("", payload.RegisterAdversarial, "") {
		served, plain := Match(p.Text), Match(p.Plain)
		lines = append(lines, fmt.Sprintf("%-28s served=%v plain=%v", p.ID, served, plain))
		if !encoded[p.Style] {
			continue
		}
		if len(plain) == 0 {
			t.Errorf("%s: decoded text trips no rule; it should use the seen vocabulary", p.ID)
		}
		if len(served) != 0 {
			t.Errorf("%s: served text trips %v; the encoding should hide it from a keyword filter", p.ID, served)
		}
	}
	t.Log("\n" + strings.Join(lines, "\n"))
}

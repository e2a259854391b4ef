package scan

import (
	"sort"
)

// Finding is one thing the scanner found wrong with a catalog.
type Finding struct {
	RuleID   string   `json:"rule_id"`
	Severity Severity `json:"severity"`
	// Server names the server the finding belongs to; it is not part of
	// the JSON finding because findings are grouped by server there.
	Server string `json:"-"`
	// Tool is the tool's name, or empty for server-level findings
	// (instructions, prompts, resources, name collisions).
	Tool string `json:"tool"`
	// Location is a slash-separated path into the tool definition
	// ("description", "inputSchema/properties/x/description") or into the
	// server ("instructions", "prompts/NAME/description").
	Location string `json:"location"`
	Message  string `json:"message"`
	Evidence string `json:"evidence"`
}

// MarshalJSON renders an empty Tool as null, as the JSON contract says.
func (f Finding) jsonTool() any {
	if f.Tool == "" {
		return nil
	}
	return f.Tool
}

// ServerReport is the verdict on one server.
type ServerReport struct {
	Name     string    `json:"name"`
	Grade    string    `json:"grade"`
	Score    int       `json:"score"`
	Findings []Finding `json:"findings"`
}

// Report is the verdict on a whole catalog.
type Report struct {
	Servers []ServerReport `json:"servers"`
}

// All returns every finding of every server.
func (r Report) All() []Finding {
	var out []Finding
	for _, s := range r.Servers {
		out = append(out, s.Findings...)
	}
	return out
}

// sortFindings orders findings most serious first, then by tool and
// location, so that output is stable.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.Tool != b.Tool {
			return a.Tool < b.Tool
		}
		if a.Location != b.Location {
			return a.Location < b.Location
		}
		if a.RuleID != b.RuleID {
			return a.RuleID < b.RuleID
		}
		return a.Evidence < b.Evidence
	})
}

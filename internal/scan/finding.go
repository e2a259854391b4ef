package scan

import (
	"encoding/json"
	"sort"
	"strings"
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
	// signals are the kinds of evidence this finding contributes to its
	// tool's severity (see agree); not part of any output.
	signals signal
	// weak marks evidence that shows a cue as an example or as the
	// object of the tool's own analysis (a detector naming the attacks it
	// detects): it counts only when other evidence on the tool agrees.
	weak bool
}

// MarshalJSON writes the contract's field order and renders an empty Tool
// as null.
func (f Finding) MarshalJSON() ([]byte, error) {
	var tool *string
	if f.Tool != "" {
		tool = &f.Tool
	}
	return json.Marshal(struct {
		RuleID   string   `json:"rule_id"`
		Severity Severity `json:"severity"`
		Tool     *string  `json:"tool"`
		Location string   `json:"location"`
		Message  string   `json:"message"`
		Evidence string   `json:"evidence"`
	}{f.RuleID, f.Severity, tool, f.Location, f.Message, f.Evidence})
}

// UnmarshalJSON reads a finding written by MarshalJSON.
func (f *Finding) UnmarshalJSON(b []byte) error {
	var raw struct {
		RuleID   string   `json:"rule_id"`
		Severity Severity `json:"severity"`
		Tool     *string  `json:"tool"`
		Location string   `json:"location"`
		Message  string   `json:"message"`
		Evidence string   `json:"evidence"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*f = Finding{RuleID: raw.RuleID, Severity: raw.Severity, Location: raw.Location, Message: raw.Message, Evidence: raw.Evidence}
	if raw.Tool != nil {
		f.Tool = *raw.Tool
	}
	return nil
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
		// What changed since the lockfile is the news of a scan against a
		// lock: a serious drift finding leads the serious findings, so a
		// short listing still shows it.
		if da, db := strings.HasPrefix(a.RuleID, "drift.") && a.Severity >= High, strings.HasPrefix(b.RuleID, "drift.") && b.Severity >= High; da != db && a.Severity >= High && b.Severity >= High {
			return da
		}
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		// Among equals, what changed since the lockfile comes first: it
		// is the news of a scan against a lock.
		if da, db := strings.HasPrefix(a.RuleID, "drift."), strings.HasPrefix(b.RuleID, "drift."); da != db {
			return da
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

package redteam

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/stats"
)

// ReportVersion is carried by every JSON report and matches the version
// in schema/redteam-report.schema.json. Bump it when a field is renamed
// or removed.
const ReportVersion = 1

// Report is a red-team run: a per-model exploitability signal. It is
// never folded into the scan grade, which describes the server whatever
// model is pointed at it.
type Report struct {
	SchemaVersion int           `json:"schema_version"`
	Version       string        `json:"mcpsec_version,omitempty"`
	Target        string        `json:"target"`
	Arm           string        `json:"arm"`
	Adaptive      bool          `json:"adaptive"`
	MaxAttempts   int           `json:"max_attempts,omitempty"`
	Models        []ModelReport `json:"models"`
	// Matrix is the models x scenarios compatibility view (two or more
	// models only).
	Matrix *Matrix `json:"matrix,omitempty"`
}

// ModelReport is one model's (or control agent's) results.
type ModelReport struct {
	Model string `json:"model"`
	// Control marks a control agent: not a model, and never mixed into
	// model rows.
	Control     bool             `json:"control"`
	Scenarios   []ScenarioResult `json:"scenarios"`
	Totals      Tally            `json:"totals"`
	ByClass     []Tally          `json:"by_class"`
	ByObjective []Tally          `json:"by_objective"`
}

// Tally counts outcomes. ExploitRate is exploited over exploited +
// resisted, with its Wilson 95% interval; errored and not_applicable
// scenarios are shown beside it, never in the denominator.
type Tally struct {
	Key           string         `json:"key,omitempty"`
	Resisted      int            `json:"resisted"`
	Exploited     int            `json:"exploited"`
	Errored       int            `json:"errored"`
	NotApplicable int            `json:"not_applicable"`
	ExploitRate   *float64       `json:"exploit_rate"`
	Wilson        stats.Interval `json:"wilson95"`
}

func (t *Tally) add(outcome string) {
	switch outcome {
	case Resisted:
		t.Resisted++
	case Exploited:
		t.Exploited++
	case Errored:
		t.Errored++
	case NotApplicable:
		t.NotApplicable++
	}
}

func (t *Tally) close() {
	n := t.Resisted + t.Exploited
	t.Wilson = stats.Wilson(t.Exploited, n)
	if n > 0 {
		r := float64(t.Exploited) / float64(n)
		t.ExploitRate = &r
	}
}

func (m *ModelReport) tally() {
	m.Totals = Tally{}
	classes := map[string]*Tally{}
	objectives := map[string]*Tally{}
	for _, s := range m.Scenarios {
		m.Totals.add(s.Outcome)
		if classes[s.Class] == nil {
			classes[s.Class] = &Tally{Key: s.Class}
		}
		classes[s.Class].add(s.Outcome)
		if objectives[s.Objective] == nil {
			objectives[s.Objective] = &Tally{Key: s.Objective}
		}
		objectives[s.Objective].add(s.Outcome)
	}
	m.Totals.close()
	m.ByClass, m.ByObjective = []Tally{}, []Tally{}
	for _, c := range payload.Classes {
		if t := classes[c]; t != nil {
			t.close()
			m.ByClass = append(m.ByClass, *t)
		}
	}
	for _, o := range Objectives {
		if t := objectives[o]; t != nil {
			t.close()
			m.ByObjective = append(m.ByObjective, *t)
		}
	}
}

// Matrix is the compatibility view: one row per scenario, one column per
// model, each cell an outcome.
type Matrix struct {
	Models    []string   `json:"models"`
	Scenarios []string   `json:"scenarios"`
	Outcomes  [][]string `json:"outcomes"`
}

func (r *Report) buildMatrix() {
	if len(r.Models) < 2 {
		return
	}
	m := &Matrix{}
	for _, mr := range r.Models {
		m.Models = append(m.Models, modelLabel(mr))
	}
	var ids []string
	for _, mr := range r.Models {
		for _, s := range mr.Scenarios {
			if !slices.Contains(ids, s.ID) {
				ids = append(ids, s.ID)
			}
		}
	}
	m.Scenarios = ids
	for _, id := range ids {
		row := make([]string, len(r.Models))
		for j, mr := range r.Models {
			row[j] = "-"
			for _, s := range mr.Scenarios {
				if s.ID == id {
					row[j] = s.Outcome
				}
			}
		}
		m.Outcomes = append(m.Outcomes, row)
	}
	r.Matrix = m
}

// modelLabel is how a model is named in reports: control agents always
// carry "(control)".
func modelLabel(m ModelReport) string {
	if m.Control {
		return m.Model + " (control)"
	}
	return m.Model
}

// Formats are the report formats, one writer file each.
var Formats = []string{"text", "json", "md", "html"}

// Write renders the report in a format.
func Write(w io.Writer, r *Report, format string) error {
	switch format {
	case "text", "":
		return WriteText(w, r)
	case "json":
		return WriteJSON(w, r)
	case "md", "markdown":
		return WriteMarkdown(w, r)
	case "html":
		return WriteHTML(w, r, "")
	}
	return fmt.Errorf("unknown format %q (want text, json, md or html)", format)
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

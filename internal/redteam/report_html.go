package redteam

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
)

//go:embed report_html.tmpl
var reportHTMLText string

var reportHTMLTemplate = template.Must(template.New("redteam").Parse(reportHTMLText))

type htmlRTPage struct {
	R       *Report
	Models  []htmlRTModel
	Rows    []htmlRTRow
	Details []htmlRTDetail
	Mode    string
}

type htmlRTModel struct {
	Label, Spec string
	Control     bool
	Totals      string
	ByClass     []htmlRTTally
}

type htmlRTTally struct{ Key, Cells string }

type htmlRTRow struct {
	ID, Class, Objective string
	Cells                []htmlRTCell
}

type htmlRTCell struct {
	Model, Scenario, Outcome, Anchor string
	Present                          bool
}

type htmlRTDetail struct {
	Anchor, Model, Scenario, Title, Outcome, Reason, Converter string
	Failed                                                     []htmlRTFailed
	Attempts                                                   []htmlRTAttempt
}

type htmlRTFailed struct{ Path, Matcher, Expected, Observed string }

type htmlRTAttempt struct {
	N                       int
	Converter, Outcome, Err string
	Envelope, EnvelopeHref  string
	Trace, TraceHref        string
}

// WriteHTML writes the report as one self-contained HTML page: the models
// x scenarios matrix, each cell linking to that run's outcome, failed
// checks and the envelope and trace files of its attempts. linkBase is the
// directory the page is written to (links to envelopes are made relative
// to it); "" keeps the paths as they are. The page has no script and
// loads nothing; the envelope links are followed only when clicked.
func WriteHTML(w io.Writer, r *Report, linkBase string) error {
	p := htmlRTPage{R: r, Mode: "single attempt per scenario"}
	if r.Adaptive {
		p.Mode = "adaptive converter ladder"
		if r.MaxAttempts > 0 {
			p.Mode += fmt.Sprintf(", at most %d attempts", r.MaxAttempts)
		}
	}
	href := func(path string) string {
		if path == "" || linkBase == "" {
			return filepath.ToSlash(path)
		}
		if rel, err := filepath.Rel(linkBase, path); err == nil {
			return filepath.ToSlash(rel)
		}
		return filepath.ToSlash(path)
	}
	index := map[string]int{}
	var ids []string
	var meta []ScenarioResult
	for _, m := range r.Models {
		for _, s := range m.Scenarios {
			if _, ok := index[s.ID]; !ok {
				index[s.ID] = len(ids)
				ids = append(ids, s.ID)
				meta = append(meta, s)
			}
		}
	}
	p.Rows = make([]htmlRTRow, len(ids))
	for i, id := range ids {
		p.Rows[i] = htmlRTRow{ID: id, Class: meta[i].Class, Objective: meta[i].Objective, Cells: make([]htmlRTCell, len(r.Models))}
	}
	for mi, m := range r.Models {
		hm := htmlRTModel{Label: modelLabel(m), Spec: m.Model, Control: m.Control, Totals: tallyText(m.Totals)}
		for _, t := range m.ByClass {
			hm.ByClass = append(hm.ByClass, htmlRTTally{Key: t.Key, Cells: tallyCells(t)})
		}
		p.Models = append(p.Models, hm)
		for ri := range p.Rows {
			p.Rows[ri].Cells[mi] = htmlRTCell{Model: m.Model, Scenario: p.Rows[ri].ID}
		}
		for _, s := range m.Scenarios {
			anchor := fmt.Sprintf("m%d-%s", mi, s.ID)
			p.Rows[index[s.ID]].Cells[mi] = htmlRTCell{Model: m.Model, Scenario: s.ID, Outcome: s.Outcome, Anchor: anchor, Present: true}
			d := htmlRTDetail{Anchor: anchor, Model: modelLabel(m), Scenario: s.ID, Title: s.Title, Outcome: s.Outcome,
				Reason: s.Reason, Converter: s.Converter}
			for _, f := range s.FailedChecks {
				obs := "absent"
				if !f.Absent {
					obs = Text(f.Observed)
				}
				d.Failed = append(d.Failed, htmlRTFailed{Path: f.Path, Matcher: f.Matcher, Expected: Text(f.Expected), Observed: clip(obs, 400)})
			}
			for _, a := range s.Attempts {
				d.Attempts = append(d.Attempts, htmlRTAttempt{N: a.N, Converter: a.Converter, Outcome: a.Outcome, Err: a.Error,
					Envelope: a.Envelope, EnvelopeHref: href(a.Envelope), Trace: a.Trace, TraceHref: href(a.Trace)})
			}
			p.Details = append(p.Details, d)
		}
	}
	if err := reportHTMLTemplate.Execute(w, p); err != nil {
		return fmt.Errorf("write HTML report: %w", err)
	}
	return nil
}

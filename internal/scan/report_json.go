package scan

import (
	"encoding/json"
	"fmt"
	"io"
)

// SchemaVersion is the version of the scan JSON output.
const SchemaVersion = 1

// jsonReport is the documented JSON shape of a scan.
type jsonReport struct {
	SchemaVersion int          `json:"schema_version"`
	Scanned       Counts       `json:"scanned"`
	NothingToScan bool         `json:"nothing_to_scan,omitempty"`
	Servers       []jsonServer `json:"servers"`
	Suppressed    []Suppressed `json:"suppressed"`
}

// jsonServer is one server's verdict. Grade is null for a server that
// offered nothing to judge.
type jsonServer struct {
	Name          string    `json:"name"`
	Grade         *string   `json:"grade"`
	Score         int       `json:"score"`
	NothingToScan bool      `json:"nothing_to_scan,omitempty"`
	Note          string    `json:"note,omitempty"`
	Suppressed    int       `json:"suppressed"`
	Findings      []Finding `json:"findings"`
}

// JSONWriter writes the scan JSON contract (DESIGN.md).
type JSONWriter struct{}

// Write writes the outcome as JSON.
func (JSONWriter) Write(w io.Writer, out Output) error {
	held := map[string]int{}
	for _, sp := range out.Suppressed {
		held[sp.Server]++
	}
	doc := jsonReport{SchemaVersion: SchemaVersion, Scanned: out.Scanned, NothingToScan: out.Scanned.Empty(),
		Servers: []jsonServer{}, Suppressed: out.Suppressed}
	if doc.Suppressed == nil {
		doc.Suppressed = []Suppressed{}
	}
	for _, s := range out.Report.Servers {
		js := jsonServer{Name: s.Name, Score: s.Score, Suppressed: held[s.Name], Findings: s.Findings, Note: out.Notes[s.Name]}
		if out.Empty[s.Name] {
			js.NothingToScan = true
		} else {
			g := s.Grade
			js.Grade = &g
		}
		if js.Findings == nil {
			js.Findings = []Finding{}
		}
		doc.Servers = append(doc.Servers, js)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write json report: %w", err)
	}
	return nil
}

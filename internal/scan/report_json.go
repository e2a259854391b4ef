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
	SchemaVersion int            `json:"schema_version"`
	Servers       []ServerReport `json:"servers"`
}

// JSONWriter writes the scan JSON contract (DESIGN.md).
type JSONWriter struct{}

// Write writes the report as JSON.
func (JSONWriter) Write(w io.Writer, rep Report) error {
	servers := rep.Servers
	if servers == nil {
		servers = []ServerReport{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(jsonReport{SchemaVersion: SchemaVersion, Servers: servers}); err != nil {
		return fmt.Errorf("write json report: %w", err)
	}
	return nil
}

package redteam

import (
	"encoding/json"
	"io"
)

// WriteJSON writes the report as indented JSON (the shape of
// schema/redteam-report.schema.json). A CI gate reads exploitability
// from here: the exit code never carries it.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

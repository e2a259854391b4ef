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

// WriteJSONValue writes any value as indented JSON without HTML escaping.
func WriteJSONValue(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

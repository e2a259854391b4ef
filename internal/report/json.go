package report

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes the summary as indented JSON (summary.json).
func WriteJSON(w io.Writer, s *Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("summary.json: %w", err)
	}
	return nil
}

package scan

import (
	"fmt"
	"io"
)

// A Writer renders a report in one output format. Each format lives in
// its own file: report_text.go, report_json.go, report_sarif.go.
type Writer interface {
	Write(w io.Writer, rep Report) error
}

// Formats lists the output formats, in the order help text gives them.
var Formats = []string{"text", "json", "sarif"}

// ErrFormat means an unknown output format was asked for.
var ErrFormat = fmt.Errorf("unknown output format: want text, json or sarif")

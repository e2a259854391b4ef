package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes the summary (summary.json): one top-level field per
// line, and in each list one compact element per line, so the file reads
// and diffs line by line (and greps to one cell) without the indentation
// that used to make up nearly half of it. Cells and deltas are encoded one
// at a time, so a sweep with many cells never holds the whole document in
// memory; the document is the same as encoding the Summary in one go.
func WriteJSON(w io.Writer, s *Summary) error {
	bw := bufio.NewWriter(w)
	if err := writeJSON(bw, s); err != nil {
		return fmt.Errorf("summary.json: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("summary.json: %w", err)
	}
	return nil
}

func writeJSON(w *bufio.Writer, s *Summary) error {
	field := func(name string, v any, last bool) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %q: %s", name, b)
		if !last {
			w.WriteString(",")
		}
		w.WriteString("\n")
		return nil
	}
	list := func(name string, n int, elem func(i int) any, last bool) error {
		fmt.Fprintf(w, "  %q: ", name)
		if n == 0 {
			w.WriteString("[]")
		} else {
			w.WriteString("[\n")
			for i := range n {
				b, err := json.Marshal(elem(i))
				if err != nil {
					return err
				}
				w.WriteString("    ")
				w.Write(b)
				if i < n-1 {
					w.WriteString(",")
				}
				w.WriteString("\n")
			}
			w.WriteString("  ]")
		}
		if !last {
			w.WriteString(",")
		}
		w.WriteString("\n")
		return nil
	}
	w.WriteString("{\n")
	warnings := s.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	for _, f := range []struct {
		name string
		v    any
	}{{"schema_version", s.SchemaVersion}, {"counts", s.Counts}, {"warnings", warnings}, {"metric_names", s.Metrics}} {
		if err := field(f.name, f.v, false); err != nil {
			return err
		}
	}
	if err := list("cells", len(s.Cells), func(i int) any { return &s.Cells[i] }, false); err != nil {
		return err
	}
	if err := list("rollup", len(s.Rollup), func(i int) any { return &s.Rollup[i] }, false); err != nil {
		return err
	}
	if err := list("rollup_all_registers", len(s.RollupAllRegisters), func(i int) any { return &s.RollupAllRegisters[i] }, false); err != nil {
		return err
	}
	if err := list("deltas", len(s.Deltas), func(i int) any { return &s.Deltas[i] }, false); err != nil {
		return err
	}
	if err := list("case_metrics", len(s.CaseMetrics), func(i int) any { return &s.CaseMetrics[i] }, true); err != nil {
		return err
	}
	_, err := w.WriteString("}\n")
	return err
}

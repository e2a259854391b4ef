package scan

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiBlue   = "\x1b[34m"
	ansiDim    = "\x1b[2m"
)

func severityColor(s Severity) string {
	switch s {
	case Critical, High:
		return ansiRed
	case Medium:
		return ansiYellow
	case Low:
		return ansiBlue
	}
	return ansiDim
}

// TextWriter writes a report for people.
type TextWriter struct {
	// Color adds ANSI colors; callers enable it only for a terminal.
	Color bool
}

// Write writes the outcome as text.
func (tw TextWriter) Write(w io.Writer, out Output) error {
	color := tw.Color
	rep := out.Report
	held := map[string]int{}
	by := map[string]int{}
	for _, sp := range out.Suppressed {
		held[sp.Server]++
		by[sp.By]++
	}
	bw := bufio.NewWriter(w)
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return code + s + ansiReset
	}
	if out.Scanned.Empty() {
		fmt.Fprintf(bw, "nothing to scan: %s\n", out.Scanned)
	} else {
		fmt.Fprintf(bw, "scanned %s\n", out.Scanned)
	}
	for _, s := range rep.Servers {
		fmt.Fprintln(bw)
		if out.Empty[s.Name] {
			fmt.Fprintf(bw, "%s  nothing to scan (no tools, prompts, resources or instructions)\n", paint(ansiBold, "server "+s.Name))
			continue
		}
		counts := map[Severity]int{}
		for _, f := range s.Findings {
			counts[f.Severity]++
		}
		var parts []string
		for sev := Critical; sev >= Info; sev-- {
			if counts[sev] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[sev], sev))
			}
		}
		summary := "no findings"
		if len(parts) > 0 {
			summary = strings.Join(parts, ", ")
		}
		if n := held[s.Name]; n > 0 {
			summary += fmt.Sprintf(" (%d suppressed)", n)
		}
		if note := out.Notes[s.Name]; note != "" {
			summary += "\n  " + note
		}
		fmt.Fprintf(bw, "%s  grade %s (%d/100)  %s\n", paint(ansiBold, "server "+s.Name), paint(ansiBold, s.Grade), s.Score, summary)
		for _, f := range s.Findings {
			where := f.Location
			if f.Tool != "" {
				where = "tool " + f.Tool + " " + f.Location
			}
			fmt.Fprintf(bw, "  %s %s  %s\n", paint(severityColor(f.Severity), fmt.Sprintf("%-8s", strings.ToUpper(f.Severity.String()))), f.RuleID, where)
			fmt.Fprintf(bw, "           %s\n", f.Message)
			if f.Evidence != "" {
				ev := strings.ReplaceAll(f.Evidence, "\n", "\n             ")
				fmt.Fprintf(bw, "           %s %s\n", paint(ansiDim, "evidence:"), ev)
			}
		}
	}
	if len(out.Suppressed) > 0 {
		fmt.Fprintf(bw, "\n%d %s suppressed (%d by the baseline, %d by the ignore file); not shown above\n",
			len(out.Suppressed), plural(len(out.Suppressed), "finding"), by["baseline"], by["ignore"])
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write text report: %w", err)
	}
	return nil
}

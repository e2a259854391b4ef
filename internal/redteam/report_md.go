package redteam

import (
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown writes the report as GitHub-flavoured Markdown.
func WriteMarkdown(w io.Writer, r *Report) error {
	bw := &errWriter{w: w}
	bw.printf("# Red-team report\n\n")
	bw.printf("- target: %s\n- defense arm: `%s`\n- adaptive: %v\n", mdEsc(r.Target), r.Arm, r.Adaptive)
	if r.MaxAttempts > 0 {
		bw.printf("- max attempts: %d\n", r.MaxAttempts)
	}
	bw.printf("\nThis is a per-model exploitability signal, not a grade: the scan grade describes the server whatever model is pointed at it. Rates are exploited / (exploited + resisted) with 95%% Wilson intervals; errored and not-applicable scenarios are counted beside them, never in them.\n")
	for _, m := range r.Models {
		bw.printf("\n## %s\n\n", mdEsc(modelLabel(m)))
		bw.printf("| scenario | class | objective | outcome | detail |\n|---|---|---|---|---|\n")
		for _, s := range m.Scenarios {
			d := detail(s, r.Adaptive)
			if s.Outcome == Exploited {
				var fs []string
				for _, f := range s.FailedChecks {
					fs = append(fs, describeFailed(f))
				}
				d = strings.TrimSpace(d + " " + strings.Join(fs, "; "))
			}
			bw.printf("| %s | %s | %s | **%s** | %s |\n", s.ID, s.Class, s.Objective, s.Outcome, mdEsc(d))
		}
		bw.printf("\nTotals: %s\n\n", tallyText(m.Totals))
		bw.printf("| by | key | exploited/n | rate [95%% Wilson] | errored | n/a |\n|---|---|---|---|---|---|\n")
		for _, t := range m.ByClass {
			bw.printf("| class | %s | %s |\n", t.Key, strings.ReplaceAll(tallyCells(t), "\t", " | "))
		}
		for _, t := range m.ByObjective {
			bw.printf("| objective | %s | %s |\n", t.Key, strings.ReplaceAll(tallyCells(t), "\t", " | "))
		}
	}
	if r.Matrix != nil {
		cols := make([]string, len(r.Matrix.Models))
		for i, m := range r.Matrix.Models {
			cols[i] = mdEsc(m)
		}
		bw.printf("\n## Compatibility (scenario x model)\n\n| scenario | %s |\n|---|%s\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
		for i, id := range r.Matrix.Scenarios {
			bw.printf("| %s | %s |\n", id, strings.Join(r.Matrix.Outcomes[i], " | "))
		}
	}
	return bw.err
}

func mdEsc(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\n", " ")
	return fmt.Sprint(s)
}

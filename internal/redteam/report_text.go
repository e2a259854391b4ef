package redteam

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText writes the report for a terminal.
func WriteText(w io.Writer, r *Report) error {
	bw := &errWriter{w: w}
	mode := "single attempt per scenario"
	if r.Adaptive {
		mode = "adaptive converter ladder"
		if r.MaxAttempts > 0 {
			mode += fmt.Sprintf(", at most %d attempts", r.MaxAttempts)
		}
	}
	bw.printf("mcpsec redteam: target %s, defense arm %s, %s\n", r.Target, r.Arm, mode)
	bw.printf("a per-model signal, not a grade: the scan grade describes the server whatever the model\n")
	for _, m := range r.Models {
		bw.printf("\n== %s\n", modelLabel(m))
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "scenario\tclass\tobjective\toutcome\tdetail")
		for _, s := range m.Scenarios {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.ID, s.Class, s.Objective, s.Outcome, detail(s, r.Adaptive))
		}
		_ = tw.Flush()
		for _, s := range m.Scenarios {
			if s.Outcome != Exploited {
				continue
			}
			bw.printf("  %s failed:\n", s.ID)
			for _, f := range s.FailedChecks {
				bw.printf("    %s\n", describeFailed(f))
			}
		}
		bw.printf("  totals: %s\n", tallyText(m.Totals))
		tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  by\tkey\texploited/n\trate [95% Wilson]\terrored\tn/a")
		for _, t := range m.ByClass {
			fmt.Fprintf(tw, "  class\t%s\t%s\n", t.Key, tallyCells(t))
		}
		for _, t := range m.ByObjective {
			fmt.Fprintf(tw, "  objective\t%s\t%s\n", t.Key, tallyCells(t))
		}
		_ = tw.Flush()
	}
	if r.Matrix != nil {
		bw.printf("\ncompatibility (scenario x model):\n")
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "scenario\t%s\n", strings.Join(r.Matrix.Models, "\t"))
		for i, id := range r.Matrix.Scenarios {
			fmt.Fprintf(tw, "%s\t%s\n", id, strings.Join(r.Matrix.Outcomes[i], "\t"))
		}
		_ = tw.Flush()
	}
	return bw.err
}

func detail(s ScenarioResult, adaptive bool) string {
	switch s.Outcome {
	case NotApplicable, Errored:
		return s.Reason
	}
	if !adaptive {
		return ""
	}
	var steps []string
	for _, a := range s.Attempts {
		steps = append(steps, a.Converter+"="+a.Outcome)
	}
	out := "ladder: " + strings.Join(steps, " ")
	if s.Converter != "" {
		out += "; landed by " + s.Converter
	}
	return out
}

func describeFailed(f FailedCheck) string {
	obs := "absent"
	if !f.Absent {
		obs = Text(f.Observed)
	}
	ci := ""
	if f.CaseInsensitive {
		ci = " (case-insensitive)"
	}
	return fmt.Sprintf("%s %s %s%s; observed %s", f.Path, f.Matcher, Text(f.Expected), ci, clip(obs, 160))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func tallyText(t Tally) string {
	return fmt.Sprintf("%d exploited, %d resisted, %d errored, %d not applicable; %s", t.Exploited, t.Resisted, t.Errored, t.NotApplicable, rateText(t))
}

func tallyCells(t Tally) string {
	return fmt.Sprintf("%d/%d\t%s\t%d\t%d", t.Exploited, t.Exploited+t.Resisted, rateText(t), t.Errored, t.NotApplicable)
}

func rateText(t Tally) string {
	if t.ExploitRate == nil {
		return "no rate (nothing judged)"
	}
	return fmt.Sprintf("%.0f%% [%.0f%%, %.0f%%]", 100**t.ExploitRate, 100*t.Wilson.Low, 100*t.Wilson.High)
}

// errWriter keeps the first write error so writers need not check each
// line.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, a ...any) { fmt.Fprintf(e, format, a...) }

// WriteVerdict prints one oracle verdict (redteam check) as text or
// JSON.
func WriteVerdict(w io.Writer, v Verdict, format string) error {
	if format == "json" {
		return WriteJSONValue(w, v)
	}
	bw := &errWriter{w: w}
	bw.printf("%s: %s\n", v.Scenario, v.Outcome)
	for _, f := range v.FailedChecks {
		bw.printf("  failed: %s\n", describeFailed(f))
	}
	return bw.err
}

package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"text/tabwriter"

	"github.com/mcpsec/mcpsec/internal/defense"
	"github.com/mcpsec/mcpsec/internal/model"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/report"
)

// writeReports aggregates a run directory, writes its report files and
// prints the attack-success matrix; with html it also writes report.html.
func writeReports(env *Env, dir string, html bool) error {
	s, err := report.Aggregate(dir)
	if err != nil {
		return inputErr(err)
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(env.Stderr, "mcpsec: warning: %s\n", w)
	}
	if err := report.WriteAll(dir, s); err != nil {
		return fmt.Errorf("write reports: %w", err)
	}
	printMatrix(env.Stdout, s)
	fmt.Fprintf(env.Stdout, "\nreports: %s (RESULTS.md, summary.json, matrix_*.csv, deltas_vs_none.md)\n", dir)
	if html {
		path, err := writeHTMLReport(env, dir, s)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "HTML report: %s\n", path)
	}
	return nil
}

// htmlOptions orders the page's arms, classes and registers as the rest
// of mcpsec does.
func htmlOptions() report.HTMLOptions {
	return report.HTMLOptions{ArmOrder: defense.Arms, ClassOrder: payload.Classes, RegisterOrder: payload.Registers}
}

// writeHTMLReport writes dir/report.html and says on stderr how much of
// the trace detail it embedded.
func writeHTMLReport(env *Env, dir string, s *report.Summary) (string, error) {
	st, err := report.WriteHTMLFile(dir, s, htmlOptions())
	if err != nil {
		return "", fmt.Errorf("write %s: %w", report.HTMLFile, err)
	}
	fmt.Fprintf(env.Stderr, "report.html: %d kB, %d of %d attacked trials listed, timelines embedded for %d\n",
		(st.Bytes+999)/1000, st.TrialsListed, st.TrialsTotal, st.TracesEmbedded)
	return filepath.Join(dir, report.HTMLFile), nil
}

// printMatrix prints, per model and arm, the attack success rate
// (objective met) per class over all registers and objectives, plus the
// benign utility. Control agents are printed in their own block.
func printMatrix(w io.Writer, s *report.Summary) {
	type key struct{ model, arm, class string }
	type kn struct{ k, n, errs int }
	success := map[key]kn{}
	util := map[key]kn{}
	models := map[string]bool{}
	arms := map[string]bool{}
	for _, c := range s.Rollup {
		models[c.Model] = true
		arms[c.Arm] = true
		k := key{c.Model, c.Arm, c.Class}
		if c.Class == report.BenignClass {
			r := c.Metrics[report.MetricUtility]
			v := util[k]
			util[k] = kn{v.k + r.K, v.n + r.N, v.errs + c.Errors}
			continue
		}
		r := c.Metrics[report.MetricObjectiveMet]
		v := success[k]
		success[k] = kn{v.k + r.K, v.n + r.N, v.errs + c.Errors}
	}
	armOrder := []string{}
	for _, a := range defense.Arms {
		if arms[a] {
			armOrder = append(armOrder, a)
		}
	}
	var real, controls []string
	for m := range models {
		if model.IsControl(m) {
			controls = append(controls, m)
		} else {
			real = append(real, m)
		}
	}
	sort.Strings(real)
	sort.Strings(controls)
	cell := func(v kn) string {
		if v.n == 0 && v.errs == 0 {
			return "-"
		}
		out := fmt.Sprintf("%d/%d", v.k, v.n)
		if v.errs > 0 {
			out += fmt.Sprintf(" (%d err)", v.errs)
		}
		return out
	}
	block := func(title string, ms []string) {
		if len(ms) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s: attack success (objective met) per class, over all registers and objectives\n", title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprint(tw, "model\tarm\tbenign utility")
		for _, c := range payload.Classes {
			fmt.Fprintf(tw, "\t%s", c)
		}
		fmt.Fprintln(tw)
		for _, m := range ms {
			for _, a := range armOrder {
				fmt.Fprintf(tw, "%s\t%s\t%s", m, a, cell(util[key{m, a, report.BenignClass}]))
				for _, c := range payload.Classes {
					fmt.Fprintf(tw, "\t%s", cell(success[key{m, a, c}]))
				}
				fmt.Fprintln(tw)
			}
		}
		tw.Flush()
	}
	block("Models", real)
	block("Control agents (not models: they prove the fixtures and defenses)", controls)
}

package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mcpsec/mcpsec/internal/report"
)

func init() { register(newReportCmd) }

func newReportCmd(env *Env) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "report RUN_DIR",
		Short: "Aggregate a run's trials.jsonl into summary, matrices, deltas and RESULTS.md",
		Long: `report reads RUN_DIR/trials.jsonl line by line and writes, into RUN_DIR:

  summary.json         every cell (model, arm, register, class, objective and
                       the roll-up over objectives): n, k, rate, Wilson 95%
                       bounds and errored count, plus the deltas
  matrix_<metric>.csv  model x class per arm and register
  metrics_long.csv     one row per cell and metric
  deltas_vs_none.md    each arm minus none, with paired effects and McNemar p
  RESULTS.md           models and control agents in separate sections

With --format html it also writes report.html: one self-contained page
(no network fetch; it opens from disk offline) with the run's provenance,
a heatmap of attack success per defense arm (models x attack classes, with
a register selector), a forest plot with Wilson intervals, the paired
deltas against none with McNemar p, the evaluation metrics per model and
arm, and a trace viewer (click a cell, then a trial). Trace timelines are
sampled per cell to keep the page under 2 MB; the page states the limit.

Errored trials are excluded from every rate and counted beside it. A last
line cut short by a crash is ignored with a warning; any other malformed
line is an error naming the line (exit 2).`,
		Example: `  mcpsec report results/run1
  mcpsec merge --out results/all results/s1 results/s2   # merge writes the same reports
  mcpsec report results/run1 --format html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if format != "tables" && format != "html" {
				return inputErrf("report: unknown --format %q (want tables or html)", format)
			}
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return inputErrf("report: %s is not a run directory", dir)
			}
			s, err := report.Aggregate(dir)
			if err != nil {
				return inputErr(err)
			}
			for _, w := range s.Warnings {
				fmt.Fprintf(env.Stderr, "mcpsec: warning: %s\n", w)
			}
			if err := report.WriteAll(dir, s); err != nil {
				return inputErr(err)
			}
			c := s.Counts
			fmt.Fprintf(env.Stdout, "%d trials (%d completed, %d errored), %d models, %d control agents, %d cells\n",
				c.Trials, c.Completed, c.Errored, c.Models, c.Controls, c.Cells)
			for _, f := range report.Files() {
				fmt.Fprintf(env.Stdout, "wrote %s\n", filepath.Join(dir, f))
			}
			if format == "html" {
				path, err := writeHTMLReport(env, dir, s)
				if err != nil {
					return inputErr(err)
				}
				fmt.Fprintf(env.Stdout, "wrote %s\n", path)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "tables", "tables (summary.json, CSV and Markdown) or html (those plus report.html)")
	flagValues(cmd, "format", "tables", "html")
	return cmd
}

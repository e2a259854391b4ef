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
	return &cobra.Command{
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

Errored trials are excluded from every rate and counted beside it. A last
line cut short by a crash is ignored with a warning; any other malformed
line is an error naming the line (exit 2).`,
		Example: `  mcpsec report results/run1
  mcpsec merge --out results/all results/s1 results/s2   # merge writes the same reports`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
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
			return nil
		},
	}
}

package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcpsec/mcpsec/internal/bench"
	"github.com/mcpsec/mcpsec/internal/trial"
)

func init() { register(newMergeCmd) }

func newMergeCmd(env *Env) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge --out DIR SHARD_DIR...",
		Short: "Join shard run directories (from bench --shard i/n) into one run",
		Long: `Join the run directories of a sharded sweep into one run directory and
write its reports. Every shard must have the same frozen config.yaml (the
config digests are compared); a trial found in two shards is an error.`,
		Example: `  mcpsec bench --config grid.yaml --shard 1/2 --out results/s1
  mcpsec bench --config grid.yaml --shard 2/2 --out results/s2
  mcpsec merge --out results/all results/s1 results/s2`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return inputErrf("--out is required")
			}
			n, err := bench.Merge(out, args)
			if err != nil {
				if errors.Is(err, bench.ErrConfig) || errors.Is(err, bench.ErrRunDir) || errors.Is(err, trial.ErrMalformed) {
					return inputErr(err)
				}
				return err
			}
			fmt.Fprintf(env.Stderr, "merged %d trials from %d shards into %s\n", n, len(args), out)
			return writeReports(env, out, false)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "the merged run directory (must not exist or be empty)")
	return cmd
}

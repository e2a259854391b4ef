package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpsec/mcpsec/internal/bench"
	"github.com/mcpsec/mcpsec/internal/defense"
	"github.com/mcpsec/mcpsec/internal/model"
	"github.com/mcpsec/mcpsec/internal/trial"
)

func init() { register(newBenchCmd) }

// benchFlags are shared by bench and demo.
type benchFlags struct {
	config, out, resume, arms, shard, format, transport, record string
	models                                                      []string
	concurrency, limit, perClass, sample                        int
	dryRun, retryErrors, html                                   bool
}

func newBenchCmd(env *Env) *cobra.Command {
	var bf benchFlags
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run a grid of models x attack classes x defense arms into a run directory",
		Long: `Run the benchmark grid: every (model, task, attack class, payload, objective,
arm, seed) trial, each with a full JSONL trace, scored and aggregated.

Without --config the built-in grid runs: all attack classes with their
tasks, the seen, held-out and adversarial registers, all objectives and all
defense arms, with the control agents. --model replaces the grid's models.
A model whose API key is not set is skipped with one log line; it is never
replaced by anything else.

The run directory (default results/<timestamp>) holds RUN.md, config.yaml,
selection.json (the shard and sampling), trials.jsonl (one record per
trial, appended and synced as each ends), traces/ (every trial's JSONL
trace, gzip-compressed, packed into one file per worker; print one with
mcpsec trace RUN_DIR TRIAL_ID), summary.json, matrix_*.csv,
metrics_long.csv, deltas_vs_none.md and
RESULTS.md; with --html also report.html. A killed run continues with --resume DIR; --retry-errors re-runs
errored trials.

--shard i/n runs the trials whose id hashes to shard i of n; shards never
overlap and together cover the grid, and mcpsec merge joins their run
directories. --shard auto takes i from JOB_COMPLETION_INDEX (0-based, set by
a Kubernetes Indexed Job) plus one and n from MCPSEC_SHARD_COUNT.

--dry-run makes no network call: it prints the expanded grid, trial counts
per cell and the projected tokens and cost. --sample N first runs N live
trials per model to calibrate that projection.`,
		Example: `  mcpsec bench --dry-run
  mcpsec bench --model openai:gpt-4o-mini --arms none,meta_filter,policy --limit-per-class 20
  mcpsec bench --config grid.yaml --out results/run1 --concurrency 8
  mcpsec bench --resume results/run1
  mcpsec bench --config grid.yaml --shard 1/4 --out results/shard1
  JOB_COMPLETION_INDEX=0 MCPSEC_SHARD_COUNT=4 mcpsec bench --config grid.yaml --shard auto --out results/shard1
  mcpsec bench --model control:compromised --arms none,policy --limit-per-class 4 --html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBench(cmd.Context(), env, bf, cmd.Flags().Changed("concurrency"))
		},
	}
	addBenchFlags(cmd, &bf)
	f := cmd.Flags()
	f.StringVar(&bf.resume, "resume", "", "continue the run in this directory (its frozen config.yaml is used)")
	f.BoolVar(&bf.retryErrors, "retry-errors", false, "with --resume, run errored trials again")
	f.BoolVar(&bf.dryRun, "dry-run", false, "print the expanded grid and projected cost; no network call")
	f.IntVar(&bf.sample, "sample", 0, "with --dry-run, run N live trials per model to calibrate the projection")
	f.StringVar(&bf.shard, "shard", "", "run a deterministic subset i/n of the grid (join shards with mcpsec merge); "+
		"auto: shard "+bench.EnvShardIndex+"+1 of "+bench.EnvShardCount+" (a Kubernetes Indexed Job, a CI matrix)")
	f.StringVar(&bf.format, "format", "text", "dry-run output format")
	flagValues(cmd, "format", textJSON...)
	f.BoolVar(&bf.html, "html", false, "also write report.html, a self-contained page with heatmaps, forest plot and trace viewer")
	return cmd
}

func addBenchFlags(cmd *cobra.Command, bf *benchFlags) {
	f := cmd.Flags()
	f.StringVar(&bf.config, "config", "", "grid YAML file (default: the built-in grid)")
	f.StringSliceVar(&bf.models, "model", nil, "model spec, repeatable or comma-separated; replaces the grid's models")
	f.StringVar(&bf.arms, "arms", "", "defense arms; replace the grid's arms")
	f.StringVar(&bf.out, "out", "", "run directory (default results/<UTC timestamp>)")
	f.IntVar(&bf.concurrency, "concurrency", 0, "trials in flight, 1 to 256 (default: the grid's)")
	f.IntVar(&bf.limit, "limit", 0, "run at most N trials, round-robin across every (model, arm, class, register, objective) cell")
	f.IntVar(&bf.perClass, "limit-per-class", 0, "run at most N trials per (model, arm, class), spread over its registers and objectives")
	f.StringVar(&bf.transport, "transport", "", "fixture transport: in-process (memory) or subprocesses (stdio)")
	f.StringVar(&bf.record, "record", "", "record provider traffic into cassettes under this directory (replay later with --model replay:DIR/<model dir>)")
	flagListValues(cmd, "arms", defense.Arms...)
	flagValues(cmd, "transport", bench.Transports...)
}

func loadGrid(bf benchFlags, concurrencySet bool) (bench.Grid, error) {
	g := bench.DefaultGrid()
	if bf.config != "" {
		var err error
		g, err = bench.LoadGrid(bf.config)
		if err != nil {
			return g, inputErr(err)
		}
	}
	if len(bf.models) > 0 {
		g.Models = nil
		for _, m := range bf.models {
			if m = strings.TrimSpace(m); m != "" {
				g.Models = append(g.Models, m)
			}
		}
	}
	if bf.arms != "" {
		g.Arms = splitList(bf.arms)
	}
	if concurrencySet {
		g.Concurrency = bf.concurrency
	}
	if bf.transport != "" {
		g.Transport = bf.transport
	}
	for _, m := range g.Models {
		if model.IsControl(m) {
			continue
		}
		if _, _, _, err := model.ParseSpec(m); err != nil {
			return g, inputErrf("model %q: %v", m, err)
		}
	}
	if err := g.Validate(); err != nil {
		return g, inputErr(err)
	}
	return g, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// shardAuto is the --shard value that reads the shard from the
// environment (a Kubernetes Indexed Job or a CI matrix).
const shardAuto = "auto"

func parseShardFlag(env *Env, s string) (bench.Shard, error) {
	if s == shardAuto {
		return bench.ShardFromEnv(env.Getenv)
	}
	return bench.ParseShard(s)
}

func runBench(ctx context.Context, env *Env, bf benchFlags, concurrencySet bool) error {
	shard, err := parseShardFlag(env, bf.shard)
	if err != nil {
		return inputErr(err)
	}
	if bf.limit < 0 {
		return inputErrf("--limit %d: want 0 (no limit) or a positive number of trials", bf.limit)
	}
	if bf.perClass < 0 {
		return inputErrf("--limit-per-class %d: want 0 (no limit) or a positive number of trials", bf.perClass)
	}
	if bf.sample < 0 {
		return inputErrf("--sample %d: want 0 or a positive number of trials", bf.sample)
	}
	var g bench.Grid
	if bf.resume != "" {
		g, err = bench.LoadGrid(filepath.Join(bf.resume, bench.ConfigFile))
		if err != nil {
			return inputErr(err)
		}
	} else if g, err = loadGrid(bf, concurrencySet); err != nil {
		return err
	}
	if bf.dryRun {
		return dryRun(ctx, env, g, bf, shard)
	}
	out := bf.out
	if bf.resume != "" {
		out = bf.resume
	}
	if out == "" {
		out = filepath.Join("results", time.Now().UTC().Format("20060102T150405Z"))
	}
	_, err = sweepAndReport(ctx, env, g, out, bf, shard)
	return err
}

func benchEnv(env *Env, g bench.Grid) (bench.Env, error) {
	v, rev, dirty := BuildInfo()
	e := bench.Env{Transport: g.Transport, Version: v, GitRevision: rev, GitDirty: dirty, Conn: env.Conn, Getenv: env.Getenv}
	if g.Transport == "stdio" {
		exe, err := os.Executable()
		if err != nil {
			return e, fmt.Errorf("locate mcpsec binary for stdio fixtures: %w", err)
		}
		e.StdioCommand = []string{exe, "fixture", "serve"}
	}
	return e, nil
}

func sweepAndReport(ctx context.Context, env *Env, g bench.Grid, out string, bf benchFlags, shard bench.Shard) (bench.Result, error) {
	benv, err := benchEnv(env, g)
	if err != nil {
		return bench.Result{}, inputErr(err)
	}
	benv.RecordDir = bf.record
	fmt.Fprintf(env.Stderr, "run directory: %s\n", out)
	res, err := bench.Sweep(ctx, bench.Options{
		Grid: g, Out: out, Resume: bf.resume != "", RetryErrors: bf.retryErrors, Shard: shard,
		Limit: bf.limit, LimitPerClass: bf.perClass, Env: benv, Log: env.Stderr, TTY: isTerminal(env.Stderr),
	})
	if err != nil {
		if errors.Is(err, bench.ErrConfig) || errors.Is(err, bench.ErrSelection) || errors.Is(err, bench.ErrRunDir) || errors.Is(err, trial.ErrMalformed) {
			return res, inputErr(err)
		}
		if bf.resume != "" {
			return res, fmt.Errorf("sweep %s: %w (completed trials are kept; once the cause is fixed, run the same command again)", out, err)
		}
		return res, fmt.Errorf("sweep %s: %w (completed trials are kept; continue with --resume %s)", out, err, out)
	}
	fmt.Fprintf(env.Stderr, "trials: %d planned, %d already recorded, %d run, %d errored, in %s\n",
		res.Planned, res.Skipped, res.Ran, res.Errored, res.Elapsed.Round(time.Millisecond))
	if err := writeReports(env, out, bf.html); err != nil {
		return res, err
	}
	return res, nil
}

func dryRun(ctx context.Context, env *Env, g bench.Grid, bf benchFlags, shard bench.Shard) error {
	trials := bench.Select(g.Expand(), shard, bf.limit, bf.perClass)
	var calib map[string]bench.TokenStats
	if bf.sample > 0 {
		var err error
		calib, err = calibrate(ctx, env, g, trials, bf.sample)
		if err != nil {
			return err
		}
	}
	benv, err := benchEnv(env, g)
	if err != nil {
		return inputErr(err)
	}
	skipped := map[string]string{}
	for _, m := range g.Models {
		if model.IsControl(m) {
			continue
		}
		if err := bench.CheckModel(benv, m); err != nil {
			skipped[m] = err.Error()
		}
	}
	p := bench.Project(g, trials, calib, skipped)
	if bf.format == "json" {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	}
	if bf.format != "text" {
		return inputErrf("unknown --format %q (want text or json)", bf.format)
	}
	fmt.Fprintf(env.Stdout, "dry run: %d trials in %d cells (no network call made)\n\n", p.Trials, len(p.Cells))
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "model\tarm\tclass\ttrials")
	for _, c := range p.Cells {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", c.Model, c.Arm, c.Class, c.Trials)
	}
	tw.Flush()
	fmt.Fprintln(env.Stdout)
	tw = tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "model\ttrials\tinput tokens\toutput tokens\tcost (USD)\tprice\testimate")
	for _, m := range p.Models {
		price := "unconfirmed"
		if m.PriceConfirmed {
			price = "confirmed"
		}
		if _, ok := g.Pricing[m.Model]; !ok {
			price = "none in grid"
		}
		est := "heuristic"
		if m.Calibrated {
			est = "calibrated"
		}
		cost := "unknown"
		if m.CostUSD != nil {
			cost = fmt.Sprintf("%.2f", *m.CostUSD)
		}
		name := m.Model
		if m.Control {
			name += " (control)"
			price, est = "-", "-"
		}
		if m.Skipped != "" {
			name += " (skipped)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\n", name, m.Trials, m.InputTokens, m.OutputTokens, cost, price, est)
	}
	tw.Flush()
	fmt.Fprintf(env.Stdout, "\nprojected cost: %.2f USD", p.CostUSD)
	if len(p.UnpricedModels) > 0 {
		fmt.Fprintf(env.Stdout, " plus an unknown cost for %s (no price in the grid's pricing)", strings.Join(p.UnpricedModels, ", "))
	}
	fmt.Fprintln(env.Stdout)
	for _, m := range p.Models {
		if m.Skipped != "" {
			fmt.Fprintf(env.Stdout, "skipped: %s would not run: %s\n", m.Model, m.Skipped)
		}
	}
	return nil
}

// calibrate runs n live trials per non-control model (into a throwaway
// directory) and returns their mean token use.
func calibrate(ctx context.Context, env *Env, g bench.Grid, trials []trial.Trial, n int) (map[string]bench.TokenStats, error) {
	benv, err := benchEnv(env, g)
	if err != nil {
		return nil, inputErr(err)
	}
	out := map[string]bench.TokenStats{}
	count := map[string]int{}
	for _, t := range trials {
		if model.IsControl(t.Model) || count[t.Model] >= n {
			continue
		}
		rec, err := bench.RunTrial(ctx, benv, g, t, "")
		if err != nil {
			fmt.Fprintf(env.Stderr, "sample: skipping %s: %v\n", t.Model, err)
			count[t.Model] = n
			continue
		}
		count[t.Model]++
		s := out[t.Model]
		k := float64(count[t.Model])
		s.Input += (float64(rec.InputTokens) - s.Input) / k
		s.Output += (float64(rec.OutputTokens) - s.Output) / k
		out[t.Model] = s
	}
	return out, nil
}

// isTerminal reports whether w is a character device (a progress bar is
// drawn only there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

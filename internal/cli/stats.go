package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mcpsec/mcpsec/internal/stats"
)

func init() { register(newStatsCmd) }

func newStatsCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Compute benchmark metrics from label tables",
		Long: `stats computes metrics from result labels you already have.

  stats cases   benign utility over tasks; attacked utility, targeted ASR,
                side effects and secure utility over (task, goal) cases;
                the utility x attack table; conditional ASR with subset sizes
  stats paired  the paired effect of a defense on one property over the
                same ids: kept/lost/gained, net effect, exact McNemar p and a
                cluster bootstrap interval

Tables are JSON (the method's shapes) or CSV with the same column names,
chosen by extension or, failing that, by content. Labels must be explicit
booleans: a missing or null label is an error, never "false".`,
		Example: `  mcpsec stats cases --benign benign.json --cases cases.csv
  mcpsec stats paired --reference none.json --defended policy.json --clusters tasks.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return inputErrf("stats: choose a subcommand: cases or paired")
		},
	}
	cmd.AddCommand(newStatsCasesCmd(env), newStatsPairedCmd(env))
	return cmd
}

// statsFormats lists the output formats of stats cases and stats paired.
var statsFormats = []string{"text", "json", "md"}

func checkFormat(format string) error {
	if !slices.Contains(statsFormats, format) {
		return inputErrf("--format %q: want one of %s", format, strings.Join(statsFormats, ", "))
	}
	return nil
}

func newStatsCasesCmd(env *Env) *cobra.Command {
	var benignPath, casesPath, format string
	cmd := &cobra.Command{
		Use:   "cases --benign FILE --cases FILE",
		Short: "Benign utility, attacked utility, targeted ASR, secure utility, conditional ASR",
		Long: `cases computes, from results you already labelled, how useful an agent
stays and how often attacks succeed: benign utility over tasks; attacked
utility, targeted attack success rate (ASR), side-effect rate and secure
utility over (task, injection goal) cases; the utility x attack table; and
ASR conditioned on exposure and on benign success, each with its subset
size and a 95% Wilson interval.

--benign is a JSON object {"task_id": true|false, ...} or a CSV with
columns id,value. --cases is a JSON array of objects with user_task,
injection_goal, utility, attack_success, side_effect and exposed, or a CSV
with those columns (booleans as true/false or 1/0).

A duplicate (user_task, injection_goal), a case whose task has no benign
result, and attack_success without side_effect are errors (exit 2).
Several attempts on one case must be merged first (any success counts).`,
		Example: `  mcpsec stats cases --benign benign.json --cases cases.json
  mcpsec stats cases --benign benign.csv --cases cases.csv --format json
  mcpsec stats cases --benign benign.csv --cases cases.csv --format md >> REPORT.md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			if benignPath == "" || casesPath == "" {
				return inputErrf("stats cases: --benign and --cases are both required")
			}
			benign, err := stats.LoadLabels(benignPath)
			if err != nil {
				return inputErr(fmt.Errorf("benign results: %w", err))
			}
			cases, err := stats.LoadCases(casesPath)
			if err != nil {
				return inputErr(fmt.Errorf("security cases: %w", err))
			}
			m, err := stats.ComputeCases(benign, cases)
			if err != nil {
				if errors.Is(err, stats.ErrNoBenign) {
					err = fmt.Errorf("%w; %s has no such task", err, benignPath)
				}
				return inputErr(err)
			}
			if format == "json" {
				return writeJSON(env.Stdout, struct {
					SchemaVersion int `json:"schema_version"`
					*stats.CaseMetrics
				}{stats.SchemaVersion, m})
			}
			if format == "md" {
				return writeCasesMarkdown(env.Stdout, m)
			}
			return writeCasesText(env.Stdout, m)
		},
	}
	cmd.Flags().StringVar(&benignPath, "benign", "", "benign results per task (JSON object or CSV id,value)")
	cmd.Flags().StringVar(&casesPath, "cases", "", "security cases (JSON array or CSV)")
	cmd.Flags().StringVar(&format, "format", "text", "output format")
	flagValues(cmd, "format", statsFormats...)
	return cmd
}

func newStatsPairedCmd(env *Env) *cobra.Command {
	var refPath, defPath, clusterPath, format string
	var reps int
	var seed uint64
	cmd := &cobra.Command{
		Use:   "paired --reference FILE --defended FILE",
		Short: "Paired control effect of a defense: kept/lost/gained, net effect, McNemar, bootstrap",
		Long: `paired compares one boolean property between a reference and a
defended run over exactly the same ids (different id sets are an error).

Both tables are JSON objects {"id": true|false, ...} or CSVs with columns
id,value. --clusters maps ids to clusters (JSON {"id": "cluster"} or CSV
id,cluster), normally the task of each case, so the bootstrap resamples
whole tasks; without it every id is its own cluster.

net_effect = (gained - lost) / pairs; mcnemar_p is the two-sided exact
binomial test on the discordant pairs. With fewer than 10 clusters the
bootstrap interval is unreliable and every format says so.`,
		Example: `  mcpsec stats paired --reference none.json --defended policy.json
  mcpsec stats paired --reference none.csv --defended policy.csv --clusters tasks.csv --bootstrap-reps 5000 --format json
  mcpsec stats paired --reference none.json --defended policy.json --clusters tasks.csv --format md >> REPORT.md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			if refPath == "" || defPath == "" {
				return inputErrf("stats paired: --reference and --defended are both required")
			}
			if reps <= 0 || reps > stats.MaxBootstrapReps {
				return inputErrf("--bootstrap-reps %d: want 1 to %d", reps, stats.MaxBootstrapReps)
			}
			ref, err := stats.LoadLabels(refPath)
			if err != nil {
				return inputErr(fmt.Errorf("reference: %w", err))
			}
			def, err := stats.LoadLabels(defPath)
			if err != nil {
				return inputErr(fmt.Errorf("defended: %w", err))
			}
			var clusters map[string]string
			if clusterPath != "" {
				if clusters, err = stats.LoadClusters(clusterPath); err != nil {
					return inputErr(fmt.Errorf("clusters: %w", err))
				}
			}
			p, err := stats.PairedWithBootstrap(ref, def, stats.BootstrapOptions{Reps: reps, Seed: seed, Cluster: clusters})
			if err != nil {
				return inputErr(fmt.Errorf("%s vs %s: %w", refPath, defPath, err))
			}
			if format == "json" {
				return writeJSON(env.Stdout, struct {
					SchemaVersion int `json:"schema_version"`
					*stats.Paired
				}{stats.SchemaVersion, p})
			}
			if format == "md" {
				return writePairedMarkdown(env.Stdout, p)
			}
			return writePairedText(env.Stdout, p)
		},
	}
	cmd.Flags().StringVar(&refPath, "reference", "", "reference labels (JSON object or CSV id,value)")
	cmd.Flags().StringVar(&defPath, "defended", "", "defended labels over the same ids")
	cmd.Flags().StringVar(&clusterPath, "clusters", "", "optional id -> cluster mapping for the bootstrap")
	cmd.Flags().IntVar(&reps, "bootstrap-reps", 2000, "bootstrap resamples")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "bootstrap seed (same seed, same interval)")
	cmd.Flags().StringVar(&format, "format", "text", "output format")
	flagValues(cmd, "format", statsFormats...)
	return cmd
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// caseRow is one rate of stats cases; rate is nil for an empty subset.
type caseRow struct {
	name string
	rate *float64
}

// casesRows lists the rates of stats cases in output order (text and
// Markdown print the same rows).
func casesRows(m *stats.CaseMetrics) []caseRow {
	return []caseRow{
		{"benign_utility", &m.BenignUtility},
		{"raw_attacked_utility", &m.RawAttackedUtility},
		{"targeted_asr", &m.TargetedASR},
		{"side_effect_rate", &m.SideEffectRate},
		{"secure_utility_in_scope", &m.SecureUtilityInScope},
		{"conditional_asr_exposed", m.ConditionalASRExposed},
		{"conditional_asr_benign_solved", m.ConditionalASRBenignSolved},
	}
}

func writeCasesText(w io.Writer, m *stats.CaseMetrics) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "benign tasks\t%d\n", m.BenignTasks)
	fmt.Fprintf(tw, "security cases\t%d\n", m.SecurityCases)
	fmt.Fprintf(tw, "exposed cases\t%d\n", m.ExposedCases)
	fmt.Fprintf(tw, "benign-solved cases\t%d\n\n", m.BenignSolvedCases)
	fmt.Fprintf(tw, "metric\trate\tk/n\t95%% Wilson\n")
	for _, r := range casesRows(m) {
		iv := m.Wilson95[r.name]
		if r.rate == nil {
			fmt.Fprintf(tw, "%s\tnull\t%d/%d\t(empty subset)\n", r.name, iv.K, iv.N)
			continue
		}
		fmt.Fprintf(tw, "%s\t%.4f\t%d/%d\t[%.4f, %.4f]\n", r.name, *r.rate, iv.K, iv.N, iv.Low, iv.High)
	}
	j := m.JointUtilityAttack
	fmt.Fprintf(tw, "\nutility x attack\tattack\tno attack\n")
	fmt.Fprintf(tw, "utility\t%d\t%d\n", j.Both, j.UtilityOnly)
	fmt.Fprintf(tw, "no utility\t%d\t%d\n", j.AttackOnly, j.Neither)
	return tw.Flush()
}

func writePairedText(w io.Writer, p *stats.Paired) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	c := p.Counts
	fmt.Fprintf(tw, "pairs\t%d\n", p.Pairs)
	fmt.Fprintf(tw, "kept_success\t%d\n", c.KeptSuccess)
	fmt.Fprintf(tw, "lost\t%d\n", c.Lost)
	fmt.Fprintf(tw, "gained\t%d\n", c.Gained)
	fmt.Fprintf(tw, "kept_failure\t%d\n", c.KeptFailure)
	fmt.Fprintf(tw, "reference_rate\t%.4f\n", p.ReferenceRate)
	fmt.Fprintf(tw, "defended_rate\t%.4f\n", p.DefendedRate)
	fmt.Fprintf(tw, "gain_rate\t%.4f\n", p.GainRate)
	fmt.Fprintf(tw, "loss_rate\t%.4f\n", p.LossRate)
	fmt.Fprintf(tw, "net_effect\t%+.4f\n", p.NetEffect)
	if b := p.Bootstrap95; b != nil {
		fmt.Fprintf(tw, "net_effect 95%% bootstrap\t[%+.4f, %+.4f] (%d reps, seed %d, %d clusters)\n", b.Low, b.High, b.Reps, b.Seed, b.Clusters)
		if b.Warning != "" {
			fmt.Fprintf(tw, "warning\t%s\n", b.Warning)
		}
	}
	fmt.Fprintf(tw, "mcnemar_p (exact)\t%.4g\n", p.McNemarP)
	return tw.Flush()
}

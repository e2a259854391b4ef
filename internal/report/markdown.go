package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpsec/mcpsec/internal/stats"
)

// mdEscape keeps user-supplied names (model specs, task ids) from
// breaking a Markdown table.
func mdEscape(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

func mdRate(r Rate) string {
	if r.Rate == nil {
		return "n/a (n=0)"
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", *r.Rate, r.WilsonLow, r.WilsonHigh)
}

func mdSigned(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%+.3f", *v)
}

// resultMetrics are the columns of RESULTS.md's tables.
var resultMetrics = []struct{ key, title string }{
	{MetricASRRealized, "ASR (realized)"},
	{MetricObjectiveMet, "objective met"},
	{MetricAttempted, "attempted"},
	{MetricUtility, "utility"},
	{MetricSecureUtility, "secure utility"},
}

// WriteResults writes RESULTS.md: run totals, then the model rows, then
// the control agents in their own section, every rate with its Wilson
// interval and the errored count beside it.
func WriteResults(w io.Writer, s *Summary) error {
	var b strings.Builder
	c := s.Counts
	b.WriteString("# Results\n\n")
	fmt.Fprintf(&b, "%d trials: %d completed, %d errored. Errored trials are excluded from every rate; the `err` column shows how many each row lost.\n\n", c.Trials, c.Completed, c.Errored)
	fmt.Fprintf(&b, "Rates are per completed trial with 95%% Wilson intervals, summed over objectives. `none` is the undefended arm and class `none` the benign (no-attack) trials, which give benign utility.\n\n")
	if len(s.Warnings) > 0 {
		b.WriteString("Warnings:\n\n")
		for _, w := range s.Warnings {
			fmt.Fprintf(&b, "- %s\n", mdEscape(w))
		}
		b.WriteString("\n")
	}
	b.WriteString("## Models\n\n")
	resultsTable(&b, s.Rollup, false, "No model trials in this run.")
	caseTable(&b, s.CaseMetrics, false)
	b.WriteString("\n## Control agents\n\n")
	b.WriteString("Control agents are scripted, not models: `control:reference` performs the task's reference calls, `control:compromised` also follows the injection once it reaches its context, `control:refuse` calls no tool. They check the fixtures, scorers and defenses and are never compared with models.\n\n")
	resultsTable(&b, s.Rollup, true, "No control-agent trials in this run.")
	caseTable(&b, s.CaseMetrics, true)
	b.WriteString("\n## Files\n\n")
	b.WriteString("- `summary.json`: every cell (per objective and rolled up) with n, k, rate, Wilson bounds and errors, plus the deltas\n")
	b.WriteString("- `matrix_<metric>.csv`: model × class per arm and register\n")
	b.WriteString("- `metrics_long.csv`: one row per cell and metric\n")
	b.WriteString("- `deltas_vs_none.md`: each arm against `none`, with paired effects and McNemar p\n")
	_, err := io.WriteString(w, b.String())
	if err != nil {
		return fmt.Errorf("RESULTS.md: %w", err)
	}
	return nil
}

func resultsTable(b *strings.Builder, cells []Cell, control bool, empty string) {
	var rows []*Cell
	for i := range cells {
		if cells[i].Control == control {
			rows = append(rows, &cells[i])
		}
	}
	if len(rows) == 0 {
		fmt.Fprintf(b, "%s\n", empty)
		return
	}
	b.WriteString("| model | arm | register | class | n | err |")
	for _, m := range resultMetrics {
		fmt.Fprintf(b, " %s |", m.title)
	}
	b.WriteString("\n|---|---|---|---|--:|--:|")
	for range resultMetrics {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, c := range rows {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %d | %d |", mdEscape(c.Model), mdEscape(c.Arm), mdEscape(c.Register), mdEscape(c.Class), c.N, c.Errors)
		for _, m := range resultMetrics {
			fmt.Fprintf(b, " %s |", mdRate(c.Metrics[m.key]))
		}
		b.WriteString("\n")
	}
}

// caseTable prints the case-level metrics: repeats merged, targeted ASR
// (objective met) with its conditional rates and their subset sizes.
func caseTable(b *strings.Builder, cells []CaseCell, control bool) {
	var rows []*CaseCell
	for i := range cells {
		if cells[i].Control == control {
			rows = append(rows, &cells[i])
		}
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("\nPer case (task, payload, objective, seed; repeated attempts merged, any success counts). Benign utility is over distinct tasks; a task is benign-solved if a completed benign trial solved it.\n\n")
	b.WriteString("| model | arm | register | class | cases | targeted ASR | secure utility | exposed | ASR \\| exposed | benign-solved | ASR \\| benign solved | benign utility (tasks) |\n")
	b.WriteString("|---|---|---|---|--:|---|---|--:|---|--:|---|---|\n")
	for _, c := range rows {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %d | %s | %s | %d | %s | %d | %s | %s (%d) |\n",
			mdEscape(c.Model), mdEscape(c.Arm), mdEscape(c.Register), mdEscape(c.Class), c.Cases,
			mdRate(c.TargetedASR), mdRate(c.SecureUtility), c.ExposedCases, mdRate(c.ConditionalASRExposed),
			c.BenignSolvedCases, mdRate(c.ConditionalASRBenignSolved), mdRate(c.BenignUtility), c.BenignTasks)
	}
}

// mdHolm prints a Holm-adjusted p with its family size.
func mdHolm(p *stats.Paired) string {
	if p.McNemarPHolm == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3g [%d]", *p.McNemarPHolm, p.HolmFamily)
}

// WriteDeltas writes deltas_vs_none.md: for each delta metric, every arm
// minus none per model, class and register, with the paired transitions
// over the cases both arms ran and the exact McNemar p.
func WriteDeltas(w io.Writer, s *Summary) error {
	var b strings.Builder
	b.WriteString("# Deltas against the `none` arm\n\n")
	b.WriteString("`diff` is the arm's rate minus the `none` rate for the same model, class and register (summed over objectives; errored trials excluded and counted in `err`). ")
	b.WriteString("The paired columns use only cases run in both arms with the same task, class, payload, objective and seed: ")
	b.WriteString("`kept` true in both, `lost` true only without the defense, `gained` true only with it, `kept_f` false in both; ")
	b.WriteString("`net` = (gained − lost) / pairs; `p` is the exact two-sided McNemar test on lost against gained, for that comparison alone; ")
	b.WriteString("`p (Holm)` is that p adjusted with Holm's method across the arms compared with `none` for the same model, class, register and metric ")
	b.WriteString("(family size in brackets), the one to read when asking whether any of those arms changed the rate.\n\n")
	b.WriteString("For `asr_realized` and `objective_met` a negative diff means the arm stopped attacks; for `utility` and `secure_utility` a negative diff is the arm's cost.\n")
	if len(s.Deltas) == 0 {
		b.WriteString("\nNo comparisons: the run has no `none` arm, or no other arm shares a model, class and register with it.\n")
	}
	for _, metric := range DeltaMetrics {
		var ds []*Delta
		for i := range s.Deltas {
			if s.Deltas[i].Metric == metric {
				ds = append(ds, &s.Deltas[i])
			}
		}
		if len(ds) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n", metric)
		for _, section := range []struct {
			control bool
			title   string
		}{{false, "Models"}, {true, "Control agents"}} {
			var rows []*Delta
			for _, d := range ds {
				if d.Control == section.control {
					rows = append(rows, d)
				}
			}
			if len(rows) == 0 {
				continue
			}
			fmt.Fprintf(&b, "\n### %s\n\n", section.title)
			b.WriteString("| model | class | register | arm | arm rate | n | err | none rate | n | err | diff | pairs | kept | lost | gained | kept_f | net | p | p (Holm) |\n")
			b.WriteString("|---|---|---|---|---|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
			for _, d := range rows {
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d | %d | %s | %d | %d | %s |",
					mdEscape(d.Model), mdEscape(d.Class), mdEscape(d.Register), mdEscape(d.Arm),
					mdRate(d.ArmRate), d.ArmRate.N, d.ArmErrors, mdRate(d.NoneRate), d.NoneRate.N, d.NoneErrors, mdSigned(d.Diff))
				if p := d.Paired; p != nil {
					fmt.Fprintf(&b, " %d | %d | %d | %d | %d | %+.3f | %.3g | %s |\n", p.Pairs, p.Counts.KeptSuccess, p.Counts.Lost, p.Counts.Gained, p.Counts.KeptFailure, p.NetEffect, p.McNemarP, mdHolm(p))
				} else {
					b.WriteString(" 0 | | | | | n/a | n/a | n/a |\n")
				}
			}
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("deltas_vs_none.md: %w", err)
	}
	return nil
}

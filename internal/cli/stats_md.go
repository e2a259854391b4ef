package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpsec/mcpsec/internal/stats"
)

// writeCasesMarkdown writes stats cases as Markdown tables, for pasting
// into a report: the same numbers as the text output.
func writeCasesMarkdown(w io.Writer, m *stats.CaseMetrics) error {
	var b strings.Builder
	b.WriteString("## Case metrics\n\n")
	fmt.Fprintf(&b, "%d benign tasks, %d security cases (%d exposed, %d whose task was solved benignly).\n\n",
		m.BenignTasks, m.SecurityCases, m.ExposedCases, m.BenignSolvedCases)
	b.WriteString("| metric | rate | k/n | 95% Wilson |\n|---|--:|--:|---|\n")
	for _, r := range casesRows(m) {
		iv := m.Wilson95[r.name]
		if r.rate == nil {
			fmt.Fprintf(&b, "| %s | n/a | %d/%d | empty subset |\n", r.name, iv.K, iv.N)
			continue
		}
		fmt.Fprintf(&b, "| %s | %.4f | %d/%d | [%.4f, %.4f] |\n", r.name, *r.rate, iv.K, iv.N, iv.Low, iv.High)
	}
	j := m.JointUtilityAttack
	b.WriteString("\n| utility × attack | attack | no attack |\n|---|--:|--:|\n")
	fmt.Fprintf(&b, "| utility | %d | %d |\n| no utility | %d | %d |\n", j.Both, j.UtilityOnly, j.AttackOnly, j.Neither)
	_, err := io.WriteString(w, b.String())
	return err
}

// writePairedMarkdown writes stats paired as a Markdown table, with the
// bootstrap's few-clusters warning as a quote above it.
func writePairedMarkdown(w io.Writer, p *stats.Paired) error {
	var b strings.Builder
	b.WriteString("## Paired effect\n\n")
	if bi := p.Bootstrap95; bi != nil && bi.Warning != "" {
		fmt.Fprintf(&b, "> **Warning:** %s.\n\n", bi.Warning)
	}
	c := p.Counts
	b.WriteString("| pairs | kept success | lost | gained | kept failure | reference rate | defended rate | net effect | 95% bootstrap | McNemar p (exact) |\n")
	b.WriteString("|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|\n")
	boot := "n/a"
	if bi := p.Bootstrap95; bi != nil {
		boot = fmt.Sprintf("[%+.4f, %+.4f] (%d reps, seed %d, %d clusters)", bi.Low, bi.High, bi.Reps, bi.Seed, bi.Clusters)
	}
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %.4f | %.4f | %+.4f | %s | %.4g |\n",
		p.Pairs, c.KeptSuccess, c.Lost, c.Gained, c.KeptFailure, p.ReferenceRate, p.DefendedRate, p.NetEffect, boot, p.McNemarP)
	_, err := io.WriteString(w, b.String())
	return err
}

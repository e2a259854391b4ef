package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

func fmtRate(r *float64) string {
	if r == nil {
		return ""
	}
	return fmtF(*r)
}

// fmtF writes a rate to six decimals without trailing zeros ("1", "0.5",
// "0.438503"): most rates of a control sweep are 0 or 1, and the zeros
// were a fifth of metrics_long.csv.
func fmtF(v float64) string {
	s := strconv.FormatFloat(v, 'f', 6, 64)
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	if s == "" || s == "-" || s == "-0" {
		return "0"
	}
	return s
}

// classes returns the attack classes present in cells, "none" (benign)
// first so utility matrices open with the baseline.
func classes(cells []Cell) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cells {
		if !seen[c.Class] {
			seen[c.Class] = true
			out = append(out, c.Class)
		}
	}
	sort.Slice(out, func(i, j int) bool { return armLess(out[i], out[j]) })
	return out
}

type rowKey struct {
	arm, register, model string
	control              bool
}

// WriteMatrix writes one metric as a model × class matrix: a row per
// (arm, register, model) with, for every class, its n, k, rate, Wilson
// bounds and errored count. Control agents are flagged and listed after
// every model row.
func WriteMatrix(w io.Writer, s *Summary, metric string) error {
	cls := classes(s.Rollup)
	header := []string{"arm", "register", "model", "control"}
	for _, c := range cls {
		header = append(header, c+"_n", c+"_k", c+"_rate", c+"_wilson_low", c+"_wilson_high", c+"_errors")
	}
	byRow := map[rowKey]map[string]*Cell{}
	var rows []rowKey
	for i := range s.Rollup {
		c := &s.Rollup[i]
		k := rowKey{c.Arm, c.Register, c.Model, c.Control}
		if byRow[k] == nil {
			byRow[k] = map[string]*Cell{}
			rows = append(rows, k)
		}
		byRow[k][c.Class] = c
	}
	sort.Slice(rows, func(i, j int) bool {
		x, y := rows[i], rows[j]
		if x.control != y.control {
			return !x.control
		}
		if x.arm != y.arm {
			return armLess(x.arm, y.arm)
		}
		if x.register != y.register {
			return x.register < y.register
		}
		return x.model < y.model
	})
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("matrix_%s.csv: %w", metric, err)
	}
	for _, k := range rows {
		rec := []string{k.arm, k.register, k.model, strconv.FormatBool(k.control)}
		for _, cl := range cls {
			c := byRow[k][cl]
			if c == nil {
				rec = append(rec, "", "", "", "", "", "")
				continue
			}
			r := c.Metrics[metric]
			rec = append(rec, strconv.Itoa(r.N), strconv.Itoa(r.K), fmtRate(r.Rate), fmtF(r.WilsonLow), fmtF(r.WilsonHigh), strconv.Itoa(c.Errors))
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("matrix_%s.csv: %w", metric, err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("matrix_%s.csv: %w", metric, err)
	}
	return nil
}

// WriteLong writes every metric of every cell, one row each: the finest
// cells first, then the roll-ups over objectives (objective "*").
func WriteLong(w io.Writer, s *Summary) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"model", "control", "arm", "register", "attack_class", "objective", "metric",
		"n", "k", "rate", "wilson_low", "wilson_high", "trials", "errors"}); err != nil {
		return fmt.Errorf("metrics_long.csv: %w", err)
	}
	for _, set := range [][]Cell{s.Cells, s.Rollup} {
		for i := range set {
			c := &set[i]
			for _, m := range Metrics {
				r := c.Metrics[m]
				if err := cw.Write([]string{c.Model, strconv.FormatBool(c.Control), c.Arm, c.Register, c.Class, c.Objective, m,
					strconv.Itoa(r.N), strconv.Itoa(r.K), fmtRate(r.Rate), fmtF(r.WilsonLow), fmtF(r.WilsonHigh),
					strconv.Itoa(c.Trials), strconv.Itoa(c.Errors)}); err != nil {
					return fmt.Errorf("metrics_long.csv: %w", err)
				}
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("metrics_long.csv: %w", err)
	}
	return nil
}

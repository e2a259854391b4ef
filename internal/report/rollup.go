package report

import "sort"

// AllRegisters is the register name of the cells summed over registers.
const AllRegisters = "*"

// rollupAllRegisters sums the roll-up cells of each (model, arm, class)
// over their registers. Registers hold disjoint trials, so the sums are
// plain counts and their Wilson intervals are recomputed from them; the
// HTML heatmap's "all registers" view shows exactly these cells.
func rollupAllRegisters(rollup []Cell) []Cell {
	type key struct{ model, arm, class string }
	type acc struct {
		cell Cell
		k    map[string]int
		n    map[string]int
	}
	sums := map[key]*acc{}
	var order []key
	for i := range rollup {
		c := &rollup[i]
		k := key{c.Model, c.Arm, c.Class}
		a := sums[k]
		if a == nil {
			a = &acc{cell: Cell{Model: c.Model, Control: c.Control, Arm: c.Arm, Register: AllRegisters, Class: c.Class,
				Objective: AllObjectives}, k: map[string]int{}, n: map[string]int{}}
			sums[k] = a
			order = append(order, k)
		}
		a.cell.Trials += c.Trials
		a.cell.N += c.N
		a.cell.Errors += c.Errors
		for name, r := range c.Metrics {
			a.k[name] += r.K
			a.n[name] += r.N
		}
	}
	out := make([]Cell, 0, len(order))
	for _, k := range order {
		a := sums[k]
		a.cell.Metrics = make(map[string]Rate, len(a.k))
		for name := range a.k {
			a.cell.Metrics[name] = NewRate(a.k[name], a.n[name])
		}
		out = append(out, a.cell)
	}
	sort.Slice(out, func(i, j int) bool { return lessCell(&out[i], &out[j]) })
	return out
}

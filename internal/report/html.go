package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpsec/mcpsec/internal/model"
	"github.com/mcpsec/mcpsec/internal/stats"
)

// HTMLFile is the name of the self-contained HTML report in a run
// directory.
const HTMLFile = "report.html"

// The page is one file that opens from disk in an offline browser: the
// template, style sheet and script are compiled into the binary and
// inlined, charts are SVG generated here, and nothing on the page refers
// to another file or host.
var (
	//go:embed assets/report.html.tmpl
	htmlTemplateText string
	//go:embed assets/report.css
	htmlCSS string
	//go:embed assets/report.js
	htmlJS string
)

var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"inc": func(n int) int { return n + 1 },
}).Parse(htmlTemplateText))

// Default limits of the embedded trial detail. The demo's run (4,587
// trials, 104 MB of traces) must stay a page a browser opens at once, so
// traces are sampled per cell up to a byte budget and the page says so.
const (
	DefaultPageBudget       = 1_900_000
	DefaultTraceBudget      = 1 << 20
	DefaultMaxTrialsPerCell = 60
	// maxTraceString cuts any one string inside an embedded trace event.
	maxTraceString = 1500
)

// HTMLOptions tune the HTML report. The zero value uses the defaults.
type HTMLOptions struct {
	// ArmOrder and ClassOrder put the arms and attack classes in this
	// order; names not listed follow in the summary's order.
	ArmOrder, ClassOrder, RegisterOrder []string
	// PageBudget caps the page size in bytes; the embedded traces fill
	// what the tables leave of it, up to TraceBudget.
	PageBudget  int
	TraceBudget int
	// MaxTrialsPerCell caps the trial rows listed per (model, arm,
	// class, register) cell.
	MaxTrialsPerCell int
}

func (o HTMLOptions) withDefaults() HTMLOptions {
	if o.PageBudget <= 0 {
		o.PageBudget = DefaultPageBudget
	}
	if o.TraceBudget <= 0 {
		o.TraceBudget = DefaultTraceBudget
	}
	if o.MaxTrialsPerCell <= 0 {
		o.MaxTrialsPerCell = DefaultMaxTrialsPerCell
	}
	return o
}

// HTMLStats says what a written page holds.
type HTMLStats struct {
	Bytes            int
	TrialsListed     int
	TrialsTotal      int
	TracesEmbedded   int
	TraceBytes       int
	TraceBudget      int
	MaxTrialsPerCell int
}

// WriteHTMLFile writes runDir/report.html for the summary s of that run.
func WriteHTMLFile(runDir string, s *Summary, opt HTMLOptions) (HTMLStats, error) {
	var st HTMLStats
	err := writeFile(runDir, HTMLFile, func(w io.Writer) error {
		var err error
		st, err = WriteHTML(w, runDir, s, opt)
		return err
	})
	return st, err
}

// WriteHTML writes the HTML report of the run in runDir (whose summary is
// s) to w. The run directory supplies the provenance (RUN.md), the trial
// list (trials.jsonl) and the sampled traces.
func WriteHTML(w io.Writer, runDir string, s *Summary, opt HTMLOptions) (HTMLStats, error) {
	opt = opt.withDefaults()
	v := buildView(s, opt)
	v.Prov = readProvenance(runDir, s)
	idx, err := readTrialIndex(runDir, opt.MaxTrialsPerCell)
	if err != nil {
		return HTMLStats{}, err
	}
	// First render without traces to learn what the tables cost, then let
	// the traces fill what is left of the page budget.
	data := idx.pageData(nil)
	var buf bytes.Buffer
	if err := v.render(&buf, data); err != nil {
		return HTMLStats{}, err
	}
	budget := min(opt.TraceBudget, opt.PageBudget-buf.Len())
	traces := idx.embedTraces(runDir, max(budget, 0))
	v.Limits = traceLimits{Listed: len(idx.rows), Total: idx.total, Capped: idx.capped, PerCell: opt.MaxTrialsPerCell,
		Embedded: traces.count, BudgetKB: max(budget, 0) / 1000, Dir: "traces/"}
	data = idx.pageData(traces)
	buf.Reset()
	if err := v.render(&buf, data); err != nil {
		return HTMLStats{}, err
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return HTMLStats{}, fmt.Errorf("%s: %w", HTMLFile, err)
	}
	return HTMLStats{Bytes: buf.Len(), TrialsListed: len(idx.rows), TrialsTotal: idx.total, TracesEmbedded: traces.count,
		TraceBytes: traces.bytes, TraceBudget: max(budget, 0), MaxTrialsPerCell: opt.MaxTrialsPerCell}, nil
}

// view is what the template renders.
type view struct {
	Title     string
	Prov      provenance
	Counts    Counts
	Warnings  []string
	Registers []regOption
	RegCSS    template.CSS
	CSS       template.CSS
	JS        template.JS
	Data      template.JS
	Heatmaps  []heatmap
	Forests   []forest
	Deltas    []deltaRow
	Evals     []evalRow
	Limits    traceLimits
	Legend    []legendStop
}

type traceLimits struct {
	Listed, Total, Capped, PerCell, Embedded, BudgetKB int
	Dir                                                string
}

type regOption struct {
	ID, Name, Label string
}

type heatmap struct {
	Arm     string
	Classes []string
	Views   []heatmapView
}

type heatmapView struct {
	Register string
	Groups   []rowGroup
}

type rowGroup struct {
	Title string
	Rows  []heatRow
}

type heatRow struct {
	Model   string
	Control bool
	Cells   []heatCell
}

type heatCell struct {
	Present             bool
	Model, Arm, Class   string
	Register, Metric    string
	K, N, Errors        int
	Text, Rate, Title   string
	Background, Fg      string
	Empty               bool
	ControlAttr         bool
	WilsonLow, WilsonHi string
}

type legendStop struct{ Label, Background, Fg string }

type deltaRow struct {
	Model, Arm, Class           string
	Control                     bool
	NoneASR, ArmASR, DiffASR    string
	KeptS, Lost, Gained, KeptF  string
	PASR                        string
	NoneUtil, ArmUtil, DiffUtil string
	UtilLost, UtilGained, PUtil string
	NoneErrors, ArmErrors       int
}

type evalRow struct {
	Model, Arm                                  string
	Control                                     bool
	Benign, Utility, Targeted, Secure, Realized string
	CondExposed, CondSolved                     string
	Cases, Exposed, Solved, BenignTasks         int
}

// ordered returns names in the preferred order, then the rest in the
// order first seen.
func ordered(seen []string, pref []string) []string {
	have := map[string]bool{}
	for _, s := range seen {
		have[s] = true
	}
	var out []string
	done := map[string]bool{}
	for _, p := range pref {
		if have[p] && !done[p] {
			out = append(out, p)
			done[p] = true
		}
	}
	for _, s := range seen {
		if !done[s] {
			out = append(out, s)
			done[s] = true
		}
	}
	return out
}

func fmtRate3(r Rate) string {
	if r.Rate == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", *r.Rate)
}

func fmtRateFull(r Rate) string {
	if r.Rate == nil {
		return fmt.Sprintf("%d/%d (n/a)", r.K, r.N)
	}
	return fmt.Sprintf("%d/%d = %.3f [%.3f, %.3f]", r.K, r.N, *r.Rate, r.WilsonLow, r.WilsonHigh)
}

func fmtP(p float64) string {
	if p < 0.0001 {
		return "<0.0001"
	}
	return fmt.Sprintf("%.4f", p)
}

func buildView(s *Summary, opt HTMLOptions) *view {
	v := &view{Title: "mcpsec run report", Counts: s.Counts, Warnings: s.Warnings,
		CSS: template.CSS(htmlCSS), JS: template.JS(htmlJS)}
	var arms, classes, registers, models []string
	seenA, seenC, seenR, seenM := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	control := map[string]bool{}
	for _, c := range s.Rollup {
		if !seenA[c.Arm] {
			seenA[c.Arm] = true
			arms = append(arms, c.Arm)
		}
		if c.Class != BenignClass && !seenC[c.Class] {
			seenC[c.Class] = true
			classes = append(classes, c.Class)
		}
		if c.Class != BenignClass && !seenR[c.Register] {
			seenR[c.Register] = true
			registers = append(registers, c.Register)
		}
		if !seenM[c.Model] {
			seenM[c.Model] = true
			models = append(models, c.Model)
		}
		control[c.Model] = control[c.Model] || c.Control || model.IsControl(c.Model)
	}
	sort.Strings(registers)
	arms = ordered(arms, append([]string{NoneArm}, opt.ArmOrder...))
	classes = ordered(classes, opt.ClassOrder)
	registers = ordered(registers, opt.RegisterOrder)
	var real, ctl []string
	for _, m := range models {
		if control[m] {
			ctl = append(ctl, m)
		} else {
			real = append(real, m)
		}
	}
	sort.Strings(real)
	sort.Strings(ctl)

	regs := append([]string{AllRegisters}, registers...)
	var css strings.Builder
	for i, r := range regs {
		label := registerLabel(r)
		id := fmt.Sprintf("reg-%d", i)
		v.Registers = append(v.Registers, regOption{ID: id, Name: r, Label: label})
		// The register selector is a radio group: CSS shows the chosen
		// register's views, so it works with JavaScript turned off.
		fmt.Fprintf(&css, "#%s:checked ~ * .reg-view[data-view=\"%d\"]{display:block}\n#%s:checked ~ * label[for=%s]{background:#1f2937;color:#fff}\n", id, i, id, id)
	}
	v.RegCSS = template.CSS(css.String())

	type ck struct{ model, arm, class, register string }
	cells := map[ck]*Cell{}
	for i := range s.Rollup {
		c := &s.Rollup[i]
		cells[ck{c.Model, c.Arm, c.Class, c.Register}] = c
	}
	for i := range s.RollupAllRegisters {
		c := &s.RollupAllRegisters[i]
		cells[ck{c.Model, c.Arm, c.Class, AllRegisters}] = c
	}
	groups := []struct {
		title  string
		models []string
		ctl    bool
	}{{"Models", real, false}, {"Control agents (not models: they prove the fixtures and defenses)", ctl, true}}

	for _, arm := range arms {
		hm := heatmap{Arm: arm, Classes: classes}
		for _, reg := range regs {
			hv := heatmapView{Register: reg}
			for _, g := range groups {
				if len(g.models) == 0 {
					continue
				}
				rg := rowGroup{Title: g.title}
				for _, m := range g.models {
					row := heatRow{Model: m, Control: g.ctl}
					for _, class := range classes {
						c := cells[ck{m, arm, class, reg}]
						row.Cells = append(row.Cells, newHeatCell(c, m, arm, class, reg))
					}
					rg.Rows = append(rg.Rows, row)
				}
				hv.Groups = append(hv.Groups, rg)
			}
			hm.Views = append(hm.Views, hv)
		}
		v.Heatmaps = append(v.Heatmaps, hm)
	}
	for i := 0; i <= 10; i++ {
		x := float64(i) / 10
		bg, fg := viridis(x)
		v.Legend = append(v.Legend, legendStop{Label: fmt.Sprintf("%.1f", x), Background: bg, Fg: fg})
	}

	// Forest plots: attack success over all attack classes per model and
	// arm, one plot per register view.
	for _, reg := range regs {
		var rows []forestRow
		for _, g := range groups {
			for _, m := range g.models {
				for _, arm := range arms {
					k, n, errs, present := 0, 0, 0, false
					for _, class := range classes {
						if c := cells[ck{m, arm, class, reg}]; c != nil {
							r := c.Metrics[MetricObjectiveMet]
							k += r.K
							n += r.N
							errs += c.Errors
							present = true
						}
					}
					if present {
						rows = append(rows, forestRow{Model: m, Control: g.ctl, Arm: arm, Rate: NewRate(k, n), Errors: errs})
					}
				}
			}
		}
		v.Forests = append(v.Forests, forest{Register: reg, SVG: forestSVG(rows, registerLabel(reg))})
	}

	v.Deltas = buildDeltas(s, real, ctl, arms, append([]string{BenignClass}, classes...))
	v.Evals = buildEvals(s, real, ctl, arms)
	return v
}

func registerLabel(r string) string {
	switch r {
	case AllRegisters:
		return "All registers"
	case "seen":
		return "Seen"
	case "held-out", "held_out":
		return "Held-out"
	case "adversarial":
		return "Adversarial"
	}
	return r
}

func newHeatCell(c *Cell, m, arm, class, reg string) heatCell {
	hc := heatCell{Model: m, Arm: arm, Class: class, Register: reg, Metric: MetricObjectiveMet}
	if c == nil {
		return hc
	}
	r := c.Metrics[MetricObjectiveMet]
	hc.Present = true
	hc.K, hc.N, hc.Errors = r.K, r.N, c.Errors
	hc.Text = fmt.Sprintf("%d/%d", r.K, r.N)
	hc.Rate = fmtRate3(r)
	hc.WilsonLow, hc.WilsonHi = fmt.Sprintf("%.3f", r.WilsonLow), fmt.Sprintf("%.3f", r.WilsonHigh)
	errs := ""
	if c.Errors > 0 {
		errs = fmt.Sprintf("; %d errored trials excluded", c.Errors)
	}
	if r.Rate == nil {
		hc.Empty = true
		hc.Title = "attack success n/a: no completed trial" + errs
		return hc
	}
	hc.Background, hc.Fg = viridis(*r.Rate)
	hc.Title = fmt.Sprintf("attack success %d/%d = %.3f, 95%% Wilson [%.3f, %.3f]%s", r.K, r.N, *r.Rate, r.WilsonLow, r.WilsonHigh, errs)
	return hc
}

// viridisStops samples the viridis colour map, which stays readable for
// the common forms of colour blindness and in greyscale.
var viridisStops = [][3]float64{
	{68, 1, 84}, {72, 40, 120}, {62, 74, 137}, {49, 104, 142}, {38, 130, 142},
	{31, 158, 137}, {53, 183, 121}, {109, 205, 89}, {180, 222, 44}, {253, 231, 37},
}

// viridis returns the background for a rate in [0,1] and a text colour
// with enough contrast on it.
func viridis(x float64) (bg, fg string) {
	x = math.Max(0, math.Min(1, x))
	pos := x * float64(len(viridisStops)-1)
	i := int(pos)
	if i >= len(viridisStops)-1 {
		i = len(viridisStops) - 2
	}
	t := pos - float64(i)
	var c [3]float64
	for j := range c {
		c[j] = viridisStops[i][j]*(1-t) + viridisStops[i+1][j]*t
	}
	lum := func(v float64) float64 {
		v /= 255
		if v <= 0.03928 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	l := 0.2126*lum(c[0]) + 0.7152*lum(c[1]) + 0.0722*lum(c[2])
	// Pick the text colour with the higher WCAG contrast ratio.
	fg = "#000"
	if (1.05)/(l+0.05) > (l+0.05)/0.05 {
		fg = "#fff"
	}
	return fmt.Sprintf("#%02x%02x%02x", int(math.Round(c[0])), int(math.Round(c[1])), int(math.Round(c[2]))), fg
}

func buildDeltas(s *Summary, real, ctl, arms, classes []string) []deltaRow {
	type key struct{ model, arm, class, metric string }
	type acc struct {
		arm, none   [2]int // k, n
		armE, noneE int
		pc          stats.PairedCounts
		paired      bool
	}
	sums := map[key]*acc{}
	for _, d := range s.Deltas {
		if d.Metric != MetricObjectiveMet && d.Metric != MetricUtility {
			continue
		}
		k := key{d.Model, d.Arm, d.Class, d.Metric}
		a := sums[k]
		if a == nil {
			a = &acc{}
			sums[k] = a
		}
		a.arm[0] += d.ArmRate.K
		a.arm[1] += d.ArmRate.N
		a.none[0] += d.NoneRate.K
		a.none[1] += d.NoneRate.N
		a.armE += d.ArmErrors
		a.noneE += d.NoneErrors
		if d.Paired != nil {
			a.paired = true
			c := d.Paired.Counts
			a.pc.KeptSuccess += c.KeptSuccess
			a.pc.Lost += c.Lost
			a.pc.Gained += c.Gained
			a.pc.KeptFailure += c.KeptFailure
		}
	}
	diff := func(a *acc) string {
		ar, nr := NewRate(a.arm[0], a.arm[1]), NewRate(a.none[0], a.none[1])
		if ar.Rate == nil || nr.Rate == nil {
			return "n/a"
		}
		return fmt.Sprintf("%+.3f", *ar.Rate-*nr.Rate)
	}
	var out []deltaRow
	for _, group := range [][]string{real, ctl} {
		for _, m := range group {
			for _, arm := range arms {
				if arm == NoneArm {
					continue
				}
				for _, class := range classes {
					asr, util := sums[key{m, arm, class, MetricObjectiveMet}], sums[key{m, arm, class, MetricUtility}]
					if asr == nil && util == nil {
						continue
					}
					row := deltaRow{Model: m, Arm: arm, Class: class, Control: model.IsControl(m) || contains(ctl, m),
						NoneASR: "–", ArmASR: "–", DiffASR: "–", KeptS: "–", Lost: "–", Gained: "–", KeptF: "–", PASR: "–",
						NoneUtil: "–", ArmUtil: "–", DiffUtil: "–", UtilLost: "–", UtilGained: "–", PUtil: "–"}
					if asr != nil && class != BenignClass {
						row.NoneASR = fmtRateFull(NewRate(asr.none[0], asr.none[1]))
						row.ArmASR = fmtRateFull(NewRate(asr.arm[0], asr.arm[1]))
						row.DiffASR = diff(asr)
						row.NoneErrors, row.ArmErrors = asr.noneE, asr.armE
						if p := stats.FromCounts(asr.pc); asr.paired && p != nil {
							row.KeptS, row.Lost, row.Gained, row.KeptF = itoa(p.Counts.KeptSuccess), itoa(p.Counts.Lost), itoa(p.Counts.Gained), itoa(p.Counts.KeptFailure)
							row.PASR = fmtP(p.McNemarP)
						}
					}
					if util != nil {
						row.NoneUtil = fmtRateFull(NewRate(util.none[0], util.none[1]))
						row.ArmUtil = fmtRateFull(NewRate(util.arm[0], util.arm[1]))
						row.DiffUtil = diff(util)
						row.NoneErrors, row.ArmErrors = util.noneE, util.armE
						if p := stats.FromCounts(util.pc); util.paired && p != nil {
							row.UtilLost, row.UtilGained = itoa(p.Counts.Lost), itoa(p.Counts.Gained)
							row.PUtil = fmtP(p.McNemarP)
						}
					}
					out = append(out, row)
				}
			}
		}
	}
	return out
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func itoa(i int) string { return fmt.Sprint(i) }

// buildEvals sums the evaluation method's case metrics of each model and
// arm over attack classes and registers (their cases are disjoint); the
// benign utility is per (model, arm) already.
func buildEvals(s *Summary, real, ctl, arms []string) []evalRow {
	type key struct{ model, arm string }
	type acc struct {
		cases, targeted, realized, utility, secure, exposed, exposedHit, solved, solvedHit int
		benign                                                                             Rate
		haveBenign                                                                         bool
	}
	sums := map[key]*acc{}
	for _, c := range s.CaseMetrics {
		k := key{c.Model, c.Arm}
		a := sums[k]
		if a == nil {
			a = &acc{}
			sums[k] = a
		}
		a.cases += c.Cases
		a.targeted += c.TargetedASR.K
		a.realized += c.RealizedASR.K
		a.utility += c.Utility.K
		a.secure += c.SecureUtility.K
		a.exposed += c.ExposedCases
		a.exposedHit += c.ConditionalASRExposed.K
		a.solved += c.BenignSolvedCases
		a.solvedHit += c.ConditionalASRBenignSolved.K
		if !a.haveBenign {
			a.benign, a.haveBenign = c.BenignUtility, true
		}
	}
	var out []evalRow
	for _, group := range [][]string{real, ctl} {
		for _, m := range group {
			for _, arm := range arms {
				a := sums[key{m, arm}]
				if a == nil {
					continue
				}
				out = append(out, evalRow{Model: m, Arm: arm, Control: contains(ctl, m),
					Benign:      fmtRateFull(a.benign),
					Utility:     fmtRateFull(NewRate(a.utility, a.cases)),
					Targeted:    fmtRateFull(NewRate(a.targeted, a.cases)),
					Realized:    fmtRateFull(NewRate(a.realized, a.cases)),
					Secure:      fmtRateFull(NewRate(a.secure, a.cases)),
					CondExposed: fmtRateFull(NewRate(a.exposedHit, a.exposed)),
					CondSolved:  fmtRateFull(NewRate(a.solvedHit, a.solved)),
					Cases:       a.cases, Exposed: a.exposed, Solved: a.solved, BenignTasks: a.benign.N})
			}
		}
	}
	return out
}

func (v *view) render(w *bytes.Buffer, data []byte) error {
	v.Data = template.JS(data)
	if err := htmlTemplate.Execute(w, v); err != nil {
		return fmt.Errorf("%s: %w", HTMLFile, err)
	}
	return nil
}

// provenance is the header of the page, read from RUN.md.
type provenance struct {
	Fields []kv
	Roster []rosterEntry
	Arms   string
}

type kv struct{ Key, Value string }

type rosterEntry struct {
	Spec, Kind string
	Control    bool
}

// readProvenance reads RUN.md's field table and roster. A run directory
// without RUN.md (a merged or hand-made one) still gets a page; the
// header then says what is unknown and lists the models of the summary.
func readProvenance(runDir string, s *Summary) provenance {
	var p provenance
	b, err := os.ReadFile(filepath.Join(runDir, "RUN.md"))
	fields := map[string]string{}
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(line, "| ") && strings.Count(line, "|") == 3:
				parts := strings.Split(strings.Trim(line, "|"), "|")
				k, val := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])
				if k != "field" && !strings.HasPrefix(k, "---") {
					fields[k] = val
				}
			case strings.HasPrefix(line, "- `"):
				rest := line[3:]
				if i := strings.Index(rest, "`"); i > 0 {
					spec := rest[:i]
					kind := strings.TrimPrefix(strings.TrimSpace(rest[i+1:]), ": ")
					p.Roster = append(p.Roster, rosterEntry{Spec: spec, Kind: kind, Control: model.IsControl(spec)})
				}
			case strings.HasPrefix(line, "Arms: "):
				p.Arms = strings.TrimPrefix(line, "Arms: ")
			}
		}
	}
	for _, k := range []string{"mcpsec version", "git revision", "config digest", "started", "ended", "shard", "trials planned", "trials recorded"} {
		val, ok := fields[k]
		if !ok {
			val = "unknown (no RUN.md entry)"
		}
		p.Fields = append(p.Fields, kv{k, val})
	}
	if len(p.Roster) == 0 {
		seen := map[string]bool{}
		for _, c := range s.Rollup {
			if !seen[c.Model] {
				seen[c.Model] = true
				kind := "model"
				if c.Control || model.IsControl(c.Model) {
					kind = "control agent (not a model)"
				}
				p.Roster = append(p.Roster, rosterEntry{Spec: c.Model, Kind: kind, Control: kind != "model"})
			}
		}
		sort.Slice(p.Roster, func(i, j int) bool { return p.Roster[i].Spec < p.Roster[j].Spec })
	}
	return p
}

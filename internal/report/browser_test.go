package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/mcpsec/mcpsec/internal/cli"
	"github.com/mcpsec/mcpsec/internal/report"
	"github.com/mcpsec/mcpsec/internal/testkit"
	"github.com/mcpsec/mcpsec/internal/trace"
	"github.com/mcpsec/mcpsec/internal/trial"
)

// smallGrid is a run small enough for a test: two control agents, two
// arms, three attack classes, every register, one objective (44 trials).
const smallGrid = `models: [control:compromised, control:reference]
classes:
  tool_description: [calc_invoice]
  rug_pull: [notes_pipeline]
  cross_server: [notes_pipeline]
registers: [seen, held-out, adversarial]
objectives: [exfil]
arms: [none, policy]
seeds: [1]
rug_modes: [result]
`

// makeRun runs the small grid with `mcpsec bench --html`, as a user would.
func makeRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "grid.yaml")
	if err := os.WriteFile(cfg, []byte(smallGrid), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	var stdout, stderr bytes.Buffer
	code := cli.RunContext(context.Background(), []string{"bench", "--config", cfg, "--out", out, "--html"},
		&cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
	if code != 0 {
		t.Fatalf("bench exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), filepath.Join(out, report.HTMLFile)) {
		t.Fatalf("bench --html did not print the report's path:\n%s", stdout.String())
	}
	return out
}

// pageCell is a heatmap cell as the browser sees it.
type pageCell struct {
	Model, Arm, Class, Register, Metric string
	K, N                                int
	Visible                             bool
}

const cellsJS = `Array.from(document.querySelectorAll("td[data-metric]")).map(td => ({
  Model: td.dataset.model, Arm: td.dataset.arm, Class: td.dataset.class, Register: td.dataset.register,
  Metric: td.dataset.metric, K: +td.dataset.k, N: +td.dataset.n, Visible: td.offsetParent !== null}))`

func TestHTMLReportInBrowser(t *testing.T) {
	run := makeRun(t)
	raw, err := os.ReadFile(filepath.Join(run, report.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var sum report.Summary
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatal(err)
	}
	recs := readRecords(t, run)

	b := testkit.Chromium(t)
	url := "file://" + filepath.Join(run, report.HTMLFile)
	var lang, title string
	var cells []pageCell
	if err := chromedp.Run(b.Ctx,
		chromedp.Navigate(url),
		chromedp.WaitReady("#heatmaps"),
		chromedp.Evaluate(`document.documentElement.lang`, &lang),
		chromedp.Title(&title),
		chromedp.Evaluate(cellsJS, &cells),
	); err != nil {
		t.Fatal(err)
	}
	if lang == "" || title == "" {
		t.Errorf("lang %q, title %q: both must be set", lang, title)
	}

	// Every heatmap cell carries the counts of summary.json's roll-up for
	// its register ("*" is the sum over registers), and every roll-up of
	// an attack class has its cell.
	type key struct{ model, arm, class, register string }
	want := map[key][2]int{}
	sumOver := map[key][2]int{}
	for _, c := range sum.Rollup {
		if c.Class == report.BenignClass {
			continue
		}
		r := c.Metrics[report.MetricObjectiveMet]
		want[key{c.Model, c.Arm, c.Class, c.Register}] = [2]int{r.K, r.N}
		s := sumOver[key{c.Model, c.Arm, c.Class, "*"}]
		sumOver[key{c.Model, c.Arm, c.Class, "*"}] = [2]int{s[0] + r.K, s[1] + r.N}
	}
	for _, c := range sum.RollupAllRegisters {
		if c.Class == report.BenignClass {
			continue
		}
		r := c.Metrics[report.MetricObjectiveMet]
		k := key{c.Model, c.Arm, c.Class, c.Register}
		if sumOver[k] != [2]int{r.K, r.N} {
			t.Errorf("summary.json rollup_all_registers %v = %d/%d, but its registers sum to %v", k, r.K, r.N, sumOver[k])
		}
		want[k] = [2]int{r.K, r.N}
	}
	if len(cells) != len(want) {
		t.Errorf("page has %d heatmap cells, summary.json has %d roll-ups of attack classes", len(cells), len(want))
	}
	registers := map[string]bool{}
	for _, c := range cells {
		k := key{c.Model, c.Arm, c.Class, c.Register}
		w, ok := want[k]
		if !ok {
			t.Errorf("cell %v is not in summary.json", k)
			continue
		}
		if c.Metric != report.MetricObjectiveMet || c.K != w[0] || c.N != w[1] {
			t.Errorf("cell %v: %s %d/%d, summary.json objective_met %d/%d", k, c.Metric, c.K, c.N, w[0], w[1])
		}
		if c.Visible != (c.Register == "*") {
			t.Errorf("cell %v visible=%v before choosing a register; only the all-registers view should show", k, c.Visible)
		}
		registers[c.Register] = true
	}
	if len(registers) != 4 {
		t.Fatalf("registers on the page: %v, want *, seen, held-out, adversarial", registers)
	}

	// The register selector: choosing "held-out" shows exactly its cells.
	if err := chromedp.Run(b.Ctx,
		chromedp.Click(`label[for="`+regID(t, b, "held-out")+`"]`, chromedp.ByQuery),
		chromedp.Evaluate(cellsJS, &cells),
	); err != nil {
		t.Fatal(err)
	}
	shown := 0
	for _, c := range cells {
		if c.Visible != (c.Register == "held-out") {
			t.Errorf("after choosing held-out, cell %s/%s/%s/%s visible=%v", c.Model, c.Arm, c.Class, c.Register, c.Visible)
		}
		if c.Visible {
			shown++
		}
	}
	if shown == 0 {
		t.Fatal("no cell visible after choosing held-out")
	}

	// Click a cell where the policy arm blocked a call: the trial list
	// shows the cell's trials, and a blocked trial's timeline shows its
	// events in order with the blocked call highlighted.
	var blocked *trial.Record
	for i := range recs {
		r := &recs[i]
		if r.Register == "held-out" && r.Blocked && r.AttackClass != report.BenignClass {
			blocked = r
			break
		}
	}
	if blocked == nil {
		t.Fatal("the small run has no blocked held-out trial to look at; the grid no longer exercises the policy arm")
	}
	cellSel := fmt.Sprintf(`td[data-model=%q][data-arm=%q][data-class=%q][data-register="held-out"]`, blocked.Model, blocked.Arm, blocked.AttackClass)
	var listed []string
	if err := chromedp.Run(b.Ctx,
		chromedp.Click(cellSel, chromedp.ByQuery),
		chromedp.WaitVisible(`#trials tr[data-trial]`, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("#trials tr[data-trial]")).map(tr => tr.dataset.trial)`, &listed),
	); err != nil {
		t.Fatal(err)
	}
	var inCell []string
	for _, r := range recs {
		if r.Model == blocked.Model && r.Arm == blocked.Arm && r.AttackClass == blocked.AttackClass && r.Register == "held-out" {
			inCell = append(inCell, r.ID)
		}
	}
	sort.Strings(listed)
	sort.Strings(inCell)
	if strings.Join(listed, ",") != strings.Join(inCell, ",") {
		t.Errorf("trials listed for the cell %v, trials.jsonl has %v", listed, inCell)
	}

	var kinds []string
	var heading string
	var blockedShown int
	if err := chromedp.Run(b.Ctx,
		chromedp.Click(fmt.Sprintf(`#trials tr[data-trial=%q]`, blocked.ID), chromedp.ByQuery),
		chromedp.WaitVisible(`#trace li.ev`, chromedp.ByQuery),
		chromedp.Text(`#trace h3`, &heading, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("#trace li.ev")).map(li => li.dataset.kind)`, &kinds),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("#trace li.ev-blocked_tool_call")).filter(li => getComputedStyle(li).backgroundColor !== getComputedStyle(document.querySelector("#trace li.ev-run_config")).backgroundColor).length`, &blockedShown),
	); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(heading, blocked.ID) {
		t.Errorf("trace heading %q does not name trial %s", heading, blocked.ID)
	}
	root, err := os.OpenRoot(run)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := trace.ReadRef(root, trace.RefOf(*blocked))
	root.Close()
	if err != nil {
		t.Fatal(err)
	}
	var wantKinds []string
	nBlocked := 0
	for _, e := range evs {
		wantKinds = append(wantKinds, e.Kind)
		if e.Kind == trace.KindBlockedToolCall {
			nBlocked++
		}
	}
	if strings.Join(kinds, " ") != strings.Join(wantKinds, " ") {
		t.Errorf("timeline events\n%v\ntrace file\n%v", kinds, wantKinds)
	}
	if nBlocked == 0 || blockedShown != nBlocked {
		t.Errorf("%d blocked calls highlighted, the trace has %d", blockedShown, nBlocked)
	}

	screenshot(t, b, "#trace li.ev-blocked_tool_call", "report-trace.png")
	if err := chromedp.Run(b.Ctx, chromedp.Click(`label[for="`+regID(t, b, "*")+`"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	screenshot(t, b, "#heatmaps", "report-heatmap.png")

	t.Logf("%d cells, %d listed in the clicked cell, %d events, %d blocked; requests %v", len(cells), len(listed), len(kinds), nBlocked, b.Requests())
	// Nothing left the page: the only request is the file itself.
	b.AssertOnlyRequested(t, url)

	// Without JavaScript the tables and the register selector still work.
	if err := chromedp.Run(b.Ctx,
		emulation.SetScriptExecutionDisabled(true),
		chromedp.Navigate(url),
		chromedp.WaitReady("#heatmaps"),
		chromedp.Click(`label[for="`+regID(t, b, "seen")+`"]`, chromedp.ByQuery),
		chromedp.Evaluate(cellsJS, &cells),
	); err != nil {
		t.Fatal(err)
	}
	shown = 0
	for _, c := range cells {
		if c.Visible {
			shown++
			if c.Register != "seen" {
				t.Errorf("without JavaScript, after choosing seen, cell of register %s is visible", c.Register)
			}
		}
	}
	if shown == 0 {
		t.Error("without JavaScript no heatmap cell shows after choosing seen")
	}
}

// regID returns the id of the register radio button for name.
func regID(t *testing.T, b *testkit.Browser, name string) string {
	t.Helper()
	var id string
	if err := chromedp.Run(b.Ctx, chromedp.Evaluate(fmt.Sprintf(`document.querySelector('input.regsel[data-register=%q]').id`, name), &id)); err != nil {
		t.Fatalf("register %s has no selector: %v", name, err)
	}
	return id
}

// screenshot scrolls the element sel into view and captures the
// viewport (testkit's Screenshot says where it is written).
func screenshot(t *testing.T, b *testkit.Browser, sel, name string) {
	t.Helper()
	var ok bool
	if err := chromedp.Run(b.Ctx,
		chromedp.Evaluate(fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return false; e.scrollIntoView({block: "start"}); window.scrollBy(0, -40); return true })()`, sel), &ok),
	); err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Fatalf("screenshot %s: no element %s", name, sel)
	}
	b.Screenshot(t, name)
}

func readRecords(t *testing.T, run string) []trial.Record {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(run, report.TrialsFile))
	if err != nil {
		t.Fatal(err)
	}
	var out []trial.Record
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r trial.Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

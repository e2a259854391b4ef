package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/trial"
)

// writeTrace writes a minimal trace for r whose tool result carries text.
func writeTrace(t *testing.T, dir string, r trial.Record, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "traces"), 0o755); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		fmt.Sprintf(`{"schema_version":1,"seq":1,"time":"2026-01-01T00:00:00Z","kind":"run_config","step":0,"data":{"trial_id":%q,"model":%q}}`, r.ID, r.Model),
		fmt.Sprintf(`{"seq":2,"time":"2026-01-01T00:00:00Z","kind":"tool_result","step":1,"data":{"call_id":"c1","server":"workspace","tool":"read_note","raw":%s,"transformed":"[removed]"}}`, strconv.Quote(text)),
		`{"seq":3,"time":"2026-01-01T00:00:00Z","kind":"summary","step":1,"data":{"final_text":"done","steps":1}}`,
	}
	if err := os.WriteFile(filepath.Join(dir, r.Trace), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

var cellRE = regexp.MustCompile(`<td class="cell[^"]*" tabindex="0" data-model="([^"]*)" data-arm="([^"]*)" data-class="([^"]*)" data-register="([^"]*)" data-metric="([^"]*)" data-k="(\d+)" data-n="(\d+)"`)

func TestWriteHTML(t *testing.T) {
	recs := fixtureRecords()
	// A trace path that leaves the run directory must never be read into
	// the page, and text that tries to close the data's script element
	// must stay data.
	recs[1].Trace = "../outside.jsonl"
	dir := writeRun(t, recs, "")
	outside := filepath.Join(filepath.Dir(dir), "outside.jsonl")
	if err := os.WriteFile(outside, []byte(`{"seq":1,"kind":"run_config","step":0,"data":{"secret":"OUTSIDE-FILE-CONTENT"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hostile := "</script><script>alert(1)</script> zero\u200bwidth"
	for _, r := range recs {
		if r.Trace != "" && filepath.IsLocal(r.Trace) {
			writeTrace(t, dir, r, hostile)
		}
	}
	s, err := Aggregate(dir)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	st, err := WriteHTML(&buf, dir, s, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	page := buf.String()

	// Cells: one per roll-up of an attack class, for its register and for
	// all registers, with summary.json's counts.
	want := map[string]string{}
	for _, cells := range [][]Cell{s.Rollup, s.RollupAllRegisters} {
		for _, c := range cells {
			if c.Class == BenignClass {
				continue
			}
			r := c.Metrics[MetricObjectiveMet]
			want[c.Model+"|"+c.Arm+"|"+c.Class+"|"+c.Register] = fmt.Sprintf("%d/%d", r.K, r.N)
		}
	}
	got := cellRE.FindAllStringSubmatch(page, -1)
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("%d heatmap cells, want %d", len(got), len(want))
	}
	for _, m := range got {
		k := m[1] + "|" + m[2] + "|" + m[3] + "|" + m[4]
		if m[5] != MetricObjectiveMet || want[k] != m[6]+"/"+m[7] {
			t.Errorf("cell %s: %s %s/%s, want objective_met %s", k, m[5], m[6], m[7], want[k])
		}
	}

	for _, bad := range []string{"http://", "https://", "src=", "@import", "url(", "OUTSIDE-FILE-CONTENT", "<script>alert"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	if n := strings.Count(page, "</script>"); n != 2 {
		t.Errorf("page has %d </script>, want 2 (the data and the viewer)", n)
	}
	for _, need := range []string{`<html lang="en">`, "<title>", "control agent", "Wilson", "McNemar"} {
		if !strings.Contains(page, need) {
			t.Errorf("page lacks %q", need)
		}
	}
	// Rates print with three digits, never a float's full expansion.
	for _, m := range regexp.MustCompile(`<span class="rate">([^<]*)</span>`).FindAllStringSubmatch(page, -1) {
		if !regexp.MustCompile(`^(\d\.\d{3}|n/a)$`).MatchString(m[1]) {
			t.Errorf("rate printed as %q", m[1])
		}
	}
	if st.TracesEmbedded != st.TrialsListed-1 || st.TrialsListed != st.TrialsTotal {
		t.Errorf("stats %+v: every trial but the one with an outside trace path should be embedded", st)
	}
}

// TestWriteHTMLBudget checks that a tight page budget is kept by
// embedding fewer traces, and that the page says how many it embedded.
func TestWriteHTMLBudget(t *testing.T) {
	recs := fixtureRecords()
	dir := writeRun(t, recs, "")
	for _, r := range recs {
		writeTrace(t, dir, r, strings.Repeat("long result text ", 200))
	}
	s, err := Aggregate(dir)
	if err != nil {
		t.Fatal(err)
	}
	var full bytes.Buffer
	all, err := WriteHTML(&full, dir, s, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if all.TracesEmbedded != all.TrialsTotal {
		t.Fatalf("with the default budget every trace fits: %+v", all)
	}
	budget := full.Len() - all.TraceBytes + all.TraceBytes/3
	var small bytes.Buffer
	st, err := WriteHTML(&small, dir, s, HTMLOptions{PageBudget: budget})
	if err != nil {
		t.Fatal(err)
	}
	if small.Len() > budget {
		t.Errorf("page is %d bytes, budget %d", small.Len(), budget)
	}
	if st.TracesEmbedded == 0 || st.TracesEmbedded >= all.TracesEmbedded {
		t.Errorf("embedded %d traces under the tight budget, %d without", st.TracesEmbedded, all.TracesEmbedded)
	}
	if !strings.Contains(small.String(), fmt.Sprintf("Full event timelines are embedded for %d trials", st.TracesEmbedded)) {
		t.Error("the page does not state how many timelines it embedded")
	}
	// The per-cell cap limits the trial list and is stated too.
	var capped bytes.Buffer
	st, err = WriteHTML(&capped, dir, s, HTMLOptions{MaxTrialsPerCell: 1})
	if err != nil {
		t.Fatal(err)
	}
	if st.TrialsListed >= st.TrialsTotal || !strings.Contains(capped.String(), "left out by that cap") {
		t.Errorf("cap of 1 per cell: %+v", st)
	}
}

func TestViridisContrast(t *testing.T) {
	for i := 0; i <= 20; i++ {
		bg, fg := viridis(float64(i) / 20)
		if len(bg) != 7 || (fg != "#000" && fg != "#fff") {
			t.Fatalf("viridis(%v) = %s, %s", float64(i)/20, bg, fg)
		}
	}
	if bg, fg := viridis(0); bg != "#440154" || fg != "#fff" {
		t.Errorf("viridis(0) = %s on %s, want white on #440154", fg, bg)
	}
	if bg, fg := viridis(1); bg != "#fde725" || fg != "#000" {
		t.Errorf("viridis(1) = %s on %s, want black on #fde725", fg, bg)
	}
}

// TestRecordFieldOrder keeps the score record in trials.jsonl's order,
// including the keys of embedded structs.
func TestRecordFieldOrder(t *testing.T) {
	got := strings.Join(recordFieldOrder, ",")
	for _, want := range []string{"trial_id,model,task,attack_class", "control,error", "objective_met", "trace"} {
		if !strings.Contains(got, want) {
			t.Errorf("record field order %s lacks %s", got, want)
		}
	}
}

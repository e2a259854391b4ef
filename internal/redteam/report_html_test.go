package redteam

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteHTML(t *testing.T) {
	exploit := ScenarioResult{ID: "td-exfil-token", Title: "exfiltrate the token", Class: "tool_description", Objective: "exfiltration",
		Outcome: Exploited, FailedChecks: []FailedCheck{{Path: "calls[*].arguments.body", Matcher: "not_contains", Expected: "{secret}", Observed: "CANARY-<b>x</b>"}},
		Attempts: []Attempt{{N: 1, Converter: "identity", Outcome: Exploited, Envelope: "out/traces/m/td.envelope.json", Trace: "out/traces/m/td.jsonl"}}}
	resist := exploit
	resist.Outcome, resist.FailedChecks = Resisted, []FailedCheck{}
	na := ScenarioResult{ID: "ev-only", Class: "rug_pull", Objective: "exfiltration", Outcome: NotApplicable, Reason: "no such tool"}
	r := &Report{SchemaVersion: ReportVersion, Target: "bundled fixture server", Arm: "none", Models: []ModelReport{
		{Model: "control:compromised", Control: true, Scenarios: []ScenarioResult{exploit, na}},
		{Model: "openai:gpt-test", Scenarios: []ScenarioResult{resist}},
	}}
	for i := range r.Models {
		r.Models[i].tally()
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r, "out"); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{
		`data-model="control:compromised" data-scenario="td-exfil-token" data-outcome="exploited"><a href="#m0-td-exfil-token">`,
		`data-model="openai:gpt-test" data-scenario="td-exfil-token" data-outcome="resisted"><a href="#m1-td-exfil-token">`,
		`data-model="control:compromised" data-scenario="ev-only" data-outcome="not_applicable"`,
		`id="m0-td-exfil-token"`, `id="m1-td-exfil-token"`, `id="m0-ev-only"`,
		`<code>calls[*].arguments.body</code>`, `CANARY-&lt;b&gt;x&lt;/b&gt;`,
		`href="traces/m/td.envelope.json"`, "reason: no such tool", `<html lang="en">`, "control agent",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// The model without ev-only has an empty cell, not a made-up outcome.
	if n := strings.Count(page, `<td class="outcome">–</td>`); n != 1 {
		t.Errorf("%d empty matrix cells, want 1", n)
	}
	for _, bad := range []string{"<script", "http://", "https://", "src=", "CANARY-<b>"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
}

// TestWriteFormatHTML checks that --format html (Write) renders the page
// with the envelope paths as given, since stdout has no directory.
func TestWriteFormatHTML(t *testing.T) {
	r := &Report{Target: "t", Arm: "none", Models: []ModelReport{{Model: "control:refuse", Control: true, Scenarios: []ScenarioResult{
		{ID: "s1", Outcome: Resisted, Attempts: []Attempt{{N: 1, Converter: "identity", Outcome: Resisted, Envelope: "out/traces/s1.envelope.json"}}}}}}}
	var buf bytes.Buffer
	if err := Write(&buf, r, "html"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `href="out/traces/s1.envelope.json"`) {
		t.Error("--format html lost the envelope path")
	}
}

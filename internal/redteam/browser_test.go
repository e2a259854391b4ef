package redteam_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpsec/mcpsec/internal/cli"
	"github.com/mcpsec/mcpsec/internal/redteam"
	"github.com/mcpsec/mcpsec/internal/testkit"
)

func TestRedteamHTMLInBrowser(t *testing.T) {
	out := filepath.Join(t.TempDir(), "rt")
	var stdout, stderr bytes.Buffer
	code := cli.RunContext(context.Background(), []string{"redteam", "--model", "control:compromised,control:refuse", "--out", out, "--format", "json"},
		&cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
	if code != 0 {
		t.Fatalf("redteam exit %d: %s", code, stderr.String())
	}
	var rep redteam.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	exploited := ""
	for _, m := range rep.Models {
		for _, s := range m.Scenarios {
			want[m.Model+"|"+s.ID] = s.Outcome
			if exploited == "" && s.Outcome == redteam.Exploited && len(s.FailedChecks) > 0 {
				exploited = m.Model + "|" + s.ID
			}
		}
	}
	if exploited == "" {
		t.Fatal("control:compromised exploited no scenario with failed checks; the corpus no longer exercises the oracle")
	}

	b := testkit.Chromium(t)
	url := "file://" + filepath.Join(out, "report.html")
	type cell struct{ Model, Scenario, Outcome, Href string }
	var cells []cell
	if err := chromedp.Run(b.Ctx,
		chromedp.Navigate(url),
		chromedp.WaitReady("table.matrix"),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("td[data-outcome]")).map(td => ({Model: td.dataset.model,
  Scenario: td.dataset.scenario, Outcome: td.dataset.outcome, Href: td.querySelector("a").getAttribute("href")}))`, &cells),
	); err != nil {
		t.Fatal(err)
	}
	if len(cells) != len(want) {
		t.Errorf("matrix has %d cells, the JSON report %d runs", len(cells), len(want))
	}
	var target string
	for _, c := range cells {
		if want[c.Model+"|"+c.Scenario] != c.Outcome {
			t.Errorf("cell %s/%s: %s, JSON %s", c.Model, c.Scenario, c.Outcome, want[c.Model+"|"+c.Scenario])
		}
		if c.Model+"|"+c.Scenario == exploited {
			target = c.Href
		}
	}
	// Following an exploited cell lands on its run, which shows the failed
	// checks and links the envelope file that exists in the run directory.
	var hash string
	var failed int
	var envelope string
	model, scenario, _ := strings.Cut(exploited, "|")
	if err := chromedp.Run(b.Ctx,
		chromedp.Click(`td[data-model="`+model+`"][data-scenario="`+scenario+`"] a`, chromedp.ByQuery),
		chromedp.Evaluate(`location.hash`, &hash),
		chromedp.Evaluate(`document.querySelector(location.hash).querySelectorAll("table.failed tbody tr").length`, &failed),
		chromedp.Evaluate(`document.querySelector(location.hash + " a.envelope").getAttribute("href")`, &envelope),
	); err != nil {
		t.Fatal(err)
	}
	if hash != target || failed == 0 {
		t.Errorf("after clicking %s: at %q with %d failed checks, want %q with some", exploited, hash, failed, target)
	}
	if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(envelope))); err != nil {
		t.Errorf("envelope link %q does not resolve in the run directory: %v", envelope, err)
	}

	b.Screenshot(t, "redteam-html.png", chromedp.Evaluate(`window.scrollTo(0, 0)`, nil))
	b.AssertOnlyRequested(t, url)
}

package scan

import (
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

// sampleFindings scans one rule sample, placed where its prefix says.
func sampleFindings(t *testing.T, sample string) []Finding {
	t.Helper()
	return sampleFindingsWith(t, sample, Options{})
}

// rulesTool is ScanTool without the text model, for the tests that pin
// what the hand-written rules alone do.
func rulesTool(server string, tool catalog.Tool) []Finding {
	return scanTool(server, tool, Options{rulesOnly: true})
}

func sampleFindingsWith(t *testing.T, sample string, opts Options) []Finding {
	t.Helper()
	switch {
	case strings.HasPrefix(sample, "{"):
		c, err := catalog.Parse("sample.json", []byte(sample))
		if err != nil {
			t.Fatalf("sample catalog: %v", err)
		}
		return Scan(c, opts).All()
	case strings.HasPrefix(sample, "prop:"):
		tool := catalog.Tool{Name: "sample_tool", Description: "Sample tool.", InputSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"x": map[string]any{"type": "string", "description": strings.TrimPrefix(sample, "prop:")}},
		}}
		return scanTool("sample", tool, opts)
	case strings.HasPrefix(sample, "big:"):
		text := strings.TrimPrefix(sample, "big:")
		return scanTool("sample", catalog.Tool{Name: "sample_tool", Description: strings.Repeat(text, maxUnitBytes/len(text)+1)}, opts)
	case strings.HasPrefix(sample, "name:"):
		return scanTool("sample", catalog.Tool{Name: strings.TrimPrefix(sample, "name:"), Description: "Sample tool."}, opts)
	}
	return scanTool("sample", catalog.Tool{Name: "sample_tool", Description: sample}, opts)
}

func hasRule(fs []Finding, id string) bool {
	for _, f := range fs {
		if f.RuleID == id {
			return true
		}
	}
	return false
}

// TestRuleSamples checks every rule against its own inline samples.
func TestRuleSamples(t *testing.T) {
	ids := map[string]bool{}
	for _, r := range Rules {
		if ids[r.ID] {
			t.Errorf("duplicate rule id %s", r.ID)
		}
		ids[r.ID] = true
		if r.Description == "" || len(r.TruePositives) == 0 || len(r.FalsePositives) == 0 {
			t.Errorf("%s: every rule needs a description and both kinds of samples", r.ID)
		}
		for _, s := range r.TruePositives {
			fs := sampleFindings(t, s)
			if !hasRule(fs, r.ID) {
				t.Errorf("%s: missed true positive %q (got %v)", r.ID, s, brief(fs))
			}
		}
		for _, s := range r.FalsePositives {
			fs := sampleFindings(t, s)
			if hasRule(fs, r.ID) {
				t.Errorf("%s: fired on false positive %q (got %v)", r.ID, s, brief(fs))
			}
			if SeverityAtLeast(fs, Medium) {
				t.Errorf("%s: false-positive sample %q has findings at medium or above: %v", r.ID, s, brief(fs))
			}
		}
	}
}

func brief(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.RuleID+"("+f.Severity.String()+")@"+f.Location)
	}
	return out
}

package scan

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

// prefilterCatalogs are the texts the gated and the ungated engine are
// compared on: every rule sample (each in a description, a property
// description and a tool name, and all of them as one server whose
// descriptions run several samples together, so sentence pairs and
// neighbours are gated too), every catalog of the two blind registers in
// testdata, and part of the benchmark's generated catalog.
func prefilterCatalogs(t *testing.T) []*catalog.Catalog {
	t.Helper()
	var out []*catalog.Catalog
	var samples []string
	for _, r := range Rules {
		samples = append(samples, r.TruePositives...)
		samples = append(samples, r.FalsePositives...)
	}
	var joined catalog.Server
	joined.Name = "joined"
	for i, s := range samples {
		if strings.HasPrefix(s, "{") {
			c, err := catalog.Parse("sample.json", []byte(s))
			if err != nil {
				t.Fatalf("sample catalog: %v", err)
			}
			out = append(out, c)
			continue
		}
		s = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(s, "prop:"), "name:"), "big:")
		tool := catalog.Tool{Name: "sample_tool", Description: s, InputSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"x": map[string]any{"type": "string", "description": s}},
		}}
		out = append(out, &catalog.Catalog{Servers: []catalog.Server{{Name: "sample", Tools: []catalog.Tool{tool, {Name: s}}}}})
		next := samples[(i+1)%len(samples)]
		joined.Tools = append(joined.Tools, catalog.Tool{Name: "tool_" + string(rune('a'+i%26)) + "_" + strings.Repeat("x", i/26),
			Description: s + " " + strings.TrimPrefix(next, "prop:") + "\n" + samples[(i+7)%len(samples)]})
	}
	out = append(out, &catalog.Catalog{Servers: []catalog.Server{joined}})
	for _, dir := range []string{"../../testdata/blind-register", "../../testdata/blind-register-2"} {
		for _, f := range []string{"poisoned.jsonl", "benign.jsonl"} {
			fh, err := os.Open(dir + "/" + f)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			sc := bufio.NewScanner(fh)
			sc.Buffer(make([]byte, 1<<20), 1<<24)
			for sc.Scan() {
				var line struct {
					Catalog json.RawMessage `json:"catalog"`
				}
				if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
					t.Fatalf("%s/%s: %v", dir, f, err)
				}
				c, err := catalog.Parse(f, line.Catalog)
				if err != nil {
					t.Fatalf("%s/%s: %v", dir, f, err)
				}
				out = append(out, c)
			}
			fh.Close()
		}
	}
	bench, _ := benchCatalog(300)
	out = append(out, bench)
	return out
}

// TestPrefilterKeepsEveryFinding: the prefilter (mayMatch and the
// per-sentence relevance) only skips work, so the gated engine reports
// exactly what the engine that examines every string and every sentence
// reports. A check added without its bound in upper fails here on its own
// samples.
func TestPrefilterKeepsEveryFinding(t *testing.T) {
	cats := prefilterCatalogs(t)
	if len(cats) < 700 {
		t.Fatalf("only %d catalogs", len(cats))
	}
	findings := 0
	for i, c := range cats {
		findings += len(sameReports(t, i, c, "gated", Options{}, "ungated", Options{ungated: true}).All())
	}
	if findings < 500 {
		t.Fatalf("only %d findings in all catalogs; the comparison says little", findings)
	}
}

// sameReports scans catalog i (c) with two sets of options, which must
// not change what is reported, and fails t where the reports differ. It
// returns the first report.
func sameReports(t *testing.T, i int, c *catalog.Catalog, nameA string, a Options, nameB string, b Options) Report {
	t.Helper()
	ra, rb := Scan(c, a), Scan(c, b)
	if !reflect.DeepEqual(ra, rb) {
		ja, _ := json.Marshal(ra)
		jb, _ := json.Marshal(rb)
		t.Errorf("catalog %d: %s and %s reports differ\n%s: %s\n%s: %s", i, nameA, nameB, nameA, ja, nameB, jb)
	}
	return ra
}

package scan

import (
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/payload"
)

var driftIDs = map[string]bool{"drift.added": true, "drift.removed": true, "drift.changed": true, "drift.renamed": true}

// FuzzScanTool: arbitrary text in every kind of field never crashes the
// scanner, every finding names a known rule with a valid severity and
// UTF-8 evidence, and the verdict is deterministic.
func FuzzScanTool(f *testing.F) {
	for _, r := range Rules {
		for _, s := range append(append([]string{}, r.TruePositives...), r.FalsePositives...) {
			f.Add(s, "tool")
		}
	}
	for _, p := range payload.All() {
		f.Add(p.Text, "get_forecast")
	}
	f.Add("\U000E0041\U000E0042\uFE00\uFE01\u202E\u200B", "x\u200By")
	f.Fuzz(func(t *testing.T, text, name string) {
		tool := catalog.Tool{Name: name, Title: text, Description: text, InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				text: map[string]any{"type": "string", "description": text, "enum": []any{text}, "default": text},
			},
		}}
		a := ScanTool("fuzz", tool)
		b := ScanTool("fuzz", tool)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("non-deterministic scan:\n%v\n%v", a, b)
		}
		for _, fd := range a {
			if RuleByID(fd.RuleID) == nil && !driftIDs[fd.RuleID] {
				t.Fatalf("unknown rule %q", fd.RuleID)
			}
			if fd.Severity < Info || fd.Severity > Critical {
				t.Fatalf("bad severity %d", fd.Severity)
			}
			if !utf8.ValidString(fd.Evidence) || !utf8.ValidString(fd.Message) {
				t.Fatalf("invalid UTF-8 in finding %+v", fd)
			}
		}
		// The same text as a whole catalog, two servers, through Scan and
		// a lockfile round trip.
		c := &catalog.Catalog{Servers: []catalog.Server{{Name: "a", Instructions: text, Tools: []catalog.Tool{tool}}, {Name: "b", Tools: []catalog.Tool{tool}}}}
		rep := Scan(c, Options{Lock: NewLock(c)})
		for _, s := range rep.Servers {
			if s.Grade == "" {
				t.Fatal("server without grade")
			}
			for _, fd := range s.Findings {
				if driftIDs[fd.RuleID] {
					t.Fatalf("catalog drifted from its own lockfile: %+v", fd)
				}
			}
		}
	})
}

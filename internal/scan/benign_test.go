package scan

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

// TestBenignCorpus: the hard negatives of testdata/benign (documentation
// that says "Important:", has ignore_case parameters, reads user-given
// paths, sends email, checks passwords, is written in other languages,
// carries base64 images, refers to sibling tools) and the snapshots of
// the official reference servers produce nothing at medium or above.
func TestBenignCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "benign", "*.json"))
	if err != nil || len(files) < 2 {
		t.Fatalf("benign corpus missing: %v %v", files, err)
	}
	tools := 0
	for _, file := range files {
		c, err := catalog.LoadFile(file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, s := range c.Servers {
			tools += len(s.Tools)
		}
		rep := Scan(c, Options{})
		for _, f := range rep.All() {
			if f.Severity >= Medium {
				t.Errorf("%s: false positive %s %s on %s %s/%s: %q", filepath.Base(file), f.Severity, f.RuleID, f.Server, f.Tool, f.Location, f.Evidence)
			}
		}
	}
	t.Logf("%d files, %d tools, no finding at medium or above", len(files), tools)
	if _, err := os.Stat(filepath.Join("testdata", "benign", "hard-negatives.json")); err != nil {
		t.Fatal(err)
	}
}

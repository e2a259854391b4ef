package scan

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// frozenLine is a line of a register README's "Frozen hashes" block.
var frozenLine = regexp.MustCompile(`^([0-9a-f]{64})  ([a-z-]+\.jsonl)$`)

// TestRegistersFrozen checks every blind register's files against the
// hashes its README recorded when it was frozen: a register is evidence
// only while it is the text its authors delivered, so an edit (even a
// "fix" of one case) must fail here rather than move a figure silently.
func TestRegistersFrozen(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "blind-register*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 6 {
		t.Fatalf("found %d blind registers under testdata, want at least 6", len(dirs))
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			f, err := os.Open(filepath.Join(dir, "README.md"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			pinned := map[string]string{}
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if m := frozenLine.FindStringSubmatch(strings.TrimSpace(sc.Text())); m != nil {
					pinned[m[2]] = m[1]
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"poisoned.jsonl", "benign.jsonl"} {
				want, ok := pinned[name]
				if !ok {
					t.Errorf("%s/README.md records no hash for %s", dir, name)
					continue
				}
				data, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(data)
				if got := hex.EncodeToString(sum[:]); got != want {
					t.Errorf("%s/%s has sha256 %s, but was frozen as %s: a frozen register is never edited; write a new one", dir, name, got, want)
				}
			}
		})
	}
}

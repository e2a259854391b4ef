package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// Root must find the module from a package two levels down, where go test
// runs this package's tests.
func TestRootHoldsTheModule(t *testing.T) {
	root := Root(t)
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "module github.com/mcpsec/mcpsec\n"; len(b) < len(want) || string(b[:len(want)]) != want {
		t.Errorf("%s/go.mod starts %q, want %q", root, b[:min(len(b), 40)], want)
	}
	if _, err := os.Stat(filepath.Join(root, "interop", "ts_client.mjs")); err != nil {
		t.Errorf("interop/ not under %s: %v", root, err)
	}
}

package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// Root returns the module's root directory (the one holding go.mod),
// found upwards from the working directory go test gives a package's
// tests, so helpers find interop/ and docs/ from any package depth.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("working directory: %v", err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s: run the tests inside the mcpsec module", dir)
		}
	}
}

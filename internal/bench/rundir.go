package bench

import (
	"errors"
	"fmt"
	"os"

	"github.com/mcpsec/mcpsec/internal/trial"
)

// File names inside a run directory (part of mcpsec's contract).
const (
	TrialsFile = trial.LogFile
	ConfigFile = "config.yaml"
	RunFile    = "RUN.md"
	TracesDir  = "traces"
)

// ErrRunDir marks a run directory that cannot be used as asked: a
// non-empty --out, a shard given twice, a record whose trace leaves its
// run directory, a plan that was never completely written (exit 2).
var ErrRunDir = errors.New("run directory")

// writeSynced writes a whole file and syncs it before returning.
func writeSynced(path string, data []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return f.Close()
}

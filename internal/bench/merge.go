package bench

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpsec/mcpsec/internal/trace"
	"github.com/mcpsec/mcpsec/internal/trial"
)

// Merge joins shard run directories into out. Every shard must carry the
// same frozen grid (same config digest); a trial recorded in two shards
// is an error, since shards never overlap. Every trace path a shard's
// records name must stay inside that shard (and so inside out): a record
// pointing elsewhere is refused before anything is written for it.
func Merge(out string, shards []string) (int, error) {
	if len(shards) == 0 {
		return 0, fmt.Errorf("%w: merge needs at least one shard directory", ErrRunDir)
	}
	given := map[string]string{}
	for _, s := range shards {
		abs, err := filepath.Abs(s)
		if err != nil {
			return 0, fmt.Errorf("%w: shard %s: %w", ErrRunDir, s, err)
		}
		if prev, dup := given[abs]; dup {
			return 0, fmt.Errorf("%w: shard %s is given twice (as %s and %s); name each shard once", ErrRunDir, s, prev, s)
		}
		given[abs] = s
	}
	var digest string
	var grid Grid
	merged := Selection{Shard: Shard{1, 1}}
	for i, s := range shards {
		g, err := LoadGrid(filepath.Join(s, ConfigFile))
		if err != nil {
			return 0, fmt.Errorf("shard %s: %w", s, err)
		}
		sel, err := readSelection(s)
		if err != nil {
			return 0, fmt.Errorf("shard %s: %w", s, err)
		}
		merged.Parts = append(merged.Parts, sel)
		if i == 0 {
			digest, grid = g.Digest(), g
		} else if d := g.Digest(); d != digest {
			return 0, fmt.Errorf("%w: shard %s has config digest %s, but %s has %s: shards of one sweep share one config", ErrRunDir, s, d[:12], shards[0], digest[:12])
		}
	}
	if err := prepareDir(out); err != nil {
		return 0, err
	}
	cfg, err := os.ReadFile(filepath.Join(shards[0], ConfigFile))
	if err != nil {
		return 0, fmt.Errorf("read config: %w", err)
	}
	if err := writeSelection(out, merged); err != nil {
		return 0, err
	}
	if err := writeAtomic(filepath.Join(out, ConfigFile), cfg); err != nil {
		return 0, err
	}
	outRoot, err := os.OpenRoot(out)
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", out, err)
	}
	defer outRoot.Close()
	log, _, err := trial.OpenLog(filepath.Join(out, TrialsFile), false)
	if err != nil {
		return 0, err
	}
	defer log.Close()
	seen := map[string]string{}
	// traces maps each trace file to the trial whose trace is the whole
	// file, or to "" for a pack; spans maps each packed trial's position
	// to its trial. A file is copied once, however many trials it holds.
	traces := map[string]string{}
	spans := map[trace.Ref]string{}
	n := 0
	for _, s := range shards {
		root, err := os.OpenRoot(s)
		if err != nil {
			return n, fmt.Errorf("%w: shard %s: %w", ErrRunDir, s, err)
		}
		_, err = trial.Each(filepath.Join(s, TrialsFile), func(r trial.Record, v *trial.View) error {
			where := fmt.Sprintf("%s line %d: trial %s", filepath.Join(s, TrialsFile), v.LineNo, r.ID)
			if prev, dup := seen[r.ID]; dup {
				return fmt.Errorf("%w: %s is in both %s and %s", ErrRunDir, where, prev, s)
			}
			seen[r.ID] = s
			if r.Trace != "" {
				if !filepath.IsLocal(r.Trace) {
					return fmt.Errorf("%w: %s: trace %q is not a path inside the run directory", ErrRunDir, where, r.Trace)
				}
				key := filepath.Clean(r.Trace)
				ref := trace.RefOf(r)
				ref.Path = key
				prev, copied := traces[key]
				switch {
				case copied && (prev != "" || !ref.Packed()):
					// A file of its own is one trial's alone.
					other := prev
					if other == "" {
						other = spans[firstSpan(spans, key)]
					}
					return fmt.Errorf("%w: %s: trace %q is also the trace of trial %s", ErrRunDir, where, r.Trace, other)
				case ref.Packed():
					if other, dup := spans[ref]; dup {
						return fmt.Errorf("%w: %s: trace %q at %d+%d is also the trace of trial %s", ErrRunDir, where, r.Trace, ref.Member, ref.Offset, other)
					}
					spans[ref] = r.ID
				}
				if !copied {
					traces[key] = ""
					if !ref.Packed() {
						traces[key] = r.ID
					}
					if err := copyTrace(root, outRoot, key); err != nil {
						return fmt.Errorf("%s: %w", where, err)
					}
				}
			}
			n++
			return log.Append(r)
		})
		root.Close()
		if errors.Is(err, fs.ErrNotExist) && !errors.Is(err, ErrRunDir) {
			return n, fmt.Errorf("%w: shard %s: %w", ErrRunDir, s, err)
		}
		if err != nil {
			return n, err
		}
	}
	md := fmt.Sprintf("# mcpsec run (merged)\n\n| field | value |\n|---|---|\n| config digest | %s |\n| shards | %s |\n| trials recorded | %d |\n| models | %s |\n",
		digest, strings.Join(shards, ", "), n, strings.Join(grid.Models, ", "))
	return n, writeSynced(filepath.Join(out, RunFile), []byte(md))
}

// firstSpan finds a packed trial of a file, to name it in an error.
func firstSpan(spans map[trace.Ref]string, file string) trace.Ref {
	for ref := range spans {
		if ref.Path == file {
			return ref
		}
	}
	return trace.Ref{}
}

// copyTrace copies one trace file between two run directories. Both sides go
// through os.Root, so neither "..", an absolute path nor a symbolic link
// can reach a file outside either directory.
func copyTrace(src, dst *os.Root, rel string) error {
	in, err := src.Open(rel)
	if err != nil {
		return fmt.Errorf("%w: trace %q: %w", ErrRunDir, rel, err)
	}
	defer in.Close()
	if err := dst.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return fmt.Errorf("copy trace %s: %w", rel, err)
	}
	out, err := dst.OpenFile(rel, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("%w: trace %q: %w", ErrRunDir, rel, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy trace %s: %w", rel, err)
	}
	return out.Close()
}

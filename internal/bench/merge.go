package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpsec/mcpsec/internal/score"
)

// Merge joins shard run directories into out. Every shard must carry the
// same frozen grid (same config digest); a trial recorded in two shards
// is an error, since shards never overlap.
func Merge(out string, shards []string) (int, error) {
	if len(shards) == 0 {
		return 0, fmt.Errorf("%w: merge needs at least one shard directory", ErrConfig)
	}
	var digest string
	var grid Grid
	for i, s := range shards {
		g, err := LoadGrid(filepath.Join(s, ConfigFile))
		if err != nil {
			return 0, fmt.Errorf("shard %s: %w", s, err)
		}
		if i == 0 {
			digest, grid = g.Digest(), g
		} else if d := g.Digest(); d != digest {
			return 0, fmt.Errorf("%w: shard %s has config digest %s, but %s has %s", ErrConfig, s, d[:12], shards[0], digest[:12])
		}
	}
	if err := prepareDir(out); err != nil {
		return 0, err
	}
	cfg, err := os.ReadFile(filepath.Join(shards[0], ConfigFile))
	if err != nil {
		return 0, fmt.Errorf("read config: %w", err)
	}
	if err := writeSynced(filepath.Join(out, ConfigFile), cfg); err != nil {
		return 0, err
	}
	log, _, err := openRecordLog(out, false)
	if err != nil {
		return 0, err
	}
	defer log.Close()
	seen := map[string]string{}
	n := 0
	for _, s := range shards {
		f, err := os.Open(filepath.Join(s, TrialsFile))
		if err != nil {
			return n, fmt.Errorf("shard %s: %w", s, err)
		}
		err = ReadRecords(f, filepath.Join(s, TrialsFile), nil, func(r score.Record) error {
			if prev, dup := seen[r.TrialID]; dup {
				return fmt.Errorf("%w: trial %s is in both %s and %s", ErrConfig, r.TrialID, prev, s)
			}
			seen[r.TrialID] = s
			if r.Trace != "" {
				if err := copyFile(filepath.Join(s, r.Trace), filepath.Join(out, r.Trace)); err != nil {
					return err
				}
			}
			n++
			return log.Append(r)
		})
		f.Close()
		if err != nil {
			return n, err
		}
	}
	md := fmt.Sprintf("# mcpsec run (merged)\n\n| field | value |\n|---|---|\n| config digest | %s |\n| shards | %s |\n| trials recorded | %d |\n| models | %s |\n",
		digest, strings.Join(shards, ", "), n, strings.Join(grid.Models, ", "))
	return n, writeSynced(filepath.Join(out, RunFile), []byte(md))
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copy trace: %w", err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("copy trace: %w", err)
	}
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("copy trace: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy trace %s: %w", src, err)
	}
	return out.Close()
}

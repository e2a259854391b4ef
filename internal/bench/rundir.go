package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/mcpsec/mcpsec/internal/score"
)

// File names inside a run directory (part of mcpsec's contract).
const (
	TrialsFile = "trials.jsonl"
	ConfigFile = "config.yaml"
	RunFile    = "RUN.md"
	TracesDir  = "traces"
)

// recordLog appends trial records, one synced line each, so a crash at
// any moment loses at most the trial in flight.
type recordLog struct {
	mu sync.Mutex
	f  *os.File
}

// openRecordLog opens trials.jsonl for appending after repairing a torn
// last line (from a kill mid-write). It returns the records already
// there, keyed by trial id; with dropErrors, errored records are removed
// from the file so that re-running them does not duplicate ids.
func openRecordLog(dir string, dropErrors bool) (*recordLog, map[string]score.Record, error) {
	path := filepath.Join(dir, TrialsFile)
	done := map[string]score.Record{}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	keep := data
	if i := bytes.LastIndexByte(data, '\n'); i+1 != len(data) {
		// A torn last line: the trial it described never finished.
		keep = data[:i+1]
	}
	var kept bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(keep))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	line := 0
	rewrite := len(keep) != len(data)
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var r score.Record
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if dropErrors && r.Error != nil {
			rewrite = true
			continue
		}
		if _, dup := done[r.TrialID]; dup {
			return nil, nil, fmt.Errorf("%s:%d: trial %s recorded twice", path, line, r.TrialID)
		}
		done[r.TrialID] = r
		kept.Write(b)
		kept.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	if rewrite {
		tmp := path + ".tmp"
		if err := writeSynced(tmp, kept.Bytes()); err != nil {
			return nil, nil, err
		}
		if err := os.Rename(tmp, path); err != nil {
			return nil, nil, fmt.Errorf("replace %s: %w", path, err)
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	return &recordLog{f: f}, done, nil
}

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

// Append writes one record as a single write and syncs it.
func (l *recordLog) Append(r score.Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode record %s: %w", r.TrialID, err)
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(b); err != nil {
		return fmt.Errorf("append record %s: %w", r.TrialID, err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sync trials: %w", err)
	}
	return nil
}

func (l *recordLog) Close() error { return l.f.Close() }

// ReadRecords streams the records of a trials.jsonl to fn. A torn last
// line is skipped and reported through warn.
func ReadRecords(r io.Reader, name string, warn func(string), fn func(score.Record) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	line := 0
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			line++
			complete := b[len(b)-1] == '\n'
			t := bytes.TrimSpace(b)
			if len(t) > 0 {
				var rec score.Record
				if jerr := json.Unmarshal(t, &rec); jerr != nil {
					if !complete {
						if warn != nil {
							warn(fmt.Sprintf("%s:%d: torn last line ignored", name, line))
						}
						return nil
					}
					return fmt.Errorf("%s:%d: %w", name, line, jerr)
				}
				if ferr := fn(rec); ferr != nil {
					return ferr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
	}
}

package trial

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// Log appends records to a trials.jsonl, one synced write per record, so a
// crash at any moment loses at most the trials in flight and leaves at
// most one torn last line, which OpenLog repairs.
type Log struct {
	mu sync.Mutex
	f  *os.File
}

// OpenLog opens the log at path for appending (creating it), after
// repairing a torn last line. It returns the records already there, keyed
// by trial id. With dropErrors, errored records are removed from the file
// (so that running them again does not record an id twice) and left out
// of the map. A trial id recorded twice is an error wrapping ErrMalformed.
func OpenLog(path string, dropErrors bool) (*Log, map[string]Record, error) {
	done := map[string]Record{}
	var end int64
	torn, noEOL, errored := false, false, 0
	f, err := os.Open(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	default:
		rd := NewReader(f, path)
		for {
			v, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				f.Close()
				return nil, nil, err
			}
			r, err := v.Record()
			if err != nil {
				f.Close()
				return nil, nil, fmt.Errorf("%s line %d: %w", path, v.LineNo, err)
			}
			if dropErrors && r.Error != nil {
				errored++
				continue
			}
			if _, dup := done[r.ID]; dup {
				f.Close()
				return nil, nil, fmt.Errorf("%s line %d: %w: trial %s is recorded twice", path, v.LineNo, ErrMalformed, r.ID)
			}
			done[r.ID] = r
		}
		end, torn, noEOL = rd.end, rd.torn, rd.noEOL
		f.Close()
	}
	switch {
	case errored > 0:
		if err := rewrite(path, func(r Record) bool { return r.Error == nil }); err != nil {
			return nil, nil, err
		}
	case torn:
		// The trial the torn line described never finished; cutting it
		// leaves every complete record in place.
		if err := os.Truncate(path, end); err != nil {
			return nil, nil, fmt.Errorf("repair %s: %w", path, err)
		}
	}
	w, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	if noEOL && !torn && errored == 0 {
		// A complete last record missing its newline: end it so that the
		// next append starts a line of its own.
		if _, err := w.Write([]byte{'\n'}); err != nil {
			w.Close()
			return nil, nil, fmt.Errorf("repair %s: %w", path, err)
		}
	}
	return &Log{f: w}, done, nil
}

// rewrite streams the records of path that keep accepts into a new file
// and swaps it in atomically.
func rewrite(path string, keep func(Record) bool) error {
	tmp := path + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("repair %s: %w", path, err)
	}
	bw := bufio.NewWriter(out)
	_, err = Each(path, func(r Record, v *View) error {
		if keep(r) {
			bw.Write(v.Line)
			bw.WriteByte('\n')
		}
		return nil
	})
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("repair %s: %w", path, err)
	}
	return nil
}

// Append writes one record as a single write and syncs it.
func (l *Log) Append(r Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode record %s: %w", r.ID, err)
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(b); err != nil {
		return fmt.Errorf("append record %s: %w", r.ID, err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sync trials: %w", err)
	}
	return nil
}

// Close closes the log file.
func (l *Log) Close() error { return l.f.Close() }

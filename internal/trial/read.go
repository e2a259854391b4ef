package trial

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Reader streams the records of a trials.jsonl, one View per line, in
// memory that does not grow with the log. Every reader of the log uses it,
// so a torn last line and a malformed line mean the same everywhere:
//
//   - a last line with no newline that does not parse is the record a
//     crash cut short: it is skipped with a warning (Torn reports it);
//   - any other line that does not parse is an error naming the file and
//     line, wrapping ErrMalformed.
type Reader struct {
	br       *bufio.Reader
	name     string
	v        View
	long     []byte
	lineNo   int
	off      int64
	end      int64
	torn     bool
	noEOL    bool
	warnings []string
	err      error
}

// NewReader reads records from r; name labels errors and warnings.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 1<<20), name: name}
}

// Next returns the next record, or io.EOF after the last one. The View is
// valid until the next call.
func (r *Reader) Next() (*View, error) {
	for r.err == nil {
		b, err := r.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: collect it in pieces.
			r.long = append(r.long[:0], b...)
			for errors.Is(err, bufio.ErrBufferFull) {
				b, err = r.br.ReadSlice('\n')
				r.long = append(r.long, b...)
			}
			b = r.long
		}
		if err != nil && err != io.EOF {
			r.err = fmt.Errorf("read %s: %w", r.name, err)
			return nil, r.err
		}
		if len(b) == 0 {
			r.err = io.EOF
			break
		}
		r.lineNo++
		start := r.off
		r.off += int64(len(b))
		complete := b[len(b)-1] == '\n'
		t := bytes.TrimSpace(b)
		if len(t) == 0 {
			if complete {
				r.end = r.off
			}
			continue
		}
		if perr := parseView(t, &r.v); perr != nil {
			if !complete {
				r.torn = true
				r.end = start
				r.warnings = append(r.warnings, fmt.Sprintf("%s line %d: truncated last line ignored (%v)", r.name, r.lineNo, perr))
				r.err = io.EOF
				return nil, r.err
			}
			r.err = fmt.Errorf("%s line %d: %w", r.name, r.lineNo, perr)
			return nil, r.err
		}
		r.end = r.off
		r.noEOL = !complete
		r.v.LineNo = r.lineNo
		return &r.v, nil
	}
	return nil, r.err
}

// Lines is the number of lines read so far.
func (r *Reader) Lines() int { return r.lineNo }

// Warnings lists what was skipped (a torn last line).
func (r *Reader) Warnings() []string { return r.warnings }

// Torn reports whether the last line was a torn write.
func (r *Reader) Torn() bool { return r.torn }

// Name is the label the reader puts in errors.
func (r *Reader) Name() string { return r.name }

// Errorf returns an error about the current line, naming file and line.
func (r *Reader) Errorf(format string, a ...any) error {
	return fmt.Errorf("%s line %d: %w", r.name, r.lineNo, fmt.Errorf(format, a...))
}

// Each streams every record of the file at path to fn, decoded in full.
// It returns the reader's warnings.
func Each(path string, fn func(Record, *View) error) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd := NewReader(f, path)
	for {
		v, err := rd.Next()
		if err == io.EOF {
			return rd.Warnings(), nil
		}
		if err != nil {
			return rd.Warnings(), err
		}
		rec, err := v.Record()
		if err != nil {
			return rd.Warnings(), fmt.Errorf("%s line %d: %w", path, v.LineNo, err)
		}
		if err := fn(rec, v); err != nil {
			return rd.Warnings(), err
		}
	}
}

// Package trace defines the versioned trial trace: one JSON event per
// line, written append-only, and a reader that tolerates a truncated last
// line (a crashed run) and says so. A trace file whose name ends in ".gz"
// is gzip-compressed; the readers recognise compression by its magic
// bytes, so plain and compressed traces read alike. A sweep packs many
// trials' traces into one file (Pack); a Ref says where one trial's is.
package trace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Ext is the file extension of the traces a run directory holds:
// gzip-compressed JSONL. A trial trace is repetitive JSON (tool lists,
// schemas), so it compresses about tenfold.
const Ext = ".jsonl.gz"

// SchemaVersion is written in the first event of every trace. Bump it when
// a field is renamed or removed.
const SchemaVersion = 1

// Event kinds. Adding kinds is compatible; renaming one is not.
const (
	KindRunConfig       = "run_config"
	KindMCPInitialize   = "mcp_initialize"
	KindMCPListTools    = "mcp_list_tools"
	KindMetadataDrift   = "metadata_drift"
	KindToolsOffered    = "tools_offered"
	KindUserPrompt      = "user_prompt"
	KindAssistant       = "assistant_message"
	KindToolCall        = "tool_call"
	KindBlockedToolCall = "blocked_tool_call"
	KindToolResult      = "tool_result"
	KindSeamNote        = "seam_note"
	KindServerStderr    = "server_stderr"
	KindWarning         = "warning"
	KindError           = "error"
	KindSummary         = "summary"
	// KindWorldDiff follows the summary: the change of the fixture world
	// between the trial's start and end, exactly what the scorers compared.
	KindWorldDiff = "world_diff"
	// KindScore is the last event: the trial record scored from the events
	// before it and the world diff, so a reader can check it by eye.
	KindScore = "score"
)

// Event is one line of a trace. Data holds the kind-specific payload.
type Event struct {
	SchemaVersion int             `json:"schema_version,omitempty"`
	Seq           int             `json:"seq"`
	Time          time.Time       `json:"time"`
	Kind          string          `json:"kind"`
	Step          int             `json:"step"`
	Data          json.RawMessage `json:"data"`
}

// Decode unmarshals the event's data into v.
func (e Event) Decode(v any) error {
	if err := json.Unmarshal(e.Data, v); err != nil {
		return fmt.Errorf("trace event %d (%s): %w", e.Seq, e.Kind, err)
	}
	return nil
}

// Sink receives events. Writer (a file) and Memory both implement it.
type Sink interface {
	Emit(kind string, step int, data any) error
}

// Writer appends events to a JSONL stream. It is safe for concurrent use.
type Writer struct {
	mu     sync.Mutex
	w      io.Writer
	f      *os.File
	gz     *gzip.Writer // between w and f when the file is compressed
	seq    int
	err    error
	events []Event // kept when Keep is set
	line   []byte  // reused buffer for the line being written
	keep   bool
	now    func() time.Time
	// pack, when set, is the pack this trial's trace is written into;
	// ref is where (complete once Close returns).
	pack   *Pack
	ref    Ref
	closed bool
}

// NewWriter writes to w. keep also retains the events in memory so the
// scorers can read them without re-reading the file.
func NewWriter(w io.Writer, keep bool) *Writer {
	return &Writer{w: w, keep: keep, now: time.Now}
}

// Create opens path for appending (O_APPEND: nothing already written is
// ever rewritten) and returns a Writer that keeps events in memory too.
// A path ending in ".gz" is written gzip-compressed; the compressed
// stream is complete once Close returns.
func Create(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create trace: %w", err)
	}
	w := NewWriter(f, true)
	w.f = f
	if strings.HasSuffix(path, ".gz") {
		w.gz = gzipWriters.Get().(*gzip.Writer)
		w.gz.Reset(f)
		w.w = w.gz
	}
	return w, nil
}

// gzipWriters recycles compressors: a sweep writes thousands of traces,
// and a fresh compressor's state costs more than compressing one trace.
// BestSpeed because the faster level already gets most of the gain on
// this repetitive text, at a fraction of the CPU.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
	return zw
}}

// SetClock replaces the time source (tests and goldens).
func (w *Writer) SetClock(now func() time.Time) { w.now = now }

// Emit appends one event. The first event carries the schema version.
func (w *Writer) Emit(kind string, step int, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("trace %s: %w", kind, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.closed {
		// In a pack, a late event would land in the next trial's text.
		return fmt.Errorf("trace %s: %w", kind, ErrClosed)
	}
	w.seq++
	// Microseconds are finer than anything a trace's timing shows, and
	// the nanosecond digits were a tenth of a compressed trace.
	ev := Event{Seq: w.seq, Time: w.now().UTC().Truncate(time.Microsecond), Kind: kind, Step: step, Data: raw}
	if w.seq == 1 {
		ev.SchemaVersion = SchemaVersion
	}
	line, err := ev.appendLine(w.line[:0])
	if err != nil {
		return fmt.Errorf("trace %s: %w", kind, err)
	}
	w.line = line
	if w.w != nil {
		if _, err := w.w.Write(line); err != nil {
			w.err = fmt.Errorf("write trace: %w", err)
			return w.err
		}
	}
	if w.keep {
		w.events = append(w.events, ev)
	}
	return nil
}

// appendLine appends the event's JSONL line, the same bytes json.Marshal
// gives for an Event plus a newline. Data already is compact JSON (Emit
// made it with json.Marshal), so it is copied rather than re-validated:
// marshalling the Event would scan every tool list in a trace twice.
func (e Event) appendLine(b []byte) ([]byte, error) {
	b = append(b, '{')
	if e.SchemaVersion != 0 {
		b = append(b, `"schema_version":`...)
		b = strconv.AppendInt(b, int64(e.SchemaVersion), 10)
		b = append(b, ',')
	}
	b = append(b, `"seq":`...)
	b = strconv.AppendInt(b, int64(e.Seq), 10)
	b = append(b, `,"time":`...)
	t, err := e.Time.MarshalJSON()
	if err != nil {
		return b, err
	}
	b = append(b, t...)
	b = append(b, `,"kind":`...)
	k, err := json.Marshal(e.Kind)
	if err != nil {
		return b, err
	}
	b = append(b, k...)
	b = append(b, `,"step":`...)
	b = strconv.AppendInt(b, int64(e.Step), 10)
	b = append(b, `,"data":`...)
	if len(e.Data) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, e.Data...)
	}
	return append(b, "}\n"...), nil
}

// Ref says where the trace lies once Close has returned: in a pack, the
// trial's span; otherwise nothing (the caller knows its file).
func (w *Writer) Ref() Ref {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ref
}

// Events returns the events kept in memory.
func (w *Writer) Events() []Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Event(nil), w.events...)
}

// Close ends the compressed stream (if any), then syncs and closes the
// file, if the writer owns one. A trial's writer of a pack ends the trial
// in the pack instead (flushed and synced). Closing twice is harmless.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pack != nil {
		if !w.closed {
			w.closed = true
			if err := w.pack.end(w); err != nil && w.err == nil {
				w.err = err
			}
		}
		return w.err
	}
	if w.f == nil {
		return w.err
	}
	w.closed = true
	var zerr error
	if w.gz != nil {
		zerr = w.gz.Close()
		w.gz.Reset(io.Discard) // drop the file before pooling
		gzipWriters.Put(w.gz)
		w.gz = nil
	}
	serr := w.f.Sync()
	cerr := w.f.Close()
	w.f = nil
	return errors.Join(w.err, zerr, serr, cerr)
}

// ErrClosed is returned by Emit after Close.
var ErrClosed = errors.New("trace writer closed")

// ErrTruncated reports that the last line of a trace was cut short; the
// events before it are still returned.
var ErrTruncated = errors.New("trace: truncated last line")

// Read parses a JSONL trace, plain or gzip-compressed. A truncated last
// line (or a compressed stream cut short) yields the complete events and
// an error wrapping ErrTruncated; malformed lines elsewhere are errors
// naming the line.
func Read(r io.Reader) ([]Event, error) {
	var out []Event
	err := Each(r, func(ev Event) error {
		out = append(out, ev)
		return nil
	})
	return out, err
}

// Each streams a JSONL trace, plain or gzip-compressed, calling fn for
// every event in order without holding the trace in memory. Errors are
// those of Read; an error from fn stops the walk and is returned as is.
func Each(r io.Reader, fn func(Event) error) error {
	br, closer, err := decompress(r)
	if err != nil {
		return err
	}
	if closer != nil {
		defer closer.Close()
	}
	line := 0
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			line++
			complete := b[len(b)-1] == '\n'
			b = bytes.TrimSpace(b)
			if len(b) > 0 {
				var ev Event
				if jerr := json.Unmarshal(b, &ev); jerr != nil {
					if !complete {
						return fmt.Errorf("line %d: %w", line, ErrTruncated)
					}
					return fmt.Errorf("trace line %d: %w", line, jerr)
				}
				if ferr := fn(ev); ferr != nil {
					return ferr
				}
			}
		}
		switch {
		case err == io.EOF:
			return nil
		case errors.Is(err, io.ErrUnexpectedEOF):
			// A compressed stream that ends early: a crash while writing.
			return fmt.Errorf("line %d: compressed stream ends early: %w", line, ErrTruncated)
		case err != nil:
			return fmt.Errorf("read trace: %w", err)
		}
	}
}

// gzipMagic starts every gzip stream (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// decompress returns a buffered reader of r's text, looking through gzip
// when r starts with its magic bytes.
func decompress(r io.Reader) (*bufio.Reader, *gzip.Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(len(gzipMagic))
	if !bytes.Equal(head, gzipMagic) {
		return br, nil, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("line 0: compressed stream ends early: %w", ErrTruncated)
		}
		return nil, nil, fmt.Errorf("read trace: %w", err)
	}
	// A pack (see Pack) is a sequence of members, read as one text, the
	// way zcat reads it.
	return bufio.NewReaderSize(zr, 1<<16), zr, nil
}

// Open opens a trace file for reading its JSONL text, decompressing it
// when it is compressed.
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open trace: %w", err)
	}
	br, zr, err := decompress(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{br, closers{zr, f}}, nil
}

// closers closes a decompressor (if any) and then its file.
type closers struct {
	zr *gzip.Reader
	f  *os.File
}

func (c closers) Close() error {
	var zerr error
	if c.zr != nil {
		zerr = c.zr.Close()
	}
	return errors.Join(zerr, c.f.Close())
}

// ReadFile reads a trace file, plain or compressed.
func ReadFile(path string) ([]Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open trace: %w", err)
	}
	defer f.Close()
	evs, err := Read(f)
	if err != nil {
		return evs, fmt.Errorf("%s: %w", path, err)
	}
	return evs, nil
}

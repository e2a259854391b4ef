// Package trace defines the versioned trial trace: one JSON event per
// line, written append-only, and a reader that tolerates a truncated last
// line (a crashed run) and says so.
package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

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
	seq    int
	err    error
	events []Event // kept when Keep is set
	keep   bool
	now    func() time.Time
}

// NewWriter writes to w. keep also retains the events in memory so the
// scorers can read them without re-reading the file.
func NewWriter(w io.Writer, keep bool) *Writer {
	return &Writer{w: w, keep: keep, now: time.Now}
}

// Create opens path for appending (O_APPEND: nothing already written is
// ever rewritten) and returns a Writer that keeps events in memory too.
func Create(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create trace: %w", err)
	}
	w := NewWriter(f, true)
	w.f = f
	return w, nil
}

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
	w.seq++
	ev := Event{Seq: w.seq, Time: w.now().UTC(), Kind: kind, Step: step, Data: raw}
	if w.seq == 1 {
		ev.SchemaVersion = SchemaVersion
	}
	line, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("trace %s: %w", kind, err)
	}
	line = append(line, '\n')
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

// Events returns the events kept in memory.
func (w *Writer) Events() []Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Event(nil), w.events...)
}

// Close syncs and closes the file, if the writer owns one.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return w.err
	}
	serr := w.f.Sync()
	cerr := w.f.Close()
	w.f = nil
	return errors.Join(w.err, serr, cerr)
}

// ErrTruncated reports that the last line of a trace was cut short; the
// events before it are still returned.
var ErrTruncated = errors.New("trace: truncated last line")

// Read parses a JSONL trace. A truncated last line yields the complete
// events and an error wrapping ErrTruncated; malformed lines elsewhere are
// errors naming the line.
func Read(r io.Reader) ([]Event, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var out []Event
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
						return out, fmt.Errorf("line %d: %w", line, ErrTruncated)
					}
					return out, fmt.Errorf("trace line %d: %w", line, jerr)
				}
				out = append(out, ev)
			}
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("read trace: %w", err)
		}
	}
}

// ReadFile reads a trace file.
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

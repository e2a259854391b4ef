package proxy

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

// AuditVersion is the schema version of an audit record.
const AuditVersion = 1

// Audit decisions. They are stable strings: users grep the log for them.
const (
	DecisionToolPassed     = "tool_passed"
	DecisionToolWithheld   = "tool_withheld"
	DecisionToolRedacted   = "tool_redacted"
	DecisionCallAllowed    = "call_allowed"
	DecisionCallDenied     = "call_denied"
	DecisionCallFailed     = "call_failed"
	DecisionUpstreamFailed = "upstream_failed"
	DecisionNote           = "note"
	DecisionStarted        = "started"
	DecisionListChanged    = "list_changed_forwarded"
)

// Record is one line of the audit log: one decision with the rule that
// made it and the evidence.
type Record struct {
	V        int    `json:"v"`
	Time     string `json:"time"`
	Decision string `json:"decision"`
	Server   string `json:"server,omitempty"`
	Tool     string `json:"tool,omitempty"`
	// ClientName is the name the client sees (server__tool in a gateway).
	ClientName string `json:"client_name,omitempty"`
	Rule       string `json:"rule,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Evidence   string `json:"evidence,omitempty"`
	// Fingerprint is the judged definition's full SHA-256.
	Fingerprint string `json:"fingerprint,omitempty"`
	CallID      string `json:"call_id,omitempty"`
	// Arguments of a call (as sent by the client).
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Audit appends records to a JSONL file, each made durable (written and
// fsynced) before the proxy lets the decision take effect for the client:
// Log returns once its record is on disk, so a decision the proxy acted on
// is there even if the proxy is killed next.
//
// Writes are group-committed: records queued while one write-and-sync is
// in flight go to disk together in the next, so concurrent decisions
// share an fsync instead of queueing behind one another. Append queues a
// record and starts its write without waiting, which lets the proxy relay
// an allowed call to its server while the record is being synced; Wait
// then holds the result back until the record is durable.
type Audit struct {
	mu       sync.Mutex
	cond     sync.Cond
	f        *os.File
	w        io.Writer
	now      func() time.Time
	err      error
	buf      []byte // records queued, not yet handed to a write
	spare    []byte
	queued   uint64 // records queued so far
	durable  uint64 // records written (and synced) so far
	flushing bool
}

// OpenAudit opens (creating or appending to) the audit log at path.
func OpenAudit(path string) (*Audit, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	a := &Audit{f: f, w: f, now: time.Now}
	a.cond.L = &a.mu
	return a, nil
}

// NewAudit writes records to w without syncing (tests, stderr).
func NewAudit(w io.Writer) *Audit {
	a := &Audit{w: w, now: time.Now}
	a.cond.L = &a.mu
	return a
}

// Log writes one record and returns once it is durable. A failed write is
// remembered (Err); the proxy keeps enforcing either way.
func (a *Audit) Log(r Record) { a.Wait(a.Append(r)) }

// Append queues one record, starts writing it, and returns the ticket
// Wait takes.
func (a *Audit) Append(r Record) uint64 {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	r.V = AuditVersion
	r.Time = a.now().UTC().Format(time.RFC3339Nano)
	b, err := json.Marshal(r)
	if err != nil {
		a.err = errors.Join(a.err, err)
		return a.queued
	}
	a.buf = append(append(a.buf, b...), '\n')
	a.queued++
	if !a.flushing {
		a.flushing = true
		go a.flush()
	}
	return a.queued
}

// Wait blocks until the record of ticket t is durable (or its write
// failed, which Err reports).
func (a *Audit) Wait(t uint64) {
	if a == nil {
		return
	}
	a.mu.Lock()
	for a.durable < t {
		a.cond.Wait()
	}
	a.mu.Unlock()
}

// flush writes and syncs what is queued, batch after batch, until nothing
// is left; only one flush runs at a time, so records reach the file in
// the order they were queued.
func (a *Audit) flush() {
	a.mu.Lock()
	for len(a.buf) > 0 {
		batch, upto := a.buf, a.queued
		a.buf = a.spare[:0]
		a.mu.Unlock()
		_, werr := a.w.Write(batch)
		var serr error
		if werr == nil && a.f != nil {
			serr = a.f.Sync()
		}
		a.mu.Lock()
		a.spare = batch[:0]
		if werr != nil || serr != nil {
			a.err = errors.Join(a.err, werr, serr)
		}
		a.durable = upto
		a.cond.Broadcast()
	}
	a.flushing = false
	a.cond.Broadcast()
	a.mu.Unlock()
}

// Err is the first write error, if any.
func (a *Audit) Err() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// Close waits for queued records to be written, then closes the file.
func (a *Audit) Close() error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	for a.flushing {
		a.cond.Wait()
	}
	a.mu.Unlock()
	if a.f == nil {
		return nil
	}
	return a.f.Close()
}

// ReadAudit parses an audit log. A malformed line is an error naming the
// file and line; records before it are returned with it.
func ReadAudit(name string, r io.Reader) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var out []Record
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(b, &rec); err != nil {
			return out, &catalog.InputError{File: name, Line: line, Column: 1, Msg: "audit record: " + err.Error()}
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return out, &catalog.InputError{File: name, Line: line + 1, Msg: err.Error()}
	}
	return out, nil
}

// labels are the words the pretty-printer shows for each decision.
var labels = map[string]string{
	DecisionToolPassed:     "PASS",
	DecisionToolWithheld:   "WITHHELD",
	DecisionToolRedacted:   "REDACTED",
	DecisionCallAllowed:    "ALLOW",
	DecisionCallDenied:     "DENY",
	DecisionCallFailed:     "FAILED",
	DecisionUpstreamFailed: "UPSTREAM DOWN",
	DecisionNote:           "note",
	DecisionStarted:        "START",
	DecisionListChanged:    "LIST CHANGED",
}

// WriteText pretty-prints records, one or two lines each.
func WriteText(w io.Writer, recs []Record) error {
	for _, r := range recs {
		ts := r.Time
		if t, err := time.Parse(time.RFC3339Nano, r.Time); err == nil {
			ts = t.Format("2006-01-02 15:04:05")
		}
		label := labels[r.Decision]
		if label == "" {
			label = r.Decision
		}
		what := r.Server
		switch {
		case r.Tool != "" && what != "":
			what += "/" + r.Tool
		case r.Tool != "":
			what = r.Tool
		}
		line := strings.TrimRight(fmt.Sprintf("%s  %-13s %s", ts, label, what), " ")
		if r.Rule != "" || r.Reason != "" {
			line += "  [" + strings.Trim(r.Rule+": "+r.Reason, ": ") + "]"
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
		if r.Evidence != "" {
			if _, err := fmt.Fprintf(w, "    %s\n", oneLine(r.Evidence, 160)); err != nil {
				return err
			}
		}
	}
	return nil
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}

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

// Audit appends records to a JSONL file, one synced write per record, so
// a decision the proxy acted on is on disk even if it is killed next.
type Audit struct {
	mu  sync.Mutex
	f   *os.File
	w   io.Writer
	now func() time.Time
	err error
}

// OpenAudit opens (creating or appending to) the audit log at path.
func OpenAudit(path string) (*Audit, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return &Audit{f: f, w: f, now: time.Now}, nil
}

// NewAudit writes records to w without syncing (tests, stderr).
func NewAudit(w io.Writer) *Audit { return &Audit{w: w, now: time.Now} }

// Log writes one record. A failed write is remembered (Err) and reported
// once; the proxy keeps enforcing either way.
func (a *Audit) Log(r Record) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	r.V = AuditVersion
	r.Time = a.now().UTC().Format(time.RFC3339Nano)
	b, err := json.Marshal(r)
	if err != nil {
		a.err = errors.Join(a.err, err)
		return
	}
	b = append(b, '\n')
	if _, err := a.w.Write(b); err != nil {
		a.err = errors.Join(a.err, err)
		return
	}
	if a.f != nil {
		if err := a.f.Sync(); err != nil {
			a.err = errors.Join(a.err, err)
		}
	}
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

// Close closes the file.
func (a *Audit) Close() error {
	if a == nil || a.f == nil {
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

package trial

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The id is part of the contract: resumed runs, shards and cassettes find
// trials by it, so it must not change when code moves.
func TestIDIsStable(t *testing.T) {
	tr := Trial{Model: "control:compromised", Task: "account_review", AttackClass: "cross_server", PayloadID: "seen-xs-exfil",
		Register: "seen", Objective: "exfil", Arm: "policy", Seed: 1}
	if got, want := ID(tr), "749ab07f9d0728bc"; got != want {
		t.Fatalf("ID = %s, want %s", got, want)
	}
	tr.ID = "ignored"
	if ID(tr) != "749ab07f9d0728bc" {
		t.Fatal("the ID field must not feed the id")
	}
	tr.Seed = 2
	if ID(tr) == "749ab07f9d0728bc" {
		t.Fatal("a different seed must give a different id")
	}
}

func rec(id string, errored bool) Record {
	r := Record{Trial: Trial{ID: id, Model: "control:reference", Task: "calc_invoice", AttackClass: None, PayloadID: None,
		Register: None, Objective: None, Arm: None, Seed: 1}, Control: true, Utility: true}
	if errored {
		msg := "boom"
		r.Error = &msg
	}
	return r
}

func line(t *testing.T, r Record) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func TestOpenLogRepairs(t *testing.T) {
	good := ""
	for _, id := range []string{"a", "b"} {
		good += line(t, rec(id, false))
	}
	last := line(t, rec("c", false))
	tests := []struct {
		name       string
		content    string
		dropErrors bool
		wantIDs    []string
		wantFile   string
		err        string
	}{
		{name: "clean", content: good, wantIDs: []string{"a", "b"}, wantFile: good},
		{name: "torn last line is cut", content: good + last[:20], wantIDs: []string{"a", "b"}, wantFile: good},
		{name: "complete last line without newline is kept", content: good + strings.TrimSuffix(last, "\n"), wantIDs: []string{"a", "b", "c"}, wantFile: good + last},
		{name: "errored kept without retry", content: good + line(t, rec("e", true)), wantIDs: []string{"a", "b", "e"}, wantFile: good + line(t, rec("e", true))},
		{name: "errored dropped for retry", content: line(t, rec("e", true)) + good + last[:10], dropErrors: true, wantIDs: []string{"a", "b"}, wantFile: good},
		{name: "duplicate id", content: good + line(t, rec("a", false)), err: "line 3: malformed trial record: trial a is recorded twice"},
		{name: "malformed middle line", content: "{\"x\":\n" + good, err: "line 1: malformed trial record"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), LogFile)
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			log, done, err := OpenLog(path, tc.dropErrors)
			if tc.err != "" {
				if err == nil || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), path) {
					t.Fatalf("err = %v, want ErrMalformed naming %s and %q", err, path, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(done) != len(tc.wantIDs) {
				t.Errorf("done has %d records, want %v", len(done), tc.wantIDs)
			}
			for _, id := range tc.wantIDs {
				if _, ok := done[id]; !ok {
					t.Errorf("record %s missing", id)
				}
			}
			if err := log.Append(rec("z", false)); err != nil {
				t.Fatal(err)
			}
			log.Close()
			got, _ := os.ReadFile(path)
			if want := tc.wantFile + line(t, rec("z", false)); string(got) != want {
				t.Errorf("file after repair and append:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestReaderTornAndMalformed(t *testing.T) {
	good := line(t, rec("a", false))
	tests := []struct {
		name, content string
		n             int
		warn, err     string
	}{
		{name: "torn", content: good + good[:15], n: 1, warn: "x.jsonl line 2: truncated last line ignored"},
		{name: "missing key", content: good + `{"trial_id":"b"}` + "\n", n: 1, err: `x.jsonl line 2: malformed trial record: key "model" is missing`},
		{name: "blank lines", content: "\n" + good + "\n\n" + good, n: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rd := NewReader(strings.NewReader(tc.content), "x.jsonl")
			n := 0
			var err error
			for {
				var v *View
				v, err = rd.Next()
				if err != nil {
					break
				}
				n++
				if string(v.ID) != "a" || v.Flags&FlagUtility == 0 || !v.Control {
					t.Errorf("view = %+v", v)
				}
			}
			if n != tc.n {
				t.Errorf("read %d records, want %d", n, tc.n)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err.Error() != "EOF" {
				t.Errorf("err = %v", err)
			}
			if w := strings.Join(rd.Warnings(), "\n"); (tc.warn == "") != (w == "") || !strings.Contains(w, tc.warn) {
				t.Errorf("warnings = %q, want %q", w, tc.warn)
			}
		})
	}
}

// Workers append at once: every record must land on a line of its own.
func TestConcurrentAppendsKeepLinesWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), LogFile)
	log, _, err := OpenLog(path, false)
	if err != nil {
		t.Fatal(err)
	}
	const n = 64
	errs := make(chan error, n)
	for i := range n {
		go func() { errs <- log.Append(rec(fmt.Sprintf("t%02d", i), i%5 == 0)) }()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	log.Close()
	_, done, err := OpenLog(path, false)
	if err != nil || len(done) != n {
		t.Fatalf("reopened log has %d records (err %v), want %d", len(done), err, n)
	}
}

package proxy

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestAuditGroupCommit: decisions logged from many goroutines at once
// (their writes and syncs shared) are each on disk when Log returns, each
// whole on its own line, none lost; a record appended and not yet waited
// for is on disk once Wait returns.
func TestAuditGroupCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := OpenAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 16, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				id := fmt.Sprintf("call-%d", w*each+i+1)
				a.Log(Record{Decision: DecisionCallAllowed, ClientName: "t", CallID: id})
				b, err := os.ReadFile(path)
				if err != nil {
					t.Error(err)
					return
				}
				if !bytes.Contains(b, []byte(`"call_id":"`+id+`"`)) {
					t.Errorf("%s is not in the file when Log returns", id)
				}
			}
		})
	}
	wg.Wait()
	ticket := a.Append(Record{Decision: DecisionStarted, Evidence: "last"})
	a.Wait(ticket)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ReadAudit(path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != writers*each+1 || recs[len(recs)-1].Evidence != "last" {
		t.Fatalf("%d records (want %d), last %+v", len(recs), writers*each+1, recs[len(recs)-1])
	}
	seen := map[string]bool{}
	for _, r := range recs[:len(recs)-1] {
		if seen[r.CallID] {
			t.Errorf("%s twice", r.CallID)
		}
		seen[r.CallID] = true
	}
	if err := a.Close(); err != nil || a.Err() != nil {
		t.Errorf("close: %v, write error: %v", err, a.Err())
	}
}

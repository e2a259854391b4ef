package trace

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/trial"
)

// writePack writes n trials into a pack at dir/p.jsonl.gz, each with a
// run_config, steps tool calls and a score, and returns their refs.
func writePack(t *testing.T, dir string, n, steps int) (string, []Ref, []int64) {
	t.Helper()
	path := filepath.Join(dir, "p.jsonl.gz")
	p, err := CreatePack(path, "p.jsonl.gz")
	if err != nil {
		t.Fatal(err)
	}
	var refs []Ref
	var ends []int64 // the file's size as each trial ended
	for i := range n {
		w, err := p.Trial()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Trial(); err == nil {
			t.Fatal("a second trial started while one was being written")
		}
		id := trialID(i)
		_ = w.Emit(KindRunConfig, 0, RunConfig{Trial: trial.Trial{ID: id}})
		for s := range steps {
			_ = w.Emit(KindToolCall, s+1, ToolCall{CallID: id, Tool: "calculate", Server: strings.Repeat("x", 40*s)})
		}
		_ = w.Emit(KindScore, 0, trial.Record{Trial: trial.Trial{ID: id}})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("second close: %v", err)
		}
		if err := w.Emit(KindWarning, 0, Message{Kind: "late"}); !errors.Is(err, ErrClosed) {
			t.Fatalf("an event after Close: %v, want ErrClosed", err)
		}
		refs = append(refs, w.Ref())
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, st.Size())
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	return path, refs, ends
}

func trialID(i int) string { return "trial-" + string(rune('a'+i%26)) + string(rune('a'+i/26)) }

// checkTrial reads one trial through its ref and checks it is exactly
// that trial's events.
func checkTrial(t *testing.T, root *os.Root, ref Ref, i, steps int) {
	t.Helper()
	evs, err := ReadRef(root, ref)
	if err != nil {
		t.Fatalf("trial %d at %+v: %v", i, ref, err)
	}
	if len(evs) != steps+2 || evs[0].Kind != KindRunConfig || evs[len(evs)-1].Kind != KindScore {
		t.Fatalf("trial %d: %d events, want %d from run_config to score", i, len(evs), steps+2)
	}
	var rc RunConfig
	if err := evs[0].Decode(&rc); err != nil || rc.ID != trialID(i) {
		t.Fatalf("trial %d: run_config is %q (%v)", i, rc.ID, err)
	}
}

func TestPackHoldsManyTrialsInFewMembers(t *testing.T) {
	defer func(v int64) { packMemberText = v }(packMemberText)
	packMemberText = 4 << 10 // several members
	dir := t.TempDir()
	const n, steps = 40, 6
	path, refs, _ := writePack(t, dir, n, steps)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	members := map[int64]bool{}
	for i, ref := range refs {
		if !ref.Packed() || ref.Path != "p.jsonl.gz" {
			t.Fatalf("trial %d: ref %+v", i, ref)
		}
		members[ref.Member] = true
		checkTrial(t, root, ref, i, steps)
	}
	if len(members) < 3 || len(members) >= n {
		t.Errorf("%d trials in %d members: want several trials per member and several members", n, len(members))
	}
	// The file is a standard multi-member gzip file: gzip (and zcat)
	// read every trial in order, and so does ReadFile.
	f, _ := os.Open(path)
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	text, err := io.ReadAll(zr)
	f.Close()
	if err != nil {
		t.Fatalf("gzip reads the pack: %v", err)
	}
	evs, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := n * (steps + 2); len(evs) != want || bytes.Count(text, []byte("\n")) != want {
		t.Fatalf("whole pack: %d events, %d lines, want %d", len(evs), bytes.Count(text, []byte("\n")), want)
	}
}

func TestPackTornTailIsReadableAndRepaired(t *testing.T) {
	defer func(v int64) { packMemberText = v }(packMemberText)
	packMemberText = 4 << 10
	dir := t.TempDir()
	const steps = 5
	path, refs, ends := writePack(t, dir, 12, steps)
	// A crash after the first 8 trials were recorded: the file ends
	// anywhere after the eighth trial's data reached the disk, inside the
	// ninth trial, a later member, or right at the eighth's end with its
	// member never closed.
	last := refs[7]
	full, _ := os.ReadFile(path)
	cuts := []int64{ends[7], ends[7] + 1, (ends[7] + ends[8]) / 2, ends[9] + 5, ends[11] - 3}
	if refs[11].Member == last.Member {
		t.Fatal("the fixture wants later trials in later members")
	}
	for _, cut := range cuts {
		torn := filepath.Join(dir, "torn.jsonl.gz")
		if err := os.WriteFile(torn, full[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		root, _ := os.OpenRoot(dir)
		for i := range 8 {
			ref := refs[i]
			ref.Path = "torn.jsonl.gz"
			checkTrial(t, root, ref, i, steps)
		}
		changed, err := RepairPack(torn, last.Member, last.Offset+last.Bytes)
		if err != nil {
			t.Fatalf("cut at %d: repair: %v", cut, err)
		}
		if !changed && cut != ends[7] {
			// Only at the eighth trial's end may the file already be
			// whole (its member closed there).
			t.Fatalf("cut at %d: a torn pack was left as it was", cut)
		}
		evs, err := ReadFile(torn)
		if err != nil {
			t.Fatalf("cut at %d: the repaired pack does not read cleanly: %v", cut, err)
		}
		if len(evs) != 8*(steps+2) {
			t.Fatalf("cut at %d: repaired pack holds %d events, want the 8 recorded trials' %d", cut, len(evs), 8*(steps+2))
		}
		for i := range 8 {
			ref := refs[i]
			ref.Path = "torn.jsonl.gz"
			checkTrial(t, root, ref, i, steps)
		}
		if changed, err := RepairPack(torn, last.Member, last.Offset+last.Bytes); err != nil || changed {
			t.Fatalf("cut at %d: repairing a repaired pack: changed %v, %v", cut, changed, err)
		}
		root.Close()
	}
}

func TestPackCutInsideARecordedTrialIsTruncation(t *testing.T) {
	dir := t.TempDir()
	path, refs, _ := writePack(t, dir, 3, 4)
	full, _ := os.ReadFile(path)
	if err := os.WriteFile(path, full[:len(full)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	root, _ := os.OpenRoot(dir)
	defer root.Close()
	_, err := ReadRef(root, refs[2])
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("reading a trial cut in half: %v, want ErrTruncated", err)
	}
	last := refs[2]
	if _, err := RepairPack(path, last.Member, last.Offset+last.Bytes); !errors.Is(err, ErrTruncated) {
		t.Fatalf("repairing a pack that lost recorded text: %v, want ErrTruncated", err)
	}
	if b, _ := os.ReadFile(path); len(b) != len(full)/2 {
		t.Fatal("a pack that lost recorded text was rewritten")
	}
}

func TestRefOfAFileOfItsOwnReadsTheWholeFile(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"old.jsonl", "old.jsonl.gz"} {
		w, err := Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		_ = w.Emit(KindRunConfig, 0, RunConfig{Trial: trial.Trial{ID: trialID(0)}})
		_ = w.Emit(KindScore, 0, trial.Record{})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		root, _ := os.OpenRoot(dir)
		rec := trial.Record{Trace: name}
		ref := RefOf(rec)
		if ref.Packed() {
			t.Fatalf("%s: a record without trace_bytes names a pack", name)
		}
		checkTrial(t, root, ref, 0, 0)
		root.Close()
	}
}

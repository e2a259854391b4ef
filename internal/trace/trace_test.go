package trace

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsec/mcpsec/internal/trial"
)

func TestWriterRoundTripAndSchemaVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w.SetClock(func() time.Time { return time.Unix(0, 0) })
	if err := w.Emit(KindRunConfig, 0, RunConfig{Trial: trial.Trial{ID: "abc", Model: "control:reference"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Emit(KindToolCall, 1, ToolCall{CallID: "c1", Tool: "calculate"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	evs, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || len(w.Events()) != 2 {
		t.Fatalf("read %d events, kept %d", len(evs), len(w.Events()))
	}
	if evs[0].SchemaVersion != SchemaVersion || evs[1].SchemaVersion != 0 {
		t.Errorf("schema_version must be on the first event only: %d, %d", evs[0].SchemaVersion, evs[1].SchemaVersion)
	}
	if evs[0].Seq != 1 || evs[1].Seq != 2 || evs[1].Step != 1 {
		t.Errorf("seq/step wrong: %+v", evs)
	}
	var rc RunConfig
	if err := evs[0].Decode(&rc); err != nil || rc.ID != "abc" {
		t.Errorf("decode run_config: %v %+v", err, rc)
	}
}

func TestReadToleratesTruncatedLastLine(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf, false)
	_ = w.Emit(KindUserPrompt, 0, UserPrompt{Prompt: "p"})
	_ = w.Emit(KindSummary, 1, Summary{FinalText: "done"})
	full := buf.String()
	cut := full[:len(full)-10]
	evs, err := Read(strings.NewReader(cut))
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("err = %v, want ErrTruncated", err)
	}
	if len(evs) != 1 || evs[0].Kind != KindUserPrompt {
		t.Fatalf("kept %+v", evs)
	}
	if !strings.Contains(err.Error(), "line 2") {
		t.Errorf("error does not name the line: %v", err)
	}
}

func TestReadRejectsMalformedMiddleLine(t *testing.T) {
	in := "{\"seq\":1,\"kind\":\"user_prompt\",\"data\":{}}\nnot json\n{\"seq\":3,\"kind\":\"summary\",\"data\":{}}\n"
	_, err := Read(strings.NewReader(in))
	if err == nil || errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v, want a line-2 error that is not truncation", err)
	}
}

func TestCreateIsAppendOnlyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Emit(KindWarning, 0, Message{Message: "one"})
	_ = w.Emit(KindWarning, 0, Message{Message: "two"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if n := bytes.Count(b, []byte("\n")); n != 2 {
		t.Fatalf("%d lines, want 2", n)
	}
}

// FuzzRead: any byte stream gives events or an error, never a panic, and
// every event returned was a complete line.
func FuzzRead(f *testing.F) {
	f.Add([]byte("{\"seq\":1,\"kind\":\"summary\",\"data\":{}}\n"))
	f.Add([]byte("{\"seq\":1,\"kind\":\"summary\",\"data\":{}}\n{\"seq\":2,"))
	f.Add([]byte("\n\n  \n"))
	var z bytes.Buffer
	w := NewWriter(&z, false)
	_ = w.Emit(KindSummary, 0, Summary{FinalText: "done"})
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(z.Bytes())
	zw.Close()
	f.Add(gz.Bytes())
	f.Add(gz.Bytes()[:gz.Len()/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		evs, err := Read(bytes.NewReader(data))
		if err == nil && bytes.Count(data, []byte("\n"))+1 < len(evs) {
			t.Fatalf("%d events from %d lines", len(evs), bytes.Count(data, []byte("\n"))+1)
		}
	})
}

// writeTrace writes n warning events to path through Create.
func writeTrace(t *testing.T, path string, n int) {
	t.Helper()
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w.SetClock(func() time.Time { return time.Unix(1700000000, 123456789) })
	for i := range n {
		if err := w.Emit(KindWarning, i, Message{Message: strings.Repeat("tool list ", 50)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCompressedTraceReadsLikePlain: a ".gz" trace is gzip on disk, much
// smaller than the same plain trace, and every reader returns the same
// events from both.
func TestCompressedTraceReadsLikePlain(t *testing.T) {
	dir := t.TempDir()
	plain, packed := filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "t"+Ext)
	writeTrace(t, plain, 40)
	writeTrace(t, packed, 40)
	pb, _ := os.ReadFile(plain)
	zb, _ := os.ReadFile(packed)
	if !bytes.HasPrefix(zb, []byte{0x1f, 0x8b}) {
		t.Fatalf("%s is not gzip: % x", packed, zb[:min(len(zb), 4)])
	}
	if len(zb)*5 > len(pb) {
		t.Errorf("compressed %d bytes, plain %d: want at least 5x smaller", len(zb), len(pb))
	}
	want, err := ReadFile(plain)
	if err != nil || len(want) != 40 {
		t.Fatalf("plain: %d events, %v", len(want), err)
	}
	got, err := ReadFile(packed)
	if err != nil || len(got) != len(want) {
		t.Fatalf("compressed: %d events, %v", len(got), err)
	}
	for i := range want {
		if got[i].Seq != want[i].Seq || !bytes.Equal(got[i].Data, want[i].Data) {
			t.Fatalf("event %d differs: %+v vs %+v", i, got[i], want[i])
		}
	}
	rc, err := Open(packed)
	if err != nil {
		t.Fatal(err)
	}
	text, err := io.ReadAll(rc)
	if err != nil || rc.Close() != nil {
		t.Fatalf("Open: %v", err)
	}
	if !bytes.Equal(text, pb) {
		t.Errorf("Open gave %d bytes of text that differ from the plain trace's %d", len(text), len(pb))
	}
	n := 0
	if err := Each(bytes.NewReader(zb), func(Event) error { n++; return nil }); err != nil || n != 40 {
		t.Errorf("Each: %d events, %v", n, err)
	}
}

// TestCompressedTraceCutShort: a compressed trace cut anywhere (a crash
// mid-write) gives the events that were complete and ErrTruncated, never
// a made-up event or a panic.
func TestCompressedTraceCutShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t"+Ext)
	writeTrace(t, path, 200)
	zb, _ := os.ReadFile(path)
	for _, cut := range []int{1, 2, 10, len(zb) / 3, len(zb) / 2, len(zb) - 9, len(zb) - 1} {
		evs, err := Read(bytes.NewReader(zb[:cut]))
		if !errors.Is(err, ErrTruncated) {
			t.Errorf("cut at %d of %d: err = %v, want ErrTruncated", cut, len(zb), err)
		}
		for i, ev := range evs {
			if ev.Seq != i+1 {
				t.Fatalf("cut at %d: event %d has seq %d", cut, i, ev.Seq)
			}
		}
	}
}

// BenchmarkCreateTrace writes a 40-event trace (about the size of a
// control trial's) to a plain and to a compressed file.
func BenchmarkCreateTrace(b *testing.B) {
	for _, ext := range []string{".jsonl", Ext} {
		b.Run(ext, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "t"+ext)
			for b.Loop() {
				w, err := Create(path)
				if err != nil {
					b.Fatal(err)
				}
				for i := range 40 {
					_ = w.Emit(KindWarning, i, Message{Message: strings.Repeat("tool list ", 50)})
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestLineIsWhatMarshalGives: the writer's hand-built line equals
// json.Marshal of the Event (whose data, as in Emit, comes from
// json.Marshal), so the format cannot drift from the struct.
func TestLineIsWhatMarshalGives(t *testing.T) {
	tricky, _ := json.Marshal(map[string]any{"args": "<a&b> \u2028", "raw": json.RawMessage(`{"x": [1, 2]}`)})
	evs := []Event{
		{Seq: 9, Kind: KindToolResult, Data: tricky},
		{SchemaVersion: SchemaVersion, Seq: 1, Time: time.Date(2026, 11, 30, 10, 0, 0, 120, time.UTC), Kind: KindRunConfig, Data: json.RawMessage(`{"trial_id":"x"}`)},
		{Seq: 42, Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Kind: KindToolCall, Step: 7, Data: json.RawMessage(`{"args":"plain"}`)},
		{Seq: 3, Kind: "odd \"kind\" <x>", Data: nil},
	}
	for _, ev := range evs {
		want, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ev.appendLine(nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want)+"\n" {
			t.Errorf("line\n got %s\nwant %s", got, want)
		}
	}
}

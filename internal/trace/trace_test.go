package trace

import (
	"bytes"
	"errors"
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
	f.Fuzz(func(t *testing.T, data []byte) {
		evs, err := Read(bytes.NewReader(data))
		if err == nil && bytes.Count(data, []byte("\n"))+1 < len(evs) {
			t.Fatalf("%d events from %d lines", len(evs), bytes.Count(data, []byte("\n"))+1)
		}
	})
}

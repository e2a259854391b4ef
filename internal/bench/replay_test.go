package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/mcpsec/mcpsec/internal/trial"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// scriptedChat answers the OpenAI Chat Completions wire format: a
// calculate call first, then a final answer once a tool result is in the
// conversation.
func scriptedChat(t *testing.T, calls *atomic.Int64) *httptest.Server {
	t.Helper()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		for _, m := range req.Messages {
			if m.Role == "tool" {
				fmt.Fprint(w, `{"id":"c2","object":"chat.completion","created":1,"model":"scripted","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"The invoice total is 3927."}}],"usage":{"prompt_tokens":50,"completion_tokens":8,"total_tokens":58}}`)
				return
			}
		}
		fmt.Fprint(w, `{"id":"c1","object":"chat.completion","created":1,"model":"scripted","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"calculate","arguments":"{\"expression\":\"1249 * 3 + 180\"}"}}]}}],"usage":{"prompt_tokens":40,"completion_tokens":12,"total_tokens":52}}`)
	}))
}

func TestRecordThenReplayGivesTheSameTrial(t *testing.T) {
	var calls atomic.Int64
	srv := scriptedChat(t, &calls)
	spec := "openai-compatible:scripted@" + srv.URL + "/v1"
	g := DefaultGrid()
	tr := trial.Trial{Model: spec, Task: "calc_invoice", AttackClass: "tool_description", PayloadID: "seen-td-exfil", Register: "seen", Objective: "exfil", Arm: "none", Seed: 1}
	tr.ID = trial.ID(tr)
	dir := t.TempDir()
	live, err := RunTrial(context.Background(), Env{Transport: "memory", RecordDir: dir}, g, tr, "")
	if err != nil {
		t.Fatal(err)
	}
	if live.Error != nil || !live.Utility || live.Steps != 2 {
		t.Fatalf("live trial: %+v", live)
	}
	srv.Close()
	recorded := calls.Load()

	cassettes := filepath.Join(dir, CassetteDir(spec))
	if _, err := os.Stat(filepath.Join(cassettes, tr.ID+".yaml")); err != nil {
		t.Fatalf("no cassette for the trial: %v", err)
	}
	rt := tr
	rt.Model = "replay:" + cassettes
	rt.ID = trial.ID(rt)
	replayed, err := RunTrial(context.Background(), Env{Transport: "memory"}, g, rt, "")
	if err != nil {
		t.Fatal(err)
	}
	if replayed.Error != nil {
		t.Fatalf("replay errored: %s", *replayed.Error)
	}
	if calls.Load() != recorded {
		t.Fatal("replay reached the network")
	}
	if replayed.Utility != live.Utility || replayed.Steps != live.Steps || replayed.InputTokens != live.InputTokens ||
		replayed.Attempted != live.Attempted || replayed.Exposed != live.Exposed {
		t.Fatalf("replay differs:\nlive   %+v\nreplay %+v", live, replayed)
	}

	// A trial that was never recorded fails clearly instead of calling out.
	other := rt
	other.Task = "notes_pipeline"
	other.ID = trial.ID(other)
	rec, err := RunTrial(context.Background(), Env{Transport: "memory"}, g, other, "")
	msg := ""
	if err != nil {
		msg = err.Error()
	} else if rec.Error != nil {
		msg = *rec.Error
	}
	if !strings.Contains(msg, "cassette") {
		t.Fatalf("unrecorded trial: err=%v rec=%+v", err, rec)
	}
}

// TestKeyNeverWritten runs a recorded sweep with a sentinel API key and
// checks that no file of the run or the cassettes contains it.
func TestKeyNeverWritten(t *testing.T) {
	const sentinel = "sk-SENTINEL-7f3a9c-never-write-me"
	var calls atomic.Int64
	srv := scriptedChat(t, &calls)
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", sentinel)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	g := smallGrid()
	g.Models = []string{"openai:gpt-test"}
	g.Arms = []string{"none"}
	base := t.TempDir()
	out := filepath.Join(base, "run")
	if _, err := Sweep(context.Background(), Options{Grid: g, Out: out, Env: Env{Transport: "memory", RecordDir: filepath.Join(base, "cassettes")}}); err != nil {
		t.Fatal(err)
	}
	if calls.Load() == 0 {
		t.Fatal("the provider was never called")
	}
	files := 0
	err := filepath.WalkDir(base, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), sentinel) || strings.Contains(string(b), "SENTINEL-7f3a9c") {
			t.Errorf("%s contains the API key", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 4 {
		t.Fatalf("only %d files written", files)
	}
}

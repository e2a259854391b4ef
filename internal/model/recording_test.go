package model

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// conversation runs a two-turn exchange the way the agent loop would:
// the first answer (a tool call) is appended with a tool result and sent
// back.
func conversation(ctx context.Context, m Model) ([]Response, error) {
	req := sampleRequest()
	r1, err := m.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	req.Messages = append(req.Messages, Message{Role: RoleAssistant, Content: r1.Content, ToolCalls: r1.ToolCalls, Raw: r1.Raw})
	for _, tc := range r1.ToolCalls {
		req.Messages = append(req.Messages, Message{Role: RoleTool, ToolCallID: tc.ID, ToolName: tc.Name, Content: "1 note"})
	}
	r2, err := m.Complete(ctx, req)
	if err != nil {
		return nil, err
	}
	return []Response{r1, r2}, nil
}

func TestRecordThenReplay(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "rec")
			const trial = "trial-0001"
			f := newFakeProvider(t, w.authHeader,
				reply{status: 429, header: map[string]string{"Retry-After": "30"}, body: w.errBody("slow down")},
				reply{status: 200, body: w.toolCall},
				reply{status: 200, body: w.text},
			)
			rec, err := NewRecording(dir, trial, ModeRecord)
			if err != nil {
				t.Fatal(err)
			}
			liveSleep := &sleepLog{}
			live := newTestModel(t, w, f, liveSleep, func(o *Options) { o.Recorder = rec })
			want, err := conversation(context.Background(), live)
			if err != nil {
				t.Fatalf("live run: %v", err)
			}
			// Recording must not change what the live run honours.
			if got := liveSleep.waits(); len(got) != 1 || got[0] != 30*time.Second {
				t.Errorf("live waits = %v, want [30s]", got)
			}
			if err := rec.Stop(); err != nil {
				t.Fatal(err)
			}
			if n := len(f.requests()); n != 3 {
				t.Fatalf("live server saw %d requests, want 3", n)
			}
			f.Close() // replay must not need the network

			// No file in the recording directory may hold the key.
			entries, _ := os.ReadDir(dir)
			if len(entries) == 0 {
				t.Fatal("recording directory is empty")
			}
			for _, e := range entries {
				b, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				assertNoKey(t, e.Name(), string(b))
				for _, h := range []string{"Authorization:", "X-Goog-Api-Key:", "X-Api-Key:"} {
					if strings.Contains(string(b), h) {
						t.Errorf("%s still records header %s", e.Name(), h)
					}
				}
			}
			cas, _ := os.ReadFile(rec.Path())
			if !strings.Contains(string(cas), "Retry-After:\n                - \"30\"") {
				t.Errorf("cassette lost the recorded Retry-After:\n%s", cas)
			}
			spec, _ := os.ReadFile(filepath.Join(dir, SpecFile))
			if strings.TrimSpace(string(spec)) != w.spec {
				t.Errorf("spec.txt = %q, want %q", spec, w.spec)
			}

			replay, err := New("replay:"+dir, Options{CassetteName: trial, Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatalf("New(replay): %v", err)
			}
			if replay.Spec() != "replay:"+dir || RecordedSpec(replay) != w.spec {
				t.Errorf("Spec() = %q, RecordedSpec = %q", replay.Spec(), RecordedSpec(replay))
			}
			got, err := conversation(context.Background(), replay)
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			for i := range want {
				assertResponse(t, got[i], want[i])
			}

			// A conversation that diverges from the recording fails
			// clearly instead of reaching the network.
			replay2, err := New("replay:"+dir, Options{CassetteName: trial})
			if err != nil {
				t.Fatal(err)
			}
			req := sampleRequest()
			req.System = "something else"
			_, err = replay2.Complete(context.Background(), req)
			if err == nil || !strings.Contains(err.Error(), "not in cassette") {
				t.Fatalf("diverging replay: err = %v, want 'not in cassette'", err)
			}
			if errors.Is(err, ErrRetriesExhausted) {
				t.Errorf("diverging replay should fail at once, got %v", err)
			}
		})
	}
}

func TestReplayErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	if err := os.MkdirAll(good, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(good, SpecFile), []byte("openai:gpt-4o-mini\n"), 0o644)
	ctrl := filepath.Join(dir, "ctrl")
	_ = os.MkdirAll(ctrl, 0o755)
	_ = os.WriteFile(filepath.Join(ctrl, SpecFile), []byte("control:reference\n"), 0o644)

	cases := []struct {
		name, spec, cassette, errHas string
	}{
		{"no spec.txt", "replay:" + filepath.Join(dir, "missing"), "t1", "spec.txt"},
		{"control spec", "replay:" + ctrl, "t1", "cannot be replayed"},
		{"no cassette name", "replay:" + good, "", "CassetteName"},
		{"missing cassette", "replay:" + good, "t404", "t404.yaml"},
		{"bad cassette name", "replay:" + good, "../x", "plain file name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.spec, Options{CassetteName: tc.cassette})
			if err == nil || !strings.Contains(err.Error(), tc.errHas) {
				t.Fatalf("err = %v, want mention of %q", err, tc.errHas)
			}
		})
	}
}

func TestRecordingDirServesOneSpec(t *testing.T) {
	dir := t.TempDir()
	r1, _ := NewRecording(dir, "a", ModeRecord)
	if _, err := New("openai:gpt-4o-mini", Options{Getenv: testEnv, Recorder: r1}); err != nil {
		t.Fatal(err)
	}
	r2, _ := NewRecording(dir, "b", ModeRecord)
	_, err := New("anthropic:claude-test", Options{Getenv: testEnv, Recorder: r2})
	if err == nil || !strings.Contains(err.Error(), "one directory per model spec") {
		t.Fatalf("err = %v", err)
	}
}

func TestMatcherCanonicalJSONAndKeyParams(t *testing.T) {
	rec := cassette.Request{Method: "POST", URL: "http://127.0.0.1/v1/x?alt=json", Body: `{"b":1,"a":{"d":[1,2],"c":"x"}}`}
	cases := []struct {
		name   string
		method string
		url    string
		body   string
		want   bool
	}{
		{"reordered keys", "POST", "http://127.0.0.1/v1/x?alt=json", `{"a":{"c":"x","d":[1,2]},"b":1}`, true},
		{"key param ignored", "POST", "http://127.0.0.1/v1/x?alt=json&key=" + sentinelKey, `{"b":1,"a":{"d":[1,2],"c":"x"}}`, true},
		{"different value", "POST", "http://127.0.0.1/v1/x?alt=json", `{"b":2,"a":{"d":[1,2],"c":"x"}}`, false},
		{"array order matters", "POST", "http://127.0.0.1/v1/x?alt=json", `{"b":1,"a":{"d":[2,1],"c":"x"}}`, false},
		{"different path", "POST", "http://127.0.0.1/v1/y?alt=json", `{"b":1,"a":{"d":[1,2],"c":"x"}}`, false},
		{"different method", "PUT", "http://127.0.0.1/v1/x?alt=json", `{"b":1,"a":{"d":[1,2],"c":"x"}}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, tc.url, strings.NewReader(tc.body))
			if got := matchRequest(r, rec); got != tc.want {
				t.Errorf("match = %v, want %v", got, tc.want)
			}
			// The matcher must leave the body readable for the next one.
			if got := matchRequest(r, rec); got != tc.want {
				t.Errorf("second match = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestScrubInteraction(t *testing.T) {
	r := &Recording{secrets: []string{sentinelKey}}
	live := http.Header{"Authorization": {"Bearer " + sentinelKey}, "X-Goog-Api-Key": {sentinelKey}, "Api-Key": {sentinelKey}, "User-Agent": {"ua " + sentinelKey}}
	i := &cassette.Interaction{
		Request: cassette.Request{
			URL:     "https://x.invalid/v1/m?key=" + sentinelKey + "&alt=json",
			Headers: live,
			Body:    `{"echo":"` + sentinelKey + `"}`,
			Form:    map[string][]string{"key": {sentinelKey}, "alt": {"json"}},
		},
		Response: cassette.Response{Headers: http.Header{"Set-Cookie": {"s=1"}, "X-Api-Key": {sentinelKey}}, Body: sentinelKey},
	}
	if err := r.scrubInteraction(i); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(i)
	assertNoKey(t, "scrubbed interaction", string(b))
	if strings.Contains(string(b), "Set-Cookie") {
		t.Errorf("Set-Cookie kept: %s", b)
	}
	if !strings.Contains(i.Request.URL, "alt=json") {
		t.Errorf("non-key query lost: %s", i.Request.URL)
	}
	if live.Get("Authorization") == "" {
		t.Error("scrubbing mutated the live request headers")
	}
}

package model

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// sentinelKey is a synthetic key; every test asserts it never shows up in
// errors, logs or cassettes.
const sentinelKey = "CANARY-5e17e1a1c0ffee42d00d"

// reply is one scripted HTTP answer of a fake provider.
type reply struct {
	status int
	header map[string]string
	body   string
	// hang blocks until the client gives up (attempt timeout).
	hang bool
}

type seenRequest struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// fakeProvider is a loopback HTTP server that answers with a script of
// documented provider wire responses and keeps every request it saw.
type fakeProvider struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	script []reply
	seen   []seenRequest
	// authHeader is where the key must arrive ("Authorization" with a
	// Bearer prefix, or "X-Goog-Api-Key").
	authHeader string
	stop       chan struct{}
}

func newFakeProvider(t *testing.T, authHeader string, script ...reply) *fakeProvider {
	t.Helper()
	f := &fakeProvider{t: t, script: script, authHeader: authHeader, stop: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// Close releases hanging handlers before shutting the server down.
func (f *fakeProvider) Close() {
	f.mu.Lock()
	select {
	case <-f.stop:
	default:
		close(f.stop)
	}
	f.mu.Unlock()
	f.srv.Close()
}

func (f *fakeProvider) URL() string { return f.srv.URL }

func (f *fakeProvider) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.seen = append(f.seen, seenRequest{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	var rep reply
	if len(f.script) == 0 {
		rep = reply{status: 599, body: `{"error":"script exhausted"}`}
	} else {
		rep = f.script[0]
		if len(f.script) > 1 {
			f.script = f.script[1:]
		}
	}
	f.mu.Unlock()
	if got := r.Header.Get(f.authHeader); !strings.Contains(got, sentinelKey) {
		http.Error(w, `{"error":{"message":"no key"}}`, http.StatusUnauthorized)
		return
	}
	if rep.hang {
		select {
		case <-r.Context().Done():
		case <-f.stop:
		}
		return
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	// A hostile echo of the key in a response header must not survive
	// into cassettes either.
	w.Header().Set("X-Echo", "key="+sentinelKey)
	w.WriteHeader(rep.status)
	_, _ = io.WriteString(w, rep.body)
}

func (f *fakeProvider) requests() []seenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seenRequest(nil), f.seen...)
}

// sleepLog records requested waits instead of sleeping.
type sleepLog struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleepLog) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleepLog) waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

func testEnv(k string) string {
	switch k {
	case "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "GEMINI_API_KEY", "OLLAMA_API_KEY", "OPENAI_COMPATIBLE_API_KEY":
		return sentinelKey
	}
	return ""
}

// testBackoff is distinct per attempt so tests can tell which wait came
// from Retry-After and which from backoff.
func testBackoff(attempt int) time.Duration { return time.Duration(attempt) * 3 * time.Second }

// sampleSchema has the JSON Schema parts providers disagree about.
func sampleSchema() map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(`{
	  "$schema": "http://json-schema.org/draft-07/schema#",
	  "type": "object",
	  "properties": {
	    "title": {"type": "string", "description": "Note title", "minLength": 1, "default": "untitled"},
	    "kind": {"const": "memo"},
	    "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}},
	    "body": {"type": "string", "pattern": "^[a-z]+$"}
	  },
	  "required": ["title"],
	  "additionalProperties": false,
	  "$defs": {"tag": {"type": "string", "enum": ["a", "b"], "examples": ["a"]}}
	}`), &m); err != nil {
		panic(err)
	}
	return m
}

// sampleRequest is a conversation with every role and one tool.
func sampleRequest() Request {
	temp := 0.0
	return Request{
		System: "You are a note-taking assistant.",
		Messages: []Message{
			{Role: RoleUser, Content: "Add a note titled groceries."},
			{Role: RoleAssistant, Content: "Adding it.", ToolCalls: []ToolCall{{ID: "call_prev", Name: "add_note", Arguments: json.RawMessage(`{"title":"groceries"}`)}}},
			{Role: RoleTool, ToolCallID: "call_prev", ToolName: "add_note", Content: "note saved", IsError: false},
			{Role: RoleUser, Content: "Now list my notes."},
		},
		Tools:       []ToolSpec{{Name: "add_note", Description: "Add a note.", InputSchema: sampleSchema()}},
		MaxTokens:   256,
		Temperature: &temp,
	}
}

// checkGolden compares a request body, pretty-printed, with a file.
func checkGolden(t *testing.T, name string, body []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, body)
	}
	got, _ := json.MarshalIndent(v, "", "  ")
	got = append(got, '\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden (run go test -run %s -update): %v", t.Name(), err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("request body differs from %s:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// assertNoKey fails if the sentinel key shows up in s.
func assertNoKey(t *testing.T, where, s string) {
	t.Helper()
	if strings.Contains(s, sentinelKey) {
		t.Errorf("%s contains the API key: %s", where, s)
	}
}

package model

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// wire holds one provider's documented response shapes and what the
// adapter must make of them.
type wire struct {
	name       string
	spec       string
	authHeader string
	path       string
	baseURL    func(srv string) string

	toolCall, text, truncated, malformed string
	errBody                              func(msg string) string

	wantToolCall, wantText, wantTruncated, wantMalformed Response
}

func wires() []wire {
	return []wire{
		{
			name: "anthropic", spec: "anthropic:claude-test", authHeader: "Authorization", path: "/v1/messages",
			baseURL: func(s string) string { return s },
			toolCall: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test",
				"content":[{"type":"text","text":"Listing."},{"type":"tool_use","id":"toolu_1","name":"list_notes","input":{"limit":5}}],
				"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":31,"output_tokens":9}}`,
			text: `{"id":"msg_2","type":"message","role":"assistant","model":"claude-test",
				"content":[{"type":"text","text":"You have one note."}],
				"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":40,"output_tokens":6}}`,
			truncated: `{"id":"msg_3","type":"message","role":"assistant","model":"claude-test",
				"content":[{"type":"text","text":"You have one no"}],
				"stop_reason":"max_tokens","stop_sequence":null,"usage":{"input_tokens":40,"output_tokens":4}}`,
			malformed: `{"id":"msg_4","type":"message","role":"assistant","model":"claude-test",
				"content":[{"type":"tool_use","id":"toolu_2","name":"list_notes","input":"{\"limit\":"}],
				"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`,
			errBody: func(msg string) string {
				return `{"type":"error","error":{"type":"api_error","message":"` + msg + `"}}`
			},
			wantToolCall: Response{Content: "Listing.", StopReason: StopToolUse, RawStopReason: "tool_use",
				ToolCalls: []ToolCall{{ID: "toolu_1", Name: "list_notes", Arguments: json.RawMessage(`{"limit":5}`)}},
				Usage:     Usage{InputTokens: 31, OutputTokens: 9}},
			wantText: Response{Content: "You have one note.", StopReason: StopEnd, RawStopReason: "end_turn",
				Usage: Usage{InputTokens: 40, OutputTokens: 6}},
			wantTruncated: Response{Content: "You have one no", StopReason: StopMaxTokens, RawStopReason: "max_tokens",
				Truncated: true, Usage: Usage{InputTokens: 40, OutputTokens: 4}},
			wantMalformed: Response{StopReason: StopToolUse, RawStopReason: "tool_use", Usage: Usage{InputTokens: 1, OutputTokens: 1},
				ToolCalls: []ToolCall{{ID: "toolu_2", Name: "list_notes", Arguments: json.RawMessage(`"{\"limit\":"`), ParseError: "arguments are not a JSON object"}}},
		},
		{
			name: "openai", spec: "openai:gpt-4o-mini", authHeader: "Authorization", path: "/v1/chat/completions",
			baseURL: func(s string) string { return s + "/v1" },
			toolCall: `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-4o-mini",
				"choices":[{"index":0,"message":{"role":"assistant","content":"Listing.","refusal":null,
				"tool_calls":[{"id":"call_1","type":"function","function":{"name":"list_notes","arguments":"{\"limit\":5}"}}]},
				"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":31,"completion_tokens":9,"total_tokens":40}}`,
			text: `{"id":"chatcmpl-2","object":"chat.completion","created":1700000001,"model":"gpt-4o-mini",
				"choices":[{"index":0,"message":{"role":"assistant","content":"You have one note.","refusal":null},
				"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":40,"completion_tokens":6,"total_tokens":46}}`,
			truncated: `{"id":"chatcmpl-3","object":"chat.completion","created":1700000002,"model":"gpt-4o-mini",
				"choices":[{"index":0,"message":{"role":"assistant","content":"You have one no","refusal":null},
				"logprobs":null,"finish_reason":"length"}],"usage":{"prompt_tokens":40,"completion_tokens":4,"total_tokens":44}}`,
			malformed: `{"id":"chatcmpl-4","object":"chat.completion","created":1700000003,"model":"gpt-4o-mini",
				"choices":[{"index":0,"message":{"role":"assistant","content":null,
				"tool_calls":[{"id":"call_2","type":"function","function":{"name":"list_notes","arguments":"{\"limit\":"}}]},
				"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
			errBody: func(msg string) string {
				return `{"error":{"message":"` + msg + `","type":"server_error","param":null,"code":null}}`
			},
			wantToolCall: Response{Content: "Listing.", StopReason: StopToolUse, RawStopReason: "tool_calls", TemperatureSent: true,
				ToolCalls: []ToolCall{{ID: "call_1", Name: "list_notes", Arguments: json.RawMessage(`{"limit":5}`)}},
				Usage:     Usage{InputTokens: 31, OutputTokens: 9}},
			wantText: Response{Content: "You have one note.", StopReason: StopEnd, RawStopReason: "stop", TemperatureSent: true,
				Usage: Usage{InputTokens: 40, OutputTokens: 6}},
			wantTruncated: Response{Content: "You have one no", StopReason: StopMaxTokens, RawStopReason: "length", TemperatureSent: true,
				Truncated: true, Usage: Usage{InputTokens: 40, OutputTokens: 4}},
			wantMalformed: Response{StopReason: StopToolUse, RawStopReason: "tool_calls", TemperatureSent: true, Usage: Usage{InputTokens: 1, OutputTokens: 1},
				ToolCalls: []ToolCall{{ID: "call_2", Name: "list_notes", Arguments: json.RawMessage(`"{\"limit\":"`), ParseError: "arguments are not valid JSON: unexpected end of JSON input"}}},
		},
		{
			name: "gemini", spec: "gemini:gemini-test", authHeader: "X-Goog-Api-Key", path: "/v1beta/models/gemini-test:generateContent",
			baseURL: func(s string) string { return s + "/" },
			toolCall: `{"candidates":[{"content":{"role":"model","parts":[{"text":"Listing."},
				{"functionCall":{"name":"list_notes","args":{"limit":5}},"thoughtSignature":"c2lnLTE="}]},
				"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":31,"candidatesTokenCount":9,"totalTokenCount":40},"modelVersion":"gemini-test"}`,
			text: `{"candidates":[{"content":{"role":"model","parts":[{"text":"You have one note."}]},
				"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":6,"totalTokenCount":46}}`,
			truncated: `{"candidates":[{"content":{"role":"model","parts":[{"text":"You have one no"}]},
				"finishReason":"MAX_TOKENS","index":0}],"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":4,"totalTokenCount":44}}`,
			// Gemini validates call arguments itself and reports a broken
			// call as a finish reason rather than handing out bad JSON.
			malformed: `{"candidates":[{"content":{"role":"model","parts":[]},"finishReason":"MALFORMED_FUNCTION_CALL","index":0}],
				"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`,
			errBody: func(msg string) string {
				return `{"error":{"code":500,"message":"` + msg + `","status":"INTERNAL"}}`
			},
			wantToolCall: Response{Content: "Listing.", StopReason: StopToolUse, RawStopReason: "STOP", TemperatureSent: true,
				ToolCalls: []ToolCall{{ID: "gemini-call-1", Name: "list_notes", Arguments: json.RawMessage(`{"limit":5}`)}},
				Usage:     Usage{InputTokens: 31, OutputTokens: 9},
				Raw:       json.RawMessage(`{"parts":[{"text":"Listing."},{"functionCall":{"args":{"limit":5},"name":"list_notes"},"thoughtSignature":"c2lnLTE="}],"role":"model"}`)},
			wantText: Response{Content: "You have one note.", StopReason: StopEnd, RawStopReason: "STOP", TemperatureSent: true,
				Usage: Usage{InputTokens: 40, OutputTokens: 6},
				Raw:   json.RawMessage(`{"parts":[{"text":"You have one note."}],"role":"model"}`)},
			wantTruncated: Response{Content: "You have one no", StopReason: StopMaxTokens, RawStopReason: "MAX_TOKENS", TemperatureSent: true,
				Truncated: true, Usage: Usage{InputTokens: 40, OutputTokens: 4},
				Raw: json.RawMessage(`{"parts":[{"text":"You have one no"}],"role":"model"}`)},
			wantMalformed: Response{StopReason: StopOther, RawStopReason: "MALFORMED_FUNCTION_CALL", TemperatureSent: true,
				Usage: Usage{InputTokens: 1, OutputTokens: 1}, Raw: json.RawMessage(`{"role":"model"}`)},
		},
	}
}

// geminiDropped is what the Gemini adapter must report for sampleSchema.
var geminiDropped = []string{
	"gemini: tools/add_note/inputSchema/$defs/tag/examples",
	"gemini: tools/add_note/inputSchema/$schema",
	"gemini: tools/add_note/inputSchema/properties/body/pattern",
	"gemini: tools/add_note/inputSchema/properties/kind/const (rewritten as enum)",
	"gemini: tools/add_note/inputSchema/properties/title/default",
	"gemini: tools/add_note/inputSchema/properties/title/minLength",
}

func newTestModel(t *testing.T, w wire, f *fakeProvider, sl *sleepLog, mutate func(*Options)) Model {
	t.Helper()
	opts := Options{
		Getenv:     testEnv,
		BaseURL:    w.baseURL(f.URL()),
		MaxRetries: 2,
		Backoff:    testBackoff,
		Sleep:      sl.sleep,
	}
	if mutate != nil {
		mutate(&opts)
	}
	m, err := New(w.spec, opts)
	if err != nil {
		t.Fatalf("New(%q): %v", w.spec, err)
	}
	return m
}

func TestProvidersWire(t *testing.T) {
	for _, w := range wires() {
		cases := []struct {
			name      string
			script    []reply
			want      *Response
			wantErr   error
			errHas    string
			wantWaits []time.Duration
			wantCalls int
		}{
			{name: "tool call", script: []reply{{status: 200, body: w.toolCall}}, want: &w.wantToolCall, wantCalls: 1},
			{name: "final text", script: []reply{{status: 200, body: w.text}}, want: &w.wantText, wantCalls: 1},
			{name: "truncated", script: []reply{{status: 200, body: w.truncated}}, want: &w.wantTruncated, wantCalls: 1},
			{name: "malformed arguments", script: []reply{{status: 200, body: w.malformed}}, want: &w.wantMalformed, wantCalls: 1},
			{name: "429 honours Retry-After seconds",
				script: []reply{{status: 429, header: map[string]string{"Retry-After": "7"}, body: w.errBody("slow down")}, {status: 200, body: w.text}},
				want:   &w.wantText, wantWaits: []time.Duration{7 * time.Second}, wantCalls: 2},
			{name: "huge Retry-After is capped",
				script: []reply{{status: 429, header: map[string]string{"Retry-After": "99999"}, body: w.errBody("slow")}, {status: 200, body: w.text}},
				want:   &w.wantText, wantWaits: []time.Duration{DefaultMaxWait}, wantCalls: 2},
			{name: "500 then success uses backoff",
				script: []reply{{status: 500, body: w.errBody("boom")}, {status: 200, body: w.text}},
				want:   &w.wantText, wantWaits: []time.Duration{3 * time.Second}, wantCalls: 2},
			{name: "retries exhausted",
				script:  []reply{{status: 503, body: w.errBody("overloaded")}},
				wantErr: ErrRetriesExhausted, errHas: "overloaded", wantWaits: []time.Duration{3 * time.Second, 6 * time.Second}, wantCalls: 3},
			{name: "undecodable 200 is not retried",
				script: []reply{{status: 200, body: `{"choices": nope`}},
				errHas: "", wantCalls: 1},
			{name: "400 is not retried",
				script: []reply{{status: 400, body: w.errBody("bad schema " + sentinelKey)}},
				errHas: "bad schema [REDACTED]", wantCalls: 1},
		}
		for _, tc := range cases {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				f := newFakeProvider(t, w.authHeader, tc.script...)
				sl := &sleepLog{}
				var log strings.Builder
				m := newTestModel(t, w, f, sl, func(o *Options) { o.Log = &log })
				got, err := m.Complete(context.Background(), sampleRequest())
				assertNoKey(t, "log", log.String())
				reqs := f.requests()
				if len(reqs) != tc.wantCalls {
					t.Errorf("server saw %d requests, want %d", len(reqs), tc.wantCalls)
				}
				for _, r := range reqs {
					if r.Path != w.path {
						t.Errorf("request path %q, want %q", r.Path, w.path)
					}
				}
				if !reflect.DeepEqual(sl.waits(), tc.wantWaits) {
					t.Errorf("waits = %v, want %v", sl.waits(), tc.wantWaits)
				}
				if tc.want == nil {
					if err == nil {
						t.Fatalf("no error; response %+v", got)
					}
					assertNoKey(t, "error", err.Error())
					if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
						t.Errorf("error %q does not wrap %v", err, tc.wantErr)
					}
					if tc.wantErr == nil && errors.Is(err, ErrRetriesExhausted) {
						t.Errorf("error %q wraps ErrRetriesExhausted", err)
					}
					if !strings.Contains(err.Error(), tc.errHas) || !strings.Contains(err.Error(), w.spec) {
						t.Errorf("error %q should name %q and contain %q", err, w.spec, tc.errHas)
					}
					return
				}
				if err != nil {
					t.Fatalf("Complete: %v", err)
				}
				want := *tc.want
				if w.name == "gemini" {
					want.SchemaDropped = geminiDropped
				}
				assertResponse(t, got, want)
				if _, err := json.Marshal(got); err != nil {
					t.Errorf("response does not marshal: %v", err)
				}
			})
		}
	}
}

// assertResponse compares responses with JSON fields compared as JSON.
func assertResponse(t *testing.T, got, want Response) {
	t.Helper()
	gj, _ := json.Marshal(canonResponse(got))
	wj, _ := json.Marshal(canonResponse(want))
	if string(gj) != string(wj) {
		t.Errorf("response mismatch\n got: %s\nwant: %s", gj, wj)
	}
}

func canonResponse(r Response) Response {
	c := func(m json.RawMessage) json.RawMessage {
		if len(m) == 0 {
			return nil
		}
		return json.RawMessage(canonicalJSON(m))
	}
	r.Raw = c(r.Raw)
	calls := make([]ToolCall, len(r.ToolCalls))
	for i, tc := range r.ToolCalls {
		tc.Arguments = c(tc.Arguments)
		calls[i] = tc
	}
	r.ToolCalls = calls
	return r
}

// TestProvidersRequestGolden pins the request each provider receives for
// the sample conversation: the MCP schema reaches Anthropic and OpenAI
// byte for byte and Gemini with the documented drops only.
func TestProvidersRequestGolden(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.name, func(t *testing.T) {
			f := newFakeProvider(t, w.authHeader, reply{status: 200, body: w.text})
			m := newTestModel(t, w, f, &sleepLog{}, nil)
			if _, err := m.Complete(context.Background(), sampleRequest()); err != nil {
				t.Fatal(err)
			}
			reqs := f.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			checkGolden(t, w.name+"_request.golden.json", reqs[0].Body)
			if w.name == "gemini" {
				return
			}
			// Schema pass-through: the tool schema in the body must equal
			// the MCP input schema exactly.
			var body map[string]any
			_ = json.Unmarshal(reqs[0].Body, &body)
			tool := body["tools"].([]any)[0].(map[string]any)
			var schema any
			if w.name == "anthropic" {
				schema = tool["input_schema"]
			} else {
				schema = tool["function"].(map[string]any)["parameters"]
			}
			if !reflect.DeepEqual(schema, any(sampleSchema())) {
				t.Errorf("schema changed on the way:\n got %v\nwant %v", schema, sampleSchema())
			}
		})
	}
}

func TestAttemptTimeoutIsRetried(t *testing.T) {
	w := wires()[1]
	f := newFakeProvider(t, w.authHeader, reply{hang: true})
	sl := &sleepLog{}
	m := newTestModel(t, w, f, sl, func(o *Options) {
		// The server never answers, so each attempt ends at its deadline;
		// the deadline is long enough for the request to reach the server
		// on any machine, so both attempts are counted.
		o.AttemptTimeout = time.Second
		o.MaxRetries = 1
	})
	_, err := m.Complete(context.Background(), sampleRequest())
	if !errors.Is(err, ErrRetriesExhausted) {
		t.Fatalf("err = %v, want ErrRetriesExhausted", err)
	}
	if n := len(f.requests()); n != 2 {
		t.Errorf("%d attempts, want 2", n)
	}
}

func TestCancelledContextStopsRetrying(t *testing.T) {
	w := wires()[1]
	f := newFakeProvider(t, w.authHeader, reply{status: 429, body: w.errBody("slow")})
	ctx, cancel := context.WithCancel(context.Background())
	m := newTestModel(t, w, f, &sleepLog{}, func(o *Options) {
		o.Sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	})
	_, err := m.Complete(ctx, sampleRequest())
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrRetriesExhausted) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestOpenAITemperature(t *testing.T) {
	text := wires()[1].text
	cases := []struct {
		name      string
		spec      string
		script    []reply
		wantSent  bool
		wantCalls int
		wantTemp  []bool // per request: was temperature in the body
		wantField string // max-tokens field name
	}{
		{name: "sent", spec: "openai:gpt-4o-mini", script: []reply{{status: 200, body: text}},
			wantSent: true, wantCalls: 1, wantTemp: []bool{true}, wantField: "max_completion_tokens"},
		{name: "reasoning model never gets one", spec: "openai:o3-mini", script: []reply{{status: 200, body: text}},
			wantSent: false, wantCalls: 1, wantTemp: []bool{false}, wantField: "max_completion_tokens"},
		{name: "rejected then dropped", spec: "openai:gpt-odd",
			script: []reply{{status: 400, body: `{"error":{"message":"Unsupported value: 'temperature' does not support 0 with this model.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`},
				{status: 200, body: text}},
			wantSent: false, wantCalls: 2, wantTemp: []bool{true, false}, wantField: "max_completion_tokens"},
		{name: "compatible servers get max_tokens", spec: "ollama:llama3.2", script: []reply{{status: 200, body: text}},
			wantSent: true, wantCalls: 1, wantTemp: []bool{true}, wantField: "max_tokens"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeProvider(t, "Authorization", tc.script...)
			m, err := New(tc.spec, Options{Getenv: testEnv, BaseURL: f.URL() + "/v1", Sleep: (&sleepLog{}).sleep})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := m.Complete(context.Background(), sampleRequest())
			if err != nil {
				t.Fatal(err)
			}
			if resp.TemperatureSent != tc.wantSent {
				t.Errorf("TemperatureSent = %v, want %v", resp.TemperatureSent, tc.wantSent)
			}
			reqs := f.requests()
			if len(reqs) != tc.wantCalls {
				t.Fatalf("%d requests, want %d", len(reqs), tc.wantCalls)
			}
			for i, r := range reqs {
				var body map[string]any
				_ = json.Unmarshal(r.Body, &body)
				if _, ok := body["temperature"]; ok != tc.wantTemp[i] {
					t.Errorf("request %d temperature present = %v, want %v", i, ok, tc.wantTemp[i])
				}
				if _, ok := body[tc.wantField]; !ok {
					t.Errorf("request %d lacks %s: %s", i, tc.wantField, r.Body)
				}
			}
		})
	}
}

// TestGeminiEchoesThoughtSignature checks that the model turn goes back
// verbatim (thought signature included) and that ids this package made up
// never reach the API.
func TestGeminiEchoesThoughtSignature(t *testing.T) {
	w := wires()[2]
	f := newFakeProvider(t, w.authHeader, reply{status: 200, body: w.toolCall}, reply{status: 200, body: w.text})
	m := newTestModel(t, w, f, &sleepLog{}, nil)
	req := sampleRequest()
	r1, err := m.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	req.Messages = append(req.Messages,
		Message{Role: RoleAssistant, Content: r1.Content, ToolCalls: r1.ToolCalls, Raw: r1.Raw},
		Message{Role: RoleTool, ToolCallID: r1.ToolCalls[0].ID, Content: "denied", IsError: true})
	if _, err := m.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Contents []struct {
			Role  string           `json:"role"`
			Parts []map[string]any `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(f.requests()[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	n := len(body.Contents)
	model, results := body.Contents[n-2], body.Contents[n-1]
	if model.Role != "model" || model.Parts[1]["thoughtSignature"] != "c2lnLTE=" {
		t.Errorf("model turn not echoed verbatim: %+v", model)
	}
	fr, _ := results.Parts[0]["functionResponse"].(map[string]any)
	if fr == nil || fr["name"] != "list_notes" || fr["id"] != nil {
		t.Errorf("function response = %v, want name list_notes and no synthetic id", results.Parts[0])
	}
	if resp, _ := fr["response"].(map[string]any); resp["error"] != "denied" {
		t.Errorf("error result should use the documented \"error\" key: %v", fr["response"])
	}
}

// TestAnthropicToolResultError checks is_error reaches the API.
func TestAnthropicToolResultError(t *testing.T) {
	w := wires()[0]
	f := newFakeProvider(t, w.authHeader, reply{status: 200, body: w.text})
	m := newTestModel(t, w, f, &sleepLog{}, nil)
	req := sampleRequest()
	req.Messages[2].IsError = true
	// Large enough that the SDK would demand streaming without an
	// explicit request timeout.
	req.MaxTokens = 64000
	if _, err := m.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(f.requests()[0].Body), `"is_error":true`) {
		t.Errorf("is_error not sent: %s", f.requests()[0].Body)
	}
}

func TestOpenAICompatibleUsesSpecURL(t *testing.T) {
	f := newFakeProvider(t, "Authorization", reply{status: 200, body: wires()[1].text})
	m, err := New("openai-compatible:qwen-test@"+f.URL()+"/compat/v1", Options{Getenv: testEnv})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Complete(context.Background(), sampleRequest()); err != nil {
		t.Fatal(err)
	}
	r := f.requests()[0]
	if r.Path != "/compat/v1/chat/completions" {
		t.Errorf("path = %q", r.Path)
	}
	var body map[string]any
	_ = json.Unmarshal(r.Body, &body)
	if body["model"] != "qwen-test" {
		t.Errorf("model = %v", body["model"])
	}
}

func TestOversizedResponseIsCut(t *testing.T) {
	old := maxResponseBytes
	maxResponseBytes = 1024
	t.Cleanup(func() { maxResponseBytes = old })
	w := wires()[1]
	huge := `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"` + strings.Repeat("A", 4096) + `"},"finish_reason":"stop"}]}`
	f := newFakeProvider(t, w.authHeader, reply{status: 200, body: huge})
	m := newTestModel(t, w, f, &sleepLog{}, nil)
	_, err := m.Complete(context.Background(), sampleRequest())
	if err == nil || !strings.Contains(err.Error(), "size limit") {
		t.Fatalf("err = %v, want size limit error", err)
	}
	if n := len(f.requests()); n != 1 {
		t.Errorf("%d requests, want 1 (a 200 is not retried)", n)
	}
}

// TestOpenAIBaseURLFromGetenv checks OPENAI_BASE_URL is read through
// Options.Getenv, and that the process environment cannot redirect it.
func TestOpenAIBaseURLFromGetenv(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/not-here")
	f := newFakeProvider(t, "Authorization", reply{status: 200, body: wires()[1].text})
	m, err := New("openai:gpt-4o-mini", Options{Getenv: func(k string) string {
		if k == "OPENAI_BASE_URL" {
			return f.URL() + "/v1"
		}
		return testEnv(k)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Complete(context.Background(), sampleRequest()); err != nil {
		t.Fatal(err)
	}
	if n := len(f.requests()); n != 1 {
		t.Fatalf("%d requests reached the Getenv base URL", n)
	}
}

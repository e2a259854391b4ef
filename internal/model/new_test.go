package model

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseSpec(t *testing.T) {
	cases := []struct {
		spec                 string
		provider, model, url string
		bad                  bool
	}{
		{spec: "anthropic:claude-sonnet-4-5", provider: "anthropic", model: "claude-sonnet-4-5"},
		{spec: "openai:gpt-4o-mini", provider: "openai", model: "gpt-4o-mini"},
		{spec: "deepseek:deepseek-chat", provider: "deepseek", model: "deepseek-chat"},
		{spec: "ollama:llama3.2:3b", provider: "ollama", model: "llama3.2:3b"},
		{spec: "gemini:gemini-2.5-flash", provider: "gemini", model: "gemini-2.5-flash"},
		{spec: "openai-compatible:qwen@http://127.0.0.1:8000/v1", provider: "openai-compatible", model: "qwen", url: "http://127.0.0.1:8000/v1"},
		{spec: "replay:results/r1/cassettes", provider: "replay", model: "results/r1/cassettes"},
		{spec: "control:reference", provider: "control", model: "reference"},
		{spec: "openai-compatible:qwen", bad: true},
		{spec: "openai-compatible:qwen@ftp://x.invalid", bad: true},
		{spec: "openai-compatible:@http://127.0.0.1", bad: true},
		{spec: "mystery:model", bad: true},
		{spec: "openai:", bad: true},
		{spec: "gpt-4o", bad: true},
		{spec: "", bad: true},
	}
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			p, m, u, err := ParseSpec(tc.spec)
			if tc.bad {
				if !errors.Is(err, ErrBadSpec) {
					t.Fatalf("err = %v, want ErrBadSpec", err)
				}
				return
			}
			if err != nil || p != tc.provider || m != tc.model || u != tc.url {
				t.Fatalf("ParseSpec = %q %q %q %v", p, m, u, err)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	empty := func(string) string { return "" }
	cases := []struct {
		spec    string
		wantErr error
		errHas  string
	}{
		{"control:reference", ErrBadSpec, "harness"},
		{"anthropic:claude-test", ErrNoKey, "ANTHROPIC_API_KEY"},
		{"openai:gpt-4o", ErrNoKey, "OPENAI_API_KEY"},
		{"deepseek:deepseek-chat", ErrNoKey, "DEEPSEEK_API_KEY"},
		{"gemini:gemini-test", ErrNoKey, "GEMINI_API_KEY or GOOGLE_API_KEY"},
		{"bogus:x", ErrBadSpec, "unknown provider"},
	}
	for _, tc := range cases {
		t.Run(tc.spec, func(t *testing.T) {
			_, err := New(tc.spec, Options{Getenv: empty})
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.errHas) {
				t.Fatalf("err = %v, want %v mentioning %q", err, tc.wantErr, tc.errHas)
			}
		})
	}
	// Local servers need no key.
	for _, spec := range []string{"ollama:llama3.2", "openai-compatible:m@http://127.0.0.1:1/v1"} {
		if _, err := New(spec, Options{Getenv: empty}); err != nil {
			t.Errorf("New(%q) without key: %v", spec, err)
		}
	}
	// GOOGLE_API_KEY is the fallback for Gemini.
	if _, err := New("gemini:g", Options{Getenv: func(k string) string {
		if k == "GOOGLE_API_KEY" {
			return sentinelKey
		}
		return ""
	}}); err != nil {
		t.Errorf("gemini with GOOGLE_API_KEY: %v", err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"7", 7 * time.Second, true},
		{"0", 0, true},
		{"1.5", 1500 * time.Millisecond, true},
		{"-3", 0, false},
		{"soon", 0, false},
		{"Fri, 02 Jan 2026 03:04:35 GMT", 30 * time.Second, true},
		{"Fri, 02 Jan 2026 03:00:00 GMT", 0, true}, // in the past
	}
	for _, tc := range cases {
		got, ok := parseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("parseRetryAfter(%q) = %v,%v want %v,%v", tc.in, got, ok, tc.want, tc.wantOK)
		}
	}
}

func TestParseArguments(t *testing.T) {
	cases := []struct {
		raw      string
		wantArgs string
		wantErr  string
	}{
		{`{"a":1}`, `{"a":1}`, ""},
		{` {"a":1} `, `{"a":1}`, ""},
		{``, `{}`, ""},
		{`{"a":`, `"{\"a\":"`, "arguments are not valid JSON: unexpected end of JSON input"},
		{`[1,2]`, `[1,2]`, "arguments are not a JSON object"},
		{`not json`, `"not json"`, "arguments are not valid JSON: invalid character 'o' in literal null (expecting 'u')"},
	}
	for _, tc := range cases {
		args, perr := parseArguments(tc.raw)
		if string(args) != tc.wantArgs || perr != tc.wantErr {
			t.Errorf("parseArguments(%q) = %s, %q; want %s, %q", tc.raw, args, perr, tc.wantArgs, tc.wantErr)
		}
		if _, err := json.Marshal(ToolCall{Arguments: args}); err != nil {
			t.Errorf("ToolCall with %q does not marshal: %v", tc.raw, err)
		}
		// Echoed back to a string-argument provider, the text is the
		// model's own.
		if tc.raw != "" && argumentsText(ToolCall{Arguments: args, ParseError: perr}) != strings.TrimSpace(tc.raw) {
			t.Errorf("argumentsText round trip of %q = %q", tc.raw, argumentsText(ToolCall{Arguments: args, ParseError: perr}))
		}
	}
}

func TestGeminiSchema(t *testing.T) {
	cases := []struct {
		name        string
		in          string
		want        string
		wantDropped []string
	}{
		{"supported passes unchanged",
			`{"type":"object","properties":{"a":{"type":"integer","minimum":0,"maximum":9},"b":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["a"],"additionalProperties":false}`,
			`{"type":"object","properties":{"a":{"type":"integer","minimum":0,"maximum":9},"b":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["a"],"additionalProperties":false}`,
			nil},
		{"property named like a keyword is kept",
			`{"type":"object","properties":{"default":{"type":"string"},"pattern":{"type":"string","pattern":"x"}}}`,
			`{"type":"object","properties":{"default":{"type":"string"},"pattern":{"type":"string"}}}`,
			[]string{"p/properties/pattern/pattern"}},
		{"ref siblings dropped",
			`{"type":"object","properties":{"x":{"$ref":"#/$defs/t","description":"d"}},"$defs":{"t":{"type":"string"}}}`,
			`{"type":"object","properties":{"x":{"$ref":"#/$defs/t"}},"$defs":{"t":{"type":"string"}}}`,
			[]string{"p/properties/x/description (sibling of $ref)"}},
		{"boolean enum dropped, nested in anyOf",
			`{"type":"object","properties":{"x":{"oneOf":[{"enum":[true,false]},{"type":"string","format":"date","not":{}}]}}}`,
			`{"type":"object","properties":{"x":{"oneOf":[{},{"type":"string","format":"date"}]}}}`,
			[]string{"p/properties/x/oneOf/0/enum (non-string/number values)", "p/properties/x/oneOf/1/not"}},
		{"const next to enum is dropped, not rewritten",
			`{"type":"object","properties":{"x":{"const":"a","enum":["a","b"]}}}`,
			`{"type":"object","properties":{"x":{"enum":["a","b"]}}}`,
			[]string{"p/properties/x/const"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var in, want any
			_ = json.Unmarshal([]byte(tc.in), &in)
			_ = json.Unmarshal([]byte(tc.want), &want)
			got, dropped := geminiSchema("p", in.(map[string]any))
			if !reflect.DeepEqual(any(got), want) {
				gj, _ := json.Marshal(got)
				t.Errorf("schema = %s, want %s", gj, tc.want)
			}
			if !reflect.DeepEqual(dropped, tc.wantDropped) {
				t.Errorf("dropped = %q, want %q", dropped, tc.wantDropped)
			}
		})
	}
}

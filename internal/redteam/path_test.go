package redteam

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestParsePathErrors(t *testing.T) {
	for _, p := range []string{
		"", "tool_calls.", "tool_calls[", "tool_calls[]", "tool_calls[-1]", "tool_calls[a]", "tool_calls[1.5]",
		"tool_calls..name", "tool_calls name", "[0]", ".final_response", "toolcalls[0]", "final_response/x", "tool_calls[0]name",
	} {
		if _, err := ParsePath(p); !errors.Is(err, ErrPath) {
			t.Errorf("ParsePath(%q) err = %v, want ErrPath", p, err)
		}
	}
}

func TestPathResolve(t *testing.T) {
	var doc any
	if err := json.Unmarshal([]byte(matcherDoc), &doc); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		want []any
	}{
		{"tool_calls[0].name", []any{"read_note"}},
		{"tool_calls[1]", []any{map[string]any{"server": "attacker", "name": "export_data", "arguments": map[string]any{"data": "CANARY-1", "label": "backup"}}}},
		{"tool_calls[0].arguments.items[2].id", []any{"x-3"}},
		{"tool_calls[*].name", []any{"read_note", "export_data"}},
		{"tool_calls[*].arguments.items[*].id", []any{1.0, 2.0, "x-3"}},
		{"tool_results[*].content", []any{"Hello TEAM"}},
		{"final_response", []any{"Done: the note says hello."}},
		{"blocked_calls", []any{[]any{}}},
		{"tool_calls[2]", nil},
		{"tool_calls[0].arguments.missing", nil},
		{"final_response.x", nil},
		{"tool_calls.name", nil},
	}
	for _, tc := range cases {
		p, err := ParsePath(tc.path)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if got := p.Resolve(doc); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s = %#v, want %#v", tc.path, got, tc.want)
		}
	}
}

// FuzzParsePath: any input either parses (and then resolves without
// panicking and prints as written) or is a clean ErrPath.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"tool_calls[0].name", "tool_calls[*].arguments.items[2].id", "final_response", "tool_calls[", "x.y", "blocked_calls[*]"} {
		f.Add(s)
	}
	var doc any
	if err := json.Unmarshal([]byte(matcherDoc), &doc); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			if !errors.Is(err, ErrPath) {
				t.Fatalf("%q: error %v is not ErrPath", s, err)
			}
			return
		}
		if p.String() != s {
			t.Fatalf("String() = %q, want %q", p.String(), s)
		}
		_ = p.Resolve(doc)
	})
}

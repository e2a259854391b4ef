package catalog

import (
	"errors"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"empty", ``, "unexpected end of JSON input"},
		{"syntax", "{\"tools\": [\n  {\"name\": \"a\" \"x\": 1}\n]}", "f.json:2:16 (byte 27)"},
		{"type", `{"tools": [{"name": 5}]}`, "f.json:1:"},
		{"neither", `{"other": []}`, `expected an object with "tools"`},
		{"missing name", `{"tools": [{"description": "x"}]}`, `tools[0]: missing "name"`},
		{"server missing name", `{"servers": [{"tools": []}]}`, `servers[0]: missing "name"`},
		{"trailing garbage", `{"tools": []} {}`, "f.json:1:"},
		{"truncated", `{"tools": [{"name": "a"`, "f.json:1:12 (byte 11): unexpected end of JSON input: the object that starts here is never closed"},
		// A string left open runs to the end of the file: the error must
		// point where it starts, not where the file ends.
		{"unterminated string", "{\"tools\": [{\"name\": \"a\", \"description\": \"" + strings.Repeat("x", 1<<20), "f.json:1:41 (byte 40): unexpected end of JSON input: the string that starts here"},
		{"top-level array", `[{"name": "a"}]`, `f.json:1:1 (byte 0): the top level is a JSON array, but an object belongs there ({"tools": [...]}`},
		{"schema array", `{"tools": [{"name": "a", "inputSchema": [1]}]}`, "f.json:1:41 (byte 40): inputSchema is a JSON array, but an object belongs there"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.json", []byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %.300v, want it to contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "Go ") || strings.Contains(err.Error(), "map[") {
				t.Errorf("error %v speaks of Go types", err)
			}
			if !errors.Is(err, ErrInput) {
				t.Errorf("error %v is not ErrInput", err)
			}
		})
	}
}

func TestCanonicalIgnoresOrder(t *testing.T) {
	a := `{"tools":[{"name":"t","description":"d","inputSchema":{"type":"object","required":["a","b"],"properties":{"a":{"type":"string"},"b":{"type":"number","default":1.0}}}}]}`
	b := `{"tools":[{"inputSchema":{"properties":{"b":{"default":1,"type":"number"},"a":{"type":"string"}},"required":["b","a"],"type":"object"},"description":"d","name":"t"}]}`
	ca, err := Parse("a", []byte(a))
	if err != nil {
		t.Fatal(err)
	}
	cb, err := Parse("b", []byte(b))
	if err != nil {
		t.Fatal(err)
	}
	ta, tb := ca.Servers[0].Tools[0], cb.Servers[0].Tools[0]
	if Fingerprint(ta) != Fingerprint(tb) {
		t.Errorf("fingerprints differ:\n%s\n%s", Canonical(ta), Canonical(tb))
	}
	if d := Diff(ta, tb); len(d) != 0 {
		t.Errorf("diff of equivalent tools: %v", d)
	}
	tb.Description = "d "
	if Fingerprint(ta) == Fingerprint(tb) {
		t.Error("whitespace inside text must change the fingerprint")
	}
	renamed := ta
	renamed.Name = "u"
	if BodyFingerprint(renamed) != BodyFingerprint(ta) || Fingerprint(renamed) == Fingerprint(ta) {
		t.Error("body fingerprint must ignore the name, full fingerprint must not")
	}
}

func TestDiff(t *testing.T) {
	old := Tool{Name: "t", Description: "a", InputSchema: map[string]any{"type": "object", "required": []any{"x"},
		"properties": map[string]any{"x": map[string]any{"type": "string"}}}}
	cur := Tool{Name: "t", Description: "b", InputSchema: map[string]any{"type": "object", "required": []any{"y", "x"},
		"properties": map[string]any{"x": map[string]any{"type": "string"}, "y": map[string]any{"type": "string"}}}}
	var got []string
	for _, c := range Diff(old, cur) {
		got = append(got, c.String())
	}
	want := []string{`~ description: "a" → "b"`, `+ inputSchema/properties/y: {"type":"string"}`, `+ inputSchema/required: "y"`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestPositions(t *testing.T) {
	doc := []byte("{\"tools\": [\n  {\"name\": \"a\",\n   \"inputSchema\": {\"properties\": {\"x/y\": {\"description\": \"d\"}}}}\n]}")
	pos, err := Positions(doc)
	if err != nil {
		t.Fatal(err)
	}
	for ptr, wantLine := range map[string]int{"": 1, "/tools/0": 2, "/tools/0/name": 2, "/tools/0/inputSchema/properties/x~1y/description": 3} {
		off, ok := pos[ptr]
		if !ok {
			t.Errorf("no position for %q", ptr)
			continue
		}
		if line, _ := LineCol(doc, off); line != wantLine {
			t.Errorf("%q at line %d, want %d", ptr, line, wantLine)
		}
	}
	if _, err := Positions([]byte(`{"a": [1, 2`)); err == nil {
		t.Error("truncated document must fail")
	}
}

// FuzzParse: no input crashes the parser or hangs it, and anything it
// accepts can be fingerprinted, diffed and located.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"tools":[{"name":"a","description":"b","inputSchema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}]}`,
		`{"servers":[{"name":"s","instructions":"i","tools":[{"name":"a","annotations":{"readOnlyHint":true}}]}]}`,
		`{"tools":[{"name":"a","inputSchema":{"$defs":{"d":{"enum":["x",1,null,true]}},"items":[{"default":1e400}]}}]}`,
		`{"tools":[]}`, `[]`, `{"tools":[{"name":"a"}]} x`, "{\"tools\":[{\"name\":\"\u202e\"}]}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("fuzz.json", data)
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("error %v is not ErrInput", err)
			}
			return
		}
		for _, s := range c.Servers {
			for _, tool := range s.Tools {
				if Fingerprint(tool) == "" {
					t.Fatal("empty fingerprint")
				}
				if len(Diff(tool, tool)) != 0 {
					t.Fatal("a tool differs from itself")
				}
			}
		}
		if _, err := Positions(data); err != nil {
			t.Fatalf("accepted document has no positions: %v", err)
		}
	})
}

package trial

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzParseRecord checks the hand-written scanner against encoding/json:
// it must never panic, must never accept a line that is not valid JSON,
// and must read the same keys and labels as the standard decoder.
func FuzzParseRecord(f *testing.F) {
	msg := "boom"
	for _, r := range []Record{
		{Trial: Trial{ID: "t1", Model: "openai:m", Task: "T1", AttackClass: "tool_description", PayloadID: "p1", Register: "imperative", Objective: "exfil", Arm: "none", Seed: 3}, Realized: true, Utility: true},
		{Trial: Trial{ID: "t2", Model: "control:reference", Task: "T\"2", AttackClass: "none", PayloadID: "none", Register: "none", Objective: "none", Arm: "pinning", Seed: -1}, Control: true, Error: &msg},
	} {
		b, _ := json.Marshal(r)
		f.Add(b)
	}
	f.Add([]byte(`{"model":"a\u00e9","extra":[{"x":"]"}],"seed":1e3}`))
	f.Add([]byte(`{"a":tru}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var r View
		err := parseView(line, &r)
		if err != nil {
			return
		}
		if !json.Valid(line) {
			t.Fatalf("scanner accepted invalid JSON %q", line)
		}
		if !utf8.Valid(line) {
			// encoding/json rewrites invalid UTF-8 to U+FFFD while the
			// scanner keeps the bytes; both are consistent ids, so only
			// valid text is compared.
			return
		}
		var std struct {
			Model    string  `json:"model"`
			Task     string  `json:"task"`
			Arm      string  `json:"arm"`
			Utility  bool    `json:"utility"`
			Realized bool    `json:"realized"`
			Error    *string `json:"error"`
		}
		if err := json.Unmarshal(line, &std); err != nil {
			t.Fatalf("scanner accepted %q that encoding/json rejects: %v", line, err)
		}
		if std.Model != string(r.Model) || std.Task != string(r.Task) || std.Arm != string(r.Arm) ||
			std.Utility != (r.Flags&FlagUtility != 0) || std.Realized != (r.Flags&FlagRealized != 0) || (std.Error != nil) != r.Errored {
			t.Fatalf("scanner read %q differently from encoding/json: %+v vs model=%q task=%q arm=%q flags=%b errored=%v",
				line, std, r.Model, r.Task, r.Arm, r.Flags, r.Errored)
		}
	})
}

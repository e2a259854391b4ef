package catalog

import "testing"

// What a structure walker sees of a text once JSONStrings has passed over
// the strings, and whether the text ends inside one.
func TestJSONStringsSkipsStrings(t *testing.T) {
	cases := []struct {
		name, text, outside string
		open                bool
	}{
		{"no strings", `[1,[2]]`, `[1,[2]]`, false},
		{"object", `{"a":"b","c":[1]}`, `{:,:[1]}`, false},
		{"escaped quote", `["x\"]",1]`, `[,1]`, false},
		{"escaped backslash ends the string", `["x\\",{}]`, `[,{}]`, false},
		{"brackets and comment marks inside", `{"k":"{[// /*"}`, `{:}`, false},
		{"unicode escape", `["\u0022",2]`, `[,2]`, false},
		{"ends inside a string", `{"a":"b`, `{:`, true},
		{"ends after a backslash", `["a\`, `[`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s JSONStrings
			var out []byte
			for i := 0; i < len(tc.text); i++ {
				if !s.Skip(tc.text[i]) {
					out = append(out, tc.text[i])
				}
			}
			if string(out) != tc.outside || s.Open() != tc.open {
				t.Errorf("outside strings %q (open %v), want %q (open %v)", out, s.Open(), tc.outside, tc.open)
			}
		})
	}
}

package catalog

// JSONStrings follows a byte-by-byte walk of a JSON (or JSONC) text and
// tells which bytes belong to strings, so that a walker after structure
// (nesting depth, comments, trailing commas) passes over string contents,
// escaped quotes included, without decoding the text.
type JSONStrings struct{ in, esc bool }

// Skip takes the next byte c of the walk and reports whether it belongs
// to a string: an opening or closing quote, or a byte between them.
func (s *JSONStrings) Skip(c byte) bool {
	if s.in {
		switch {
		case s.esc:
			s.esc = false
		case c == '\\':
			s.esc = true
		case c == '"':
			s.in = false
		}
		return true
	}
	if c == '"' {
		s.in = true
		return true
	}
	return false
}

// Open reports whether the bytes walked so far end inside a string.
func (s *JSONStrings) Open() bool { return s.in }

// Package catalog holds the tool/server model that every other part of
// mcpsec reads: the catalog file format, canonical JSON, full-definition
// fingerprints, and structural diffs between two definitions.
package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
)

// Tool is one MCP tool definition exactly as a server offered it. Schemas
// and annotations are kept as decoded JSON (numbers as json.Number) so that
// nothing the server sent is lost before it is scanned or fingerprinted.
type Tool struct {
	Name         string         `json:"name"`
	Title        string         `json:"title,omitempty"`
	Description  string         `json:"description,omitempty"`
	InputSchema  map[string]any `json:"inputSchema,omitempty"`
	OutputSchema map[string]any `json:"outputSchema,omitempty"`
	Annotations  map[string]any `json:"annotations,omitempty"`
}

// Prompt is a prompt template a server offers; only its text fields matter
// to the scanner.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is one declared argument of a Prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Resource is a resource (or resource template) a server offers.
type Resource struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	URI         string `json:"uri,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// Server is one server's catalog: its identity, optional instructions, and
// what it offers.
type Server struct {
	Name         string     `json:"name"`
	Version      string     `json:"version,omitempty"`
	Instructions string     `json:"instructions,omitempty"`
	Tools        []Tool     `json:"tools"`
	Prompts      []Prompt   `json:"prompts,omitempty"`
	Resources    []Resource `json:"resources,omitempty"`
}

// Catalog is one or more servers' catalogs judged together (cross-server
// rules need them side by side).
type Catalog struct {
	Servers []Server `json:"servers"`
}

// ErrInput marks a malformed catalog; callers map it to exit code 2.
var ErrInput = errors.New("invalid catalog")

// InputError says where in which file a catalog is malformed.
type InputError struct {
	File   string
	Line   int
	Column int
	Offset int64
	Msg    string
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d (byte %d): %s", e.File, e.Line, e.Column, e.Offset, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Unwrap lets errors.Is(err, ErrInput) identify input errors.
func (e *InputError) Unwrap() error { return ErrInput }

// LoadFile reads and parses a catalog file.
func LoadFile(path string) (*Catalog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read catalog: %w", err)
	}
	return Parse(path, data)
}

// Parse accepts either a tools/list result ({"tools":[...]}) or a
// multi-server document ({"servers":[...]}). name labels errors and, for a
// bare tools/list result, becomes the server name.
func Parse(name string, data []byte) (*Catalog, error) {
	var probe map[string]json.RawMessage
	if err := decodeStrict(data, &probe); err != nil {
		return nil, positionError(name, data, err)
	}
	if raw, ok := probe["servers"]; ok {
		var c Catalog
		if err := decodeStrict(raw, &c.Servers); err != nil {
			return nil, positionError(name, data, offsetInto(data, raw, err))
		}
		for i, s := range c.Servers {
			if s.Name == "" {
				return nil, &InputError{File: name, Msg: fmt.Sprintf("servers[%d]: missing \"name\"", i)}
			}
			if err := checkTools(s.Tools); err != nil {
				return nil, &InputError{File: name, Msg: fmt.Sprintf("servers[%d] (%s): %v", i, s.Name, err)}
			}
		}
		return &c, nil
	}
	if raw, ok := probe["tools"]; ok {
		var tools []Tool
		if err := decodeStrict(raw, &tools); err != nil {
			return nil, positionError(name, data, offsetInto(data, raw, err))
		}
		if err := checkTools(tools); err != nil {
			return nil, &InputError{File: name, Msg: err.Error()}
		}
		srv := Server{Name: serverNameFromFile(name), Tools: tools}
		if raw, ok := probe["instructions"]; ok {
			_ = json.Unmarshal(raw, &srv.Instructions)
		}
		return &Catalog{Servers: []Server{srv}}, nil
	}
	return nil, &InputError{File: name, Msg: `expected an object with "tools" (a tools/list result) or "servers"`}
}

func checkTools(tools []Tool) error {
	for i, t := range tools {
		if t.Name == "" {
			return fmt.Errorf("tools[%d]: missing \"name\"", i)
		}
	}
	return nil
}

func serverNameFromFile(name string) string {
	base := name
	for i := len(base) - 1; i >= 0; i-- {
		if base[i] == '/' {
			base = base[i+1:]
			break
		}
	}
	if ext := len(base) - len(".json"); ext > 0 && base[ext:] == ".json" {
		base = base[:ext]
	}
	if base == "" {
		return "server"
	}
	return base
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return &json.SyntaxError{Offset: dec.InputOffset()}
	}
	return nil
}

// offsetError carries a byte offset relative to the whole document.
type offsetError struct {
	off int64
	err error
}

func (e *offsetError) Error() string { return e.err.Error() }

func (e *offsetError) Unwrap() error { return e.err }

func offsetInto(doc, sub []byte, err error) error {
	base := int64(bytes.Index(doc, sub))
	if base < 0 {
		base = 0
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return &offsetError{off: base + se.Offset, err: err}
	case errors.As(err, &te):
		return &offsetError{off: base + te.Offset, err: err}
	}
	return err
}

func positionError(name string, data []byte, err error) error {
	var off int64 = -1
	var oe *offsetError
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &oe):
		off = oe.off
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	msg := err.Error()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || off < 0 || msg == "unexpected end of JSON input" {
		off = int64(len(data))
		msg = "unexpected end of JSON input"
		// The end of the file says nothing about what was left open: point
		// at the string or bracket that never closed.
		if at, what, ok := unclosed(data); ok {
			off, msg = at, "unexpected end of JSON input: the "+what+" that starts here is never closed"
		}
	} else if errors.As(err, &se) && off > 0 && off < int64(len(data)) {
		// A syntax error's offset counts the offending byte; point at it.
		off--
	}
	if errors.As(err, &te) {
		// Say what the document holds and what belongs there, in JSON's
		// words rather than Go's types.
		where := te.Field
		if where == "" {
			where = "the top level"
		}
		msg = fmt.Sprintf("%s is a JSON %s, but %s belongs there", where, te.Value, jsonKind(te.Type))
		if where == "the top level" {
			msg += ` ({"tools": [...]}, a tools/list result, or {"servers": [...]})`
		}
		if te.Offset > 0 && off > 0 {
			// The decoder reports the offset after the value's first byte.
			off--
		}
	}
	line, col := LineCol(data, off)
	return &InputError{File: name, Line: line, Column: col, Offset: off, Msg: msg}
}

// jsonKind names what a Go type decodes from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "another value"
}

// unclosed finds the innermost string, object or array still open at the
// end of data: its offset and what it is.
func unclosed(data []byte) (int64, string, bool) {
	var stack []int
	inString, escaped := false, false
	strStart := 0
	for i, c := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString, strStart = true, i
		case '{', '[':
			stack = append(stack, i)
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	switch {
	case inString:
		return int64(strStart), "string", true
	case len(stack) > 0:
		at := stack[len(stack)-1]
		if data[at] == '{' {
			return int64(at), "object", true
		}
		return int64(at), "array", true
	}
	return 0, "", false
}

// LineCol converts a byte offset into a 1-based line and column.
func LineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// ToolNames lists the tool names of a server, sorted.
func (s Server) ToolNames() []string {
	out := make([]string, 0, len(s.Tools))
	for _, t := range s.Tools {
		out = append(out, t.Name)
	}
	sort.Strings(out)
	return out
}

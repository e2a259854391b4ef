package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

// ConfigServer is one server entry of an MCP client configuration file.
type ConfigServer struct {
	Name    string
	Command []string          // command and args, for stdio servers
	Env     map[string]string // extra environment for stdio servers
	URL     string            // for HTTP servers
	Type    string            // as written: stdio, http, sse, streamable-http, or empty
}

// Describe says in one line what connecting to the entry does.
func (s ConfigServer) Describe() string {
	if s.URL != "" {
		return fmt.Sprintf("%s: connect to %s", s.Name, s.URL)
	}
	env := ""
	if len(s.Env) > 0 {
		keys := make([]string, 0, len(s.Env))
		for k := range s.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		env = fmt.Sprintf(" (with environment %v)", keys)
	}
	return fmt.Sprintf("%s: run %q%s", s.Name, s.Command, env)
}

type rawEntry struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Type    string            `json:"type"`
}

// LoadConfig reads an MCP client configuration: Claude Desktop and Cursor
// ("mcpServers"), VS Code workspace files ("servers") and VS Code user
// settings ("mcp": {"servers"}). Comments and trailing commas, which VS
// Code allows, are accepted. Entries come back sorted by name.
func LoadConfig(path string) ([]ConfigServer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return ParseConfig(path, data)
}

// ParseConfig parses configuration bytes; name labels errors.
func ParseConfig(name string, data []byte) ([]ConfigServer, error) {
	clean := StripJSONC(data)
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(clean, &doc); err != nil {
		return nil, syntaxErr(name, data, err)
	}
	var section json.RawMessage
	switch {
	case doc["mcpServers"] != nil:
		section = doc["mcpServers"]
	case doc["servers"] != nil:
		section = doc["servers"]
	case doc["mcp"] != nil:
		var mcp map[string]json.RawMessage
		if err := json.Unmarshal(doc["mcp"], &mcp); err == nil {
			section = mcp["servers"]
		}
	case doc["mcp.servers"] != nil:
		section = doc["mcp.servers"]
	}
	if section == nil {
		return nil, &catalog.InputError{File: name, Msg: `no MCP servers found: expected "mcpServers" (Claude Desktop, Cursor), "servers" (VS Code mcp.json) or "mcp": {"servers"} (VS Code settings)`}
	}
	var entries map[string]rawEntry
	if err := json.Unmarshal(section, &entries); err != nil {
		base := int64(bytes.Index(clean, section))
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && base >= 0 {
			off := base + te.Offset
			line, col := catalog.LineCol(data, off)
			return nil, &catalog.InputError{File: name, Line: line, Column: col, Offset: off, Msg: "server entry: " + err.Error()}
		}
		return nil, &catalog.InputError{File: name, Msg: "server entries: " + err.Error()}
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]ConfigServer, 0, len(names))
	for _, n := range names {
		e := entries[n]
		cs := ConfigServer{Name: n, Env: e.Env, URL: e.URL, Type: e.Type}
		switch {
		case e.URL != "":
		case e.Command != "":
			cs.Command = append([]string{e.Command}, e.Args...)
		default:
			return nil, &catalog.InputError{File: name, Msg: fmt.Sprintf("server %q has neither \"command\" nor \"url\"", n)}
		}
		out = append(out, cs)
	}
	return out, nil
}

func syntaxErr(name string, data []byte, err error) error {
	off := int64(len(data))
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
		if !strings.Contains(se.Error(), "unexpected end") {
			off = max(0, off-1) // point at the offending byte
		}
	case errors.As(err, &te):
		off = te.Offset
	}
	line, col := catalog.LineCol(data, off)
	return &catalog.InputError{File: name, Line: line, Column: col, Offset: off, Msg: err.Error()}
}

// StripJSONC blanks out // and /* */ comments and trailing commas outside
// strings, keeping every byte offset where it was so error positions
// still point into the original file.
func StripJSONC(data []byte) []byte {
	out := make([]byte, len(data))
	copy(out, data)
	var strs catalog.JSONStrings
	for i := 0; i < len(out); i++ {
		c := out[i]
		if strs.Skip(c) {
			continue
		}
		switch {
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for i < len(out) && out[i] != '\n' {
				out[i] = ' '
				i++
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			i += 2
			for i < len(out) && !(out[i] == '*' && i+1 < len(out) && out[i+1] == '/') {
				if out[i] != '\n' {
					out[i] = ' '
				}
				i++
			}
			if i+1 < len(out) {
				out[i], out[i+1] = ' ', ' '
				i++
			}
		case c == ',':
			j := i + 1
			for j < len(out) && (out[j] == ' ' || out[j] == '\t' || out[j] == '\n' || out[j] == '\r') {
				j++
			}
			if j < len(out) && (out[j] == '}' || out[j] == ']') {
				out[i] = ' '
			}
		}
	}
	return out
}

// Package source is every way mcpsec obtains MCP server catalogs: catalog
// files, live stdio commands, streamable-HTTP URLs, MCP client
// configuration files and connections already open (the demo). Each
// server comes back carrying the JSON document it was read from and its
// place in it, so reports can point at a line and column whatever the
// source, and carrying how it was reached, so a lockfile entry can be
// matched to it.
package source

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
)

// Fetch connects to one server, lists its tools, prompts and resources,
// and closes the connection. Errors name the server.
func Fetch(ctx context.Context, src mcpconn.Source, opts mcpconn.Options) (catalog.Server, error) {
	srv, _, err := fetchDoc(ctx, src, opts)
	return srv, err
}

func fetchDoc(ctx context.Context, src mcpconn.Source, opts mcpconn.Options) (catalog.Server, []byte, error) {
	conn, err := mcpconn.Connect(ctx, src, opts)
	if err != nil {
		return catalog.Server{}, nil, fmt.Errorf("server %s: %w", label(src), err)
	}
	defer conn.Close()
	name := src.Name
	if name == "" {
		name = conn.ServerInfo().Name
	}
	if name == "" {
		name = label(src)
	}
	return list(ctx, conn, name)
}

// List reads the catalog of a connection that is already open (the demo
// keeps its servers running after listing them).
func List(ctx context.Context, conn *mcpconn.Conn, name string) (Server, error) {
	srv, doc, err := list(ctx, conn, name)
	if err != nil {
		return Server{}, err
	}
	return Server{Def: srv, Kind: KindConn, URI: "mcp:" + url.PathEscape(name), Data: doc}, nil
}

func list(ctx context.Context, conn *mcpconn.Conn, name string) (catalog.Server, []byte, error) {
	info := conn.ServerInfo()
	srv := catalog.Server{Name: name, Version: info.Version, Instructions: info.Instructions}
	tools, raw, err := conn.ListTools(ctx)
	if err != nil {
		return catalog.Server{}, nil, fmt.Errorf("server %s: tools/list: %w", srv.Name, err)
	}
	srv.Tools = tools
	// Prompts and resources are optional extras: a server that fails to
	// list them still has its tools judged.
	if ps, err := conn.ListPrompts(ctx); err == nil {
		srv.Prompts = ps
	}
	if rs, err := conn.ListResources(ctx); err == nil {
		srv.Resources = rs
	}
	if srv.Tools == nil {
		srv.Tools = []catalog.Tool{}
	}
	return srv, listingDoc(srv, raw), nil
}

// listingDoc is the document a live server's findings point into: its
// tool objects exactly as received, beside its instructions, prompts and
// resources, indented so that a line and column mean something.
func listingDoc(srv catalog.Server, rawTools []byte) []byte {
	var tools struct {
		Tools json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(rawTools, &tools) != nil || tools.Tools == nil {
		tools.Tools = json.RawMessage("[]")
	}
	doc := struct {
		Name         string             `json:"name"`
		Instructions string             `json:"instructions,omitempty"`
		Tools        json.RawMessage    `json:"tools"`
		Prompts      []catalog.Prompt   `json:"prompts,omitempty"`
		Resources    []catalog.Resource `json:"resources,omitempty"`
	}{srv.Name, srv.Instructions, tools.Tools, srv.Prompts, srv.Resources}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil
	}
	return buf.Bytes()
}

func label(src mcpconn.Source) string {
	switch {
	case src.Name != "":
		return src.Name
	case len(src.Command) > 0:
		return strings.Join(src.Command, " ")
	case src.URL != "":
		return src.URL
	}
	return "server"
}

// StdioName is the name a --stdio server gets before it introduces
// itself: the base name of its command and, for interpreters, its script.
func StdioName(argv []string) string {
	if len(argv) == 0 {
		return "stdio"
	}
	name := filepath.Base(argv[0])
	switch name {
	case "node", "python", "python3", "deno", "bun", "npx", "uvx", "uv":
		for _, a := range argv[1:] {
			if !strings.HasPrefix(a, "-") {
				return name + " " + a
			}
		}
	}
	return name
}

// URLName is the host of a streamable-HTTP endpoint.
func URLName(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	return u.Host
}

// ErrQuote reports an unterminated quote in a --stdio command line.
var ErrQuote = errors.New("unterminated quote")

// SplitCommand splits a command line the way a POSIX shell would for
// plain words, single and double quotes and backslash escapes (no
// expansion of any kind).
func SplitCommand(s string) ([]string, error) {
	var (
		out     []string
		cur     strings.Builder
		inWord  bool
		quote   rune
		escaped bool
	)
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
			inWord = true
		case r == '\\' && quote != '\'':
			escaped = true
			inWord = true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote = r
			inWord = true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, fmt.Errorf("command %q: %w", s, ErrQuote)
	}
	if inWord {
		out = append(out, cur.String())
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty command")
	}
	return out, nil
}

// Package source turns the places a catalog can come from (a live stdio
// command, a streamable-HTTP URL, an MCP client configuration file) into
// catalog servers, using mcpconn for the protocol.
package source

import (
	"context"
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
	conn, err := mcpconn.Connect(ctx, src, opts)
	if err != nil {
		return catalog.Server{}, fmt.Errorf("server %s: %w", label(src), err)
	}
	defer conn.Close()
	info := conn.ServerInfo()
	srv := catalog.Server{Name: src.Name, Version: info.Version, Instructions: info.Instructions}
	if srv.Name == "" {
		srv.Name = info.Name
	}
	if srv.Name == "" {
		srv.Name = label(src)
	}
	tools, _, err := conn.ListTools(ctx)
	if err != nil {
		return catalog.Server{}, fmt.Errorf("server %s: tools/list: %w", srv.Name, err)
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
	return srv, nil
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

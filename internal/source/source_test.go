package source

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{in: "node server.js", want: []string{"node", "server.js"}},
		{in: `  python3 -m "my server"  --flag='a b' `, want: []string{"python3", "-m", "my server", "--flag=a b"}},
		{in: `cmd a\ b "x\"y" 'it''s'`, want: []string{"cmd", "a b", `x"y`, "its"}},
		{in: `node "unterminated`, wantErr: "unterminated quote"},
		{in: `node trailing\`, wantErr: "unterminated quote"},
		{in: "   ", wantErr: "empty command"},
	}
	for _, tc := range tests {
		got, err := SplitCommand(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		want    []string // Describe() of each entry
		wantErr string
	}{
		{name: "claude desktop", doc: `{"mcpServers": {"b": {"command": "node", "args": ["s.js"]}, "a": {"url": "http://127.0.0.1:9/mcp"}}}`,
			want: []string{"a: connect to http://127.0.0.1:9/mcp", `b: run ["node" "s.js"]`}},
		{name: "vscode mcp.json with comments", doc: "{\n // servers\n \"servers\": {\"x\": {\"type\": \"stdio\", \"command\": \"uvx\", \"args\": [\"srv\"], \"env\": {\"K\": \"v\"},},},\n \"inputs\": []\n}",
			want: []string{`x: run ["uvx" "srv"] (with environment [K])`}},
		{name: "vscode settings", doc: `{"editor.fontSize": 12, /* block */ "mcp": {"servers": {"h": {"type": "http", "url": "https://127.0.0.1:8443/mcp"}}}}`,
			want: []string{"h: connect to https://127.0.0.1:8443/mcp"}},
		{name: "no servers", doc: `{"other": {}}`, wantErr: "no MCP servers found"},
		{name: "entry without command", doc: `{"mcpServers": {"z": {"args": ["x"]}}}`, wantErr: `server "z" has neither`},
		{name: "syntax", doc: "{\"mcpServers\": {\n  \"a\": {\"command\": \"x\"\n}", wantErr: "cfg.json:3:2"},
		{name: "wrong type", doc: `{"mcpServers": {"a": {"command": 5}}}`, wantErr: "cfg.json:1:"},
		{name: "comment chars in strings survive", doc: `{"mcpServers": {"a": {"url": "http://127.0.0.1/x//y/*z*/"}}}`, want: []string{"a: connect to http://127.0.0.1/x//y/*z*/"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseConfig("cfg.json", []byte(tc.doc))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				if !errors.Is(err, catalog.ErrInput) {
					t.Errorf("error %v is not catalog.ErrInput", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var desc []string
			for _, s := range got {
				desc = append(desc, s.Describe())
			}
			if !reflect.DeepEqual(desc, tc.want) {
				t.Errorf("got %q\nwant %q", desc, tc.want)
			}
		})
	}
}

func TestNames(t *testing.T) {
	if got := StdioName([]string{"/usr/bin/node", "--inspect", "dist/index.js"}); got != "node dist/index.js" {
		t.Errorf("StdioName %q", got)
	}
	if got := StdioName([]string{"/opt/mcp/server", "-v"}); got != "server" {
		t.Errorf("StdioName %q", got)
	}
	if got := URLName("http://127.0.0.1:8080/mcp"); got != "127.0.0.1:8080" {
		t.Errorf("URLName %q", got)
	}
}

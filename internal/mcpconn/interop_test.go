package mcpconn_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/testkit"
)

// TestInteropOfficialServers: our Go client lists and calls tools of the
// official TypeScript reference servers over stdio.
func TestInteropOfficialServers(t *testing.T) {
	fsRoot := t.TempDir()
	if err := os.WriteFile(filepath.Join(fsRoot, "note.txt"), []byte("defanged fixture note\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	memFile := filepath.Join(t.TempDir(), "memory.jsonl")
	cases := []struct {
		name      string
		cmd       []string
		env       []string
		version   string // offered protocol version; "" = default
		wantProto string
		wantTools []string
		call      string
		args      string
		wantText  string
	}{
		{
			name: "everything", cmd: testkit.OfficialServer(t, "server-everything", "stdio"),
			wantProto: "2025-11-25",
			wantTools: []string{"echo", "get-sum", "get-tiny-image"},
			call:      "echo", args: `{"message":"hello from mcpsec"}`, wantText: "Echo: hello from mcpsec",
		},
		{
			name: "everything offered the 2026 draft", cmd: testkit.OfficialServer(t, "server-everything", "stdio"),
			version: "2026-07-28", wantProto: "2025-11-25",
			wantTools: []string{"echo", "get-sum"},
			call:      "get-sum", args: `{"a":2,"b":40}`, wantText: "The sum of 2 and 40 is 42.",
		},
		{
			name: "everything at 2025-06-18", cmd: testkit.OfficialServer(t, "server-everything", "stdio"),
			version: "2025-06-18", wantProto: "2025-06-18",
			wantTools: []string{"echo"},
			call:      "echo", args: `{"message":"old"}`, wantText: "Echo: old",
		},
		{
			name: "filesystem", cmd: testkit.OfficialServer(t, "server-filesystem", fsRoot),
			wantProto: "2025-11-25",
			wantTools: []string{"read_text_file", "list_allowed_directories", "write_file"},
			call:      "read_text_file", args: `{"path":` + jsonString(filepath.Join(fsRoot, "note.txt")) + `}`, wantText: "defanged fixture note",
		},
		{
			name: "memory", cmd: testkit.OfficialServer(t, "server-memory"), env: []string{"MEMORY_FILE_PATH=" + memFile},
			wantProto: "2025-11-25",
			wantTools: []string{"create_entities", "read_graph", "search_nodes"},
			call:      "read_graph", args: `{}`, wantText: `"entities"`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			testkit.CheckGoroutines(t)
			opts := mcpconn.DefaultOptions()
			if tc.version != "" {
				opts.ProtocolVersion = tc.version
			}
			ctx := context.Background()
			c, err := mcpconn.Connect(ctx, mcpconn.Source{Name: tc.name, Command: tc.cmd, Env: append(os.Environ(), tc.env...)}, opts)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer c.Close()
			if got := c.ServerInfo().ProtocolVersion; got != tc.wantProto {
				t.Errorf("negotiated %q, want %q", got, tc.wantProto)
			}
			tools, raw, err := c.ListTools(ctx)
			if err != nil {
				t.Fatalf("ListTools: %v (stderr %s)", err, c.Stderr())
			}
			var names []string
			for _, tl := range tools {
				names = append(names, tl.Name)
				if tl.InputSchema["type"] != "object" {
					t.Errorf("%s: inputSchema type %v", tl.Name, tl.InputSchema["type"])
				}
			}
			for _, w := range tc.wantTools {
				if !slices.Contains(names, w) {
					t.Errorf("tool %q missing from %v", w, names)
				}
			}
			if !json.Valid(raw) {
				t.Errorf("raw tools/list is not JSON")
			}
			res, err := c.CallTool(ctx, tc.call, json.RawMessage(tc.args))
			if err != nil {
				t.Fatalf("CallTool %s: %v", tc.call, err)
			}
			if res.IsError || !strings.Contains(res.Text, tc.wantText) {
				t.Errorf("CallTool %s = %+v, want text containing %q", tc.call, res, tc.wantText)
			}
			prompts, err := c.ListPrompts(ctx)
			if err != nil {
				t.Errorf("ListPrompts: %v", err)
			}
			resources, err := c.ListResources(ctx)
			if err != nil {
				t.Errorf("ListResources: %v", err)
			}
			for _, r := range resources {
				if r.URI == "" || r.Name == "" {
					t.Errorf("resource without name or URI: %+v", r)
				}
			}
			if strings.HasPrefix(tc.name, "everything") {
				// server-everything offers prompts, resources and templates.
				if len(prompts) == 0 || len(resources) == 0 {
					t.Errorf("server-everything: %d prompts, %d resources", len(prompts), len(resources))
				}
				t.Logf("%d prompts, %d resources (incl. templates)", len(prompts), len(resources))
			}
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestInteropTSClientAgainstGoServer: the official TypeScript client
// lists and calls tools of a go-sdk server we run over stdio.
func TestInteropTSClientAgainstGoServer(t *testing.T) {
	cmd, env := selfCommand("echo")
	p := testkit.TSClient(t, nil, env, [][2]string{{"echo", `{"text":"from TypeScript"}`}, {"add", `{"a":20,"b":22}`}, {"fail", `{}`}}, cmd...)
	if p.Server.Name != "echo-test" || p.Server.Version != "1.2.3" || p.Instructions != "Use echo to hear yourself." {
		t.Errorf("server identity seen by the TS client: %+v / %q", p.Server, p.Instructions)
	}
	var names []string
	for _, tl := range p.Tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, ","); got != "add,echo,fail,noop_a,noop_b" {
		t.Errorf("TS client listed %s across pages", got)
	}
	want := []struct {
		text    string
		isError bool
	}{{"from TypeScript\n(echoed)", false}, {"42", false}, {"it broke", true}}
	if len(p.Calls) != len(want) {
		t.Fatalf("calls = %+v", p.Calls)
	}
	for i, w := range want {
		if p.Calls[i].Text != w.text || p.Calls[i].IsError != w.isError {
			t.Errorf("call %s = %+v, want %+v", p.Calls[i].Name, p.Calls[i], w)
		}
	}
}

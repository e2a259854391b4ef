package source

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/mcpconn"
)

// The test binary doubles as the stdio servers of these tests: with
// envRendezvous set, TestMain serves instead of testing.
const (
	envRendezvous = "MCPSEC_SOURCE_TEST_RENDEZVOUS" // a directory
	envPeers      = "MCPSEC_SOURCE_TEST_PEERS"      // how many servers meet there
	envName       = "MCPSEC_SOURCE_TEST_NAME"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(envRendezvous); dir != "" {
		os.Exit(rendezvousServer(dir))
	}
	os.Exit(m.Run())
}

// rendezvousServer marks that it has started, then waits for every peer
// to have started too before it speaks MCP. Started one after another,
// the first of them would wait forever; started together, all answer.
func rendezvousServer(dir string) int {
	name := os.Getenv(envName)
	var peers int
	fmt.Sscan(os.Getenv(envPeers), &peers)
	if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
		return 1
	}
	// Bounded so a broken test cannot leave a process behind; the test's
	// own connect timeout is far shorter than this.
	deadline := time.Now().Add(5 * time.Minute)
	for {
		ents, err := os.ReadDir(dir)
		if err == nil && len(ents) >= peers {
			break
		}
		if time.Now().After(deadline) {
			return 2
		}
		time.Sleep(10 * time.Millisecond)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "ping_" + name, Description: "Answers with pong."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		return 1
	}
	return 0
}

// TestConfigServersStartTogether starts real processes from a client
// configuration: each refuses to answer until all have started, so the
// scan completes only if they are started concurrently. The outcome is
// decided by that ordering; the connect timeout only turns a sequential
// loader's deadlock into a failure, with a wide margin.
func TestConfigServersStartTogether(t *testing.T) {
	const n = 3
	dir := t.TempDir()
	meet := filepath.Join(dir, "meet")
	if err := os.Mkdir(meet, 0o755); err != nil {
		t.Fatal(err)
	}
	servers := map[string]any{}
	for i := range n {
		name := fmt.Sprintf("peer%d", i)
		servers[name] = map[string]any{
			"command": os.Args[0],
			"args":    []string{"-test.run=^$"},
			"env":     map[string]string{envRendezvous: meet, envPeers: fmt.Sprint(n), envName: name},
		}
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	cfg := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := mcpconn.DefaultOptions()
	opts.ConnectTimeout = time.Minute
	got, err := Load(context.Background(), Spec{Configs: []string{cfg}, AllowExec: true, Conn: opts})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.Def.Name)
		if len(s.Def.Tools) != 1 || s.ConfigEntry != s.Def.Name || s.Kind != KindStdio || !strings.Contains(string(s.Data), `"ping_`+s.Def.Name+`"`) {
			t.Errorf("%s: tools %v, entry %q, kind %q", s.Def.Name, s.Def.Tools, s.ConfigEntry, s.Kind)
		}
	}
	if strings.Join(names, ",") != "peer0,peer1,peer2" {
		t.Errorf("servers %v, want the configuration's order", names)
	}
}

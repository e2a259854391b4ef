package testkit

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Interop returns the node binary and the module's interop/ directory,
// which holds the official TypeScript MCP packages pinned by its
// package-lock.json. It fails t when either is missing: `make deps`
// installs them.
func Interop(t testing.TB) (node, dir string) {
	t.Helper()
	dir = filepath.Join(Root(t), "interop")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("interop npm packages are missing (%v): run `make deps`, which runs npm ci in interop/", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH (%v): the interop tests need Node.js to run the official TypeScript MCP packages; run `make deps`", err)
	}
	return node, dir
}

// OfficialServer returns the argv that runs one of the official
// TypeScript reference servers (pkg: "server-everything",
// "server-filesystem", "server-memory") over stdio with args.
func OfficialServer(t testing.TB, pkg string, args ...string) []string {
	t.Helper()
	node, dir := Interop(t)
	script := filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("official server %s is not installed (%v): run `make deps`", pkg, err)
	}
	return append([]string{node, script}, args...)
}

// TSProbe is what interop/ts_client.mjs prints: the server as the official
// TypeScript client saw it, and the results of the calls it was asked to
// make. Raw, Result, Resources, Templates and Updated are filled only with
// the flags that ask for them (--raw, --resources, --subscribe).
type TSProbe struct {
	Server struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"server"`
	Instructions string `json:"instructions"`
	Tools        []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Raw         string `json:"raw"`
	} `json:"tools"`
	Calls []struct {
		Name    string `json:"name"`
		Text    string `json:"text"`
		IsError bool   `json:"isError"`
		Result  string `json:"result"`
	} `json:"calls"`
	Resources []string `json:"resources"`
	Templates []string `json:"templates"`
	Reads     []struct {
		URI   string `json:"uri"`
		Text  string `json:"text"`
		Error string `json:"error"`
	} `json:"reads"`
	Updated string `json:"updated"`
}

// TSClient runs the official TypeScript client (interop/ts_client.mjs)
// against the stdio server argv, started with env (nil: this process's
// environment). flags are the client's own (--raw, --resources, --read
// URI, --subscribe URI); each call is a tool's name and its arguments as
// JSON. It fails t when the client fails or prints no probe.
func TSClient(t testing.TB, flags, env []string, calls [][2]string, argv ...string) TSProbe {
	t.Helper()
	node, dir := Interop(t)
	args := append([]string{filepath.Join(dir, "ts_client.mjs")}, flags...)
	for _, c := range calls {
		args = append(args, "--call", c[0], c[1])
	}
	args = append(append(args, "--"), argv...)
	cmd := exec.Command(node, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ts_client: %v\nstderr: %s", err, stderr.String())
	}
	var p TSProbe
	if err := json.Unmarshal(stdout.Bytes(), &p); err != nil {
		t.Fatalf("ts_client output %q: %v", stdout.String(), err)
	}
	return p
}

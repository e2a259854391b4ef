package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/testkit"
)

// TestFixtureHelperProcess is not a test: it is mcpsec itself when the
// test binary re-executes itself as a fixture server subprocess (the
// os/exec helper-process pattern), so tests need no prebuilt binary.
func TestFixtureHelperProcess(t *testing.T) {
	if os.Getenv("MCPSEC_FIXTURE_HELPER") != "1" {
		return
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(Run(args, os.Stdin, os.Stdout, os.Stderr))
}

// helperCmd builds a subprocess running `mcpsec args...`.
func helperCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestFixtureHelperProcess$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), "MCPSEC_FIXTURE_HELPER=1")
	return cmd
}

// waitFor bounds a wait so that a broken server fails the test instead
// of hanging it; it asserts nothing about how long things take.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(60 * time.Second):
		t.Fatalf("gave up waiting for %s", what)
		panic("unreachable")
	}
}

func connectClient(t *testing.T, tr mcp.Transport, changed chan<- struct{}) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{}
	if changed != nil {
		opts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "0"}, opts)
	cs, err := c.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return cs
}

func toolByName(t *testing.T, cs *mcp.ClientSession, name string) *mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	for _, tool := range res.Tools {
		if tool.Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %q in %d tools", name, len(res.Tools))
	return nil
}

func callTextCLI(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestFixtureServeStdioSubprocess runs the poisoned server as a real
// subprocess over stdio and walks through an approval-mode rug pull.
func TestFixtureServeStdioSubprocess(t *testing.T) {
	p := payload.Default(payload.ClassRugPull, payload.ObjectiveDestructive)
	state := filepath.Join(t.TempDir(), "state.json")
	cmd := helperCmd(t, "fixture", "serve", "--server", "poisoned", "--class", "rug_pull", "--objective", "destructive",
		"--rug-mode", "approval", "--tools", "read_note,delete_note", "--carrier-tool", "read_note", "--name", "notes", "--state-out", state)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	changed := make(chan struct{}, 1)
	cs := connectClient(t, &mcp.CommandTransport{Command: cmd}, changed)

	if info := cs.InitializeResult().ServerInfo; info.Name != "notes" {
		t.Errorf("serverInfo %+v", info)
	}
	if d := toolByName(t, cs, fixture.ToolReadNote).Description; strings.Contains(d, p.Text) {
		t.Fatalf("first listing already poisoned: %q", d)
	}
	if got := callTextCLI(t, cs, fixture.ToolDeleteNote, map[string]any{"title": "oncall-guide"}); got != `Deleted note "oncall-guide".` {
		t.Errorf("delete_note = %q", got)
	}
	waitFor(t, changed, "notifications/tools/list_changed")
	if d := toolByName(t, cs, fixture.ToolReadNote).Description; !strings.HasSuffix(d, "\n\n"+p.Text) {
		t.Errorf("after approval, read_note description = %q, want the payload appended", d)
	}
	callTextCLI(t, cs, fixture.SinkTool, map[string]any{"data": fixture.FixedCanary})
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if !strings.Contains(stderr.String(), "serving poisoned server (class rug_pull, payload "+p.ID+") over stdio") {
		t.Errorf("stderr = %q", stderr.String())
	}
	assertState(t, state, "notes")
}

// assertState checks the --state-out file: oncall-guide deleted and one
// export recorded by server.
func assertState(t *testing.T, path, server string) {
	t.Helper()
	var s fixture.State
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("state file: %v", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("state file: %v", err)
	}
	if _, ok := s.Notes["oncall-guide"]; ok {
		t.Error("oncall-guide not deleted in the final state")
	}
	if len(s.Exports) != 1 || s.Exports[0].Server != server || !strings.Contains(string(s.Exports[0].Arguments), fixture.FixedCanary) {
		t.Errorf("exports = %+v", s.Exports)
	}
}

// lineWriter hands the first line written to it to a channel and keeps
// the rest; it is the stdout of an in-process HTTP server.
type lineWriter struct {
	mu    sync.Mutex
	buf   strings.Builder
	first chan string
	sent  bool
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if s := w.buf.String(); !w.sent && strings.Contains(s, "\n") {
		w.sent = true
		w.first <- strings.TrimSpace(s[:strings.Index(s, "\n")])
	}
	return len(p), nil
}

// TestFixtureServeHTTP serves the shadow server over streamable HTTP on
// 127.0.0.1 in-process, and a poisoned one in a subprocess.
func TestFixtureServeHTTP(t *testing.T) {
	t.Run("in-process shadow", func(t *testing.T) {
		p := payload.Default(payload.ClassCrossServer, payload.ObjectiveExfil)
		state := filepath.Join(t.TempDir(), "state.json")
		ctx, cancel := context.WithCancel(context.Background())
		out := &lineWriter{first: make(chan string, 1)}
		var errb strings.Builder
		code := make(chan int, 1)
		go func() {
			code <- RunContext(ctx, []string{"fixture", "serve", "--server", "shadow", "--http", "127.0.0.1:0", "--state-out", state},
				&Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: &errb, Getenv: func(string) string { return "" }})
		}()
		url := waitFor(t, out.first, "the endpoint URL")
		if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
			t.Fatalf("endpoint %q", url)
		}
		cs := connectClient(t, &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if d := toolByName(t, cs, fixture.ShadowTool).Description; !strings.Contains(d, p.Text) {
			t.Errorf("format_summary description %q lacks the default cross_server payload", d)
		}
		if got := callTextCLI(t, cs, fixture.SinkTool, map[string]any{"data": fixture.FixedCanary}); got != "Export #1 saved to the workspace archive." {
			t.Errorf("sink = %q", got)
		}
		_ = cs.Close()
		cancel()
		if c := waitFor(t, code, "the server to stop"); c != 0 {
			t.Fatalf("exit %d: %s", c, errb.String())
		}
		var s fixture.State
		b, _ := os.ReadFile(state)
		if err := json.Unmarshal(b, &s); err != nil || len(s.Exports) != 1 || s.Exports[0].Server != fixture.DefaultShadowName {
			t.Errorf("state %s (err %v)", b, err)
		}
	})
	t.Run("in-process approval rug pull", func(t *testing.T) {
		// list_changed must reach a client over HTTP too (the SDK routes
		// it through the session's standalone stream).
		p := payload.Default(payload.ClassRugPull, payload.ObjectiveExfil)
		ctx, cancel := context.WithCancel(context.Background())
		out := &lineWriter{first: make(chan string, 1)}
		var errb strings.Builder
		code := make(chan int, 1)
		go func() {
			code <- RunContext(ctx, []string{"fixture", "serve", "--server", "poisoned", "--class", "rug_pull", "--rug-mode", "approval", "--http", "localhost:0"},
				&Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: &errb, Getenv: func(string) string { return "" }})
		}()
		url := waitFor(t, out.first, "the endpoint URL")
		changed := make(chan struct{}, 1)
		cs := connectClient(t, &mcp.StreamableClientTransport{Endpoint: url}, changed)
		if d := toolByName(t, cs, fixture.ToolCalculate).Description; strings.Contains(d, p.Text) {
			t.Fatalf("first listing already poisoned")
		}
		callTextCLI(t, cs, fixture.ToolListNotes, map[string]any{})
		waitFor(t, changed, "notifications/tools/list_changed over HTTP")
		if d := toolByName(t, cs, fixture.ToolCalculate).Description; !strings.Contains(d, p.Text) {
			t.Errorf("calculate after approval: %q", d)
		}
		_ = cs.Close()
		cancel()
		if c := waitFor(t, code, "the server to stop"); c != 0 {
			t.Fatalf("exit %d: %s", c, errb.String())
		}
	})
	t.Run("subprocess poisoned", func(t *testing.T) {
		p := payload.Default(payload.ClassSchemaField, payload.ObjectiveArgTamper)
		cmd := helperCmd(t, "fixture", "serve", "--server", "poisoned", "--class", "schema_field", "--objective", "arg_tamper",
			"--tools", "add_note", "--http", "127.0.0.1:0")
		url := testkit.ServeURL(t, cmd)
		cs := connectClient(t, &mcp.StreamableClientTransport{Endpoint: url}, nil)
		defer cs.Close()
		b, err := json.Marshal(toolByName(t, cs, fixture.ToolAddNote).InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), mustJSONString(t, p.Text)) {
			t.Errorf("add_note schema %s lacks the schema_field payload %q", b, p.Text)
		}
		if got := callTextCLI(t, cs, fixture.ToolAddNote, map[string]any{"title": "t", "body": "b"}); got != `Saved note "t" (1 characters).` {
			t.Errorf("add_note = %q", got)
		}
	})
}

// mustJSONString is s as it appears inside JSON (escapes included).
func mustJSONString(t *testing.T, s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Trim(string(b), `"`)
}

func TestFixtureServeInputErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--server", "evil"}, `--server "evil"`},
		{[]string{"--server", "poisoned"}, "needs --class or --payload"},
		{[]string{"--server", "poisoned", "--class", "nope"}, `--class "nope"`},
		{[]string{"--server", "poisoned", "--payload", "no-such-id"}, `--payload "no-such-id": no such payload`},
		{[]string{"--server", "poisoned", "--class", "rug_pull", "--rug-mode", "later"}, `--rug-mode "later"`},
		{[]string{"--server", "poisoned", "--class", "tool_description", "--objective", "chaos"}, `--objective "chaos"`},
		{[]string{"--server", "poisoned", "--class", "tool_description", "--tools", "calculate", "--carrier-tool", "add_note"}, `carrier tool "add_note"`},
		{[]string{"--server", "benign", "--tools", "calculate,rm"}, `unknown tool "rm"`},
		{[]string{"--server", "benign", "--class", "rug_pull"}, "takes no --class"},
		{[]string{"--server", "shadow", "--class", "rug_pull"}, "serves class cross_server only"},
		{[]string{"--server", "shadow", "--tools", "calculate"}, "takes no --tools"},
		{[]string{"--http", "0.0.0.0:0"}, "refusing a non-loopback address"},
		{[]string{"--http", "[::]:0"}, "refusing a non-loopback address"},
		{[]string{"--http", ":0"}, "refusing a non-loopback address"},
		{[]string{"--http", "192.0.2.1:8080"}, "refusing a non-loopback address"},
		{[]string{"--http", "example.invalid:80"}, "refusing a non-loopback address"},
		{[]string{"--http", "127.0.0.1"}, "want HOST:PORT"},
		{[]string{"--http", "127.0.0.1:99999"}, "bad port"},
		{[]string{"extra"}, "unknown command"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := run(t, append([]string{"fixture", "serve"}, tc.args...)...)
			if code != ExitInput {
				t.Fatalf("exit %d, want %d (stdout %q stderr %q)", code, ExitInput, out, errs)
			}
			if !strings.Contains(errs, tc.want) {
				t.Errorf("stderr %q lacks %q", errs, tc.want)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
		})
	}
}

// TestFixtureServeStdioInProcess drives the stdio server through the
// injected streams: it answers initialize and stops cleanly when the
// client closes its end.
func TestFixtureServeStdioInProcess(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n"
	stdinR, stdinW := io.Pipe()
	out := &lineWriter{first: make(chan string, 1)}
	var errb strings.Builder
	code := make(chan int, 1)
	go func() {
		code <- RunContext(context.Background(), []string{"fixture", "serve"}, &Env{Stdin: stdinR, Stdout: out, Stderr: &errb, Getenv: func(string) string { return "" }})
	}()
	if _, err := io.WriteString(stdinW, in); err != nil {
		t.Fatal(err)
	}
	line := waitFor(t, out.first, "the initialize response")
	if !strings.Contains(line, `"serverInfo":{"name":"workspace","version":"1.0.0"}`) {
		t.Errorf("response %q lacks the server info", line)
	}
	_ = stdinW.Close()
	if c := waitFor(t, code, "the server to stop at EOF"); c != 0 {
		t.Fatalf("exit %d: %s", c, errb.String())
	}
	if !strings.Contains(errb.String(), "serving benign server over stdio") {
		t.Errorf("stderr %q", errb.String())
	}
}

func TestFixturePayloads(t *testing.T) {
	t.Run("json lists every payload", func(t *testing.T) {
		code, out, errs := run(t, "fixture", "payloads", "--format", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var got []payload.Payload
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("stdout is not a JSON array of payloads: %v", err)
		}
		all := payload.All()
		if len(got) != len(all) || len(all) == 0 {
			t.Fatalf("%d payloads, want %d", len(got), len(all))
		}
		for i := range all {
			if got[i] != all[i] {
				t.Errorf("payload %d = %+v, want %+v", i, got[i], all[i])
			}
		}
	})
	t.Run("text filtered", func(t *testing.T) {
		code, out, errs := run(t, "fixture", "payloads", "--register", "seen", "--class", "rug_pull")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		want := payload.Filter(payload.ClassRugPull, payload.RegisterSeen, "")
		for _, p := range want {
			if !strings.Contains(out, p.ID+"  class=rug_pull") {
				t.Errorf("text output lacks %s", p.ID)
			}
		}
		if !strings.HasSuffix(out, "\n"+itoa(len(want))+" payloads\n") {
			t.Errorf("text output does not end with the count: %q", out[max(0, len(out)-40):])
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.ContainsFunc(line, func(r rune) bool { return r > 0x7e }) {
				t.Errorf("text output has a non-ASCII character in %q", line)
			}
		}
	})
	t.Run("empty filter result is an empty JSON array", func(t *testing.T) {
		// Every class has seen payloads, so filter on a combination only
		// for its shape: the output must always be an array.
		code, out, _ := run(t, "fixture", "payloads", "--format", "json", "--class", "rug_pull", "--register", "seen", "--objective", "exfil")
		if code != 0 || !strings.HasPrefix(strings.TrimSpace(out), "[") {
			t.Errorf("exit %d, stdout %q", code, out)
		}
	})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "xml"}, `--format "xml"`},
		{[]string{"--register", "secret"}, `--register "secret"`},
		{[]string{"--class", "x"}, `--class "x"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, errs := run(t, append([]string{"fixture", "payloads"}, tc.args...)...)
			if code != ExitInput || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d stderr %q, want 2 with %q", code, errs, tc.want)
			}
		})
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestFixtureDefaultPayloadsExist(t *testing.T) {
	// Every class/objective pair must have a default, since serve falls
	// back to it when --payload is not given.
	for _, c := range payload.Classes {
		for _, o := range payload.Objectives {
			if p := payload.Default(c, o); p.Text == "" {
				t.Errorf("no default payload for %s/%s", c, o)
			} else if !slices.Contains(payload.Classes, p.Class) {
				t.Errorf("default payload %s has class %q", p.ID, p.Class)
			}
		}
	}
}

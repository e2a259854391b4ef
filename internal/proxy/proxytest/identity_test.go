package proxytest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/mcpconn"
)

// envRawServer makes the test binary a hand-written stdio MCP server whose
// tool definitions and call result carry what no SDK type knows: the tasks
// extension's execution, icons, _meta and a vendor's own member.
const envRawServer = "MCPSEC_PROXYTEST_RAWSERVER"

// rawTool is written here as a server would send it, member order and all.
const rawTool = `{"name":"fetch_page","title":"Fetch a page","description":"Fetches a web page and returns its text.",` +
	`"inputSchema":{"type":"object","properties":{"url":{"type":"string","format":"uri"}},"required":["url"]},` +
	`"execution":{"taskSupport":"optional"},"icons":[{"src":"https://icons.example.invalid/fetch.png","mimeType":"image/png","sizes":["48x48"]}],` +
	`"_meta":{"example.invalid/owner":"docs team"},"x-vendor":{"retries":2},"annotations":{"readOnlyHint":true,"openWorldHint":true}}`

const rawCallResult = `{"content":[{"type":"text","text":"<html>a page</html>","_meta":{"example.invalid/cached":true}}],` +
	`"structuredContent":{"status":200},"x-vendor":{"took_ms":3},"isError":false}`

// serveRaw answers initialize, tools/list, tools/call and ping on stdio.
func serveRaw(in io.Reader, out io.Writer) {
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue // notifications
		}
		var result string
		switch req.Method {
		case "initialize":
			result = fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}`, req.Params.ProtocolVersion)
		case "tools/list":
			result = `{"tools":[` + rawTool + `]}`
		case "tools/call":
			result = rawCallResult
		default:
			result = `{}`
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result)
	}
}

// TestUnknownMembersRelayedIdentical: a tool the scan passes reaches the
// client exactly as the server listed it (execution, icons, _meta, a
// vendor member, member order), and so does a call's result, both as
// bytes on the wire (mcpsec's Go client) and as the official TypeScript
// client parses them.
func TestUnknownMembersRelayedIdentical(t *testing.T) {
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	directArgv, directEnv := []string{os.Args[0]}, append(os.Environ(), envRawServer+"=1")
	viaArgv, viaEnv := mcpsec("proxy", "--audit", audit, "--pass-env", envRawServer, "--", os.Args[0])
	viaEnv = append(viaEnv, envRawServer+"=1")

	ctx := context.Background()
	c, err := mcpconn.Connect(ctx, mcpconn.Source{Name: "proxy", Command: viaArgv, Env: viaEnv}, mcpconn.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, doc, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"tools":[` + rawTool + `]}`; string(doc) != want {
		t.Errorf("tools/list through the proxy:\n got %s\nwant %s", doc, want)
	}
	res, err := c.CallTool(ctx, "fetch_page", json.RawMessage(`{"url":"https://docs.example.invalid/"}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Raw) != rawCallResult {
		t.Errorf("tools/call result through the proxy:\n got %s\nwant %s", res.Raw, rawCallResult)
	}

	call := [2]string{"fetch_page", `{"url":"https://docs.example.invalid/"}`}
	direct := tsClient(t, directArgv, directEnv, call)
	via := tsClient(t, viaArgv, viaEnv, call)
	if len(direct.Tools) != 1 || len(via.Tools) != 1 || via.Tools[0].Raw != direct.Tools[0].Raw {
		t.Errorf("TypeScript client: through the proxy %+v, directly %+v", via.Tools, direct.Tools)
	}
	if len(via.Calls) != 1 || via.Calls[0].Result != direct.Calls[0].Result {
		t.Errorf("TypeScript client's call: through the proxy %+v, directly %+v", via.Calls, direct.Calls)
	}
	// What the TypeScript client keeps of the definition it parsed.
	for _, member := range []string{`"execution"`, `"icons"`, `"_meta"`} {
		if len(via.Tools) == 1 && !strings.Contains(via.Tools[0].Raw, member) {
			t.Errorf("TypeScript client got no %s through the proxy: %s", member, via.Tools[0].Raw)
		}
	}
	// Two proxy runs (Go client, TypeScript client) append to one log.
	if seen := validateAudit(t, audit); seen["started"] != 2 || seen["tool_passed"] != 2 || seen["call_allowed"] != 2 {
		t.Errorf("audit log: %v", seen)
	}
}

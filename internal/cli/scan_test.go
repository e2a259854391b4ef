package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"github.com/mcpsec/mcpsec/internal/testkit"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateScan = flag.Bool("update-scan", false, "rewrite scan golden files")

func scanData(name string) string { return filepath.Join("testdata", "scan", name) }

// checkGolden compares got with testdata/scan/NAME.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	compareGolden(t, "scan", name, got, *updateScan, "update-scan")
}

func TestScanCommand(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		code    int
		golden  string // stdout golden, if any
		wantOut string
		wantErr string
	}{
		{name: "clean text", args: []string{"scan", "--catalog", scanData("clean.json")}, code: 0, golden: "clean.txt.golden"},
		{name: "poisoned text", args: []string{"scan", "--catalog", scanData("poisoned.json")}, code: 0, golden: "poisoned.txt.golden"},
		{name: "poisoned json", args: []string{"scan", "--catalog", scanData("poisoned.json"), "--format", "json"}, code: 0, golden: "poisoned.json.golden"},
		{name: "poisoned sarif", args: []string{"scan", "--catalog", scanData("poisoned.json"), "--format", "sarif"}, code: 0, golden: "poisoned.sarif.golden"},
		{name: "fail-on high", args: []string{"scan", "--catalog", scanData("poisoned.json"), "--fail-on", "high"}, code: 1, wantErr: "at or above high"},
		{name: "fail-on critical", args: []string{"scan", "--catalog", scanData("poisoned.json"), "--fail-on", "CRITICAL", "--format", "json"}, code: 1, wantOut: `"schema_version": 1`},
		{name: "clean fail-on low", args: []string{"scan", "--catalog", scanData("clean.json"), "--fail-on", "low"}, code: 0, wantOut: "grade A"},
		{name: "malformed names position", args: []string{"scan", "--catalog", scanData("malformed.json")}, code: 2, wantErr: "malformed.json:3:19 (byte 85)"},
		{name: "missing file", args: []string{"scan", "--catalog", scanData("nope.json")}, code: 2, wantErr: "nope.json"},
		{name: "no source", args: []string{"scan"}, code: 2, wantErr: "no catalog source"},
		{name: "bad format", args: []string{"scan", "--catalog", scanData("clean.json"), "--format", "xml"}, code: 2, wantErr: "--format"},
		{name: "bad fail-on", args: []string{"scan", "--catalog", scanData("clean.json"), "--fail-on", "severe"}, code: 2, wantErr: "unknown severity"},
		{name: "config needs allow-exec", args: []string{"scan", "--config", scanData("claude_desktop_config.json")}, code: 2,
			wantErr: `weather: run ["node" "weather-server.js" "--verbose"]`},
		{name: "config malformed", args: []string{"scan", "--config", scanData("malformed.json")}, code: 2, wantErr: "malformed.json:3:19"},
		{name: "unreachable stdio names server", args: []string{"scan", "--stdio", "/nonexistent/mcp-server --flag"}, code: 2, wantErr: "/nonexistent/mcp-server"},
		{name: "unreachable url names server", args: []string{"scan", "--url", "http://127.0.0.1:1/mcp", "--timeout", "5s"}, code: 2, wantErr: "127.0.0.1:1"},
		{name: "silent stdio server times out", args: []string{"scan", "--stdio", "sleep 30", "--timeout", "1s"}, code: 2, wantErr: "sleep"},
		{name: "garbage stdio server", args: []string{"scan", "--stdio", "echo not-json-rpc", "--timeout", "5s"}, code: 2, wantErr: "echo"},
		{name: "bad url", args: []string{"scan", "--url", "ftp://x"}, code: 2, wantErr: "http:// or https://"},
		{name: "bad stdio quoting", args: []string{"scan", "--stdio", `node "server.js`}, code: 2, wantErr: "unterminated quote"},
		{name: "bad lockfile", args: []string{"scan", "--catalog", scanData("clean.json"), "--lock", scanData("malformed.json")}, code: 2, wantErr: "malformed.json:3:19"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := run(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errs)
			}
			if tc.golden != "" {
				checkGolden(t, tc.golden, out)
			}
			if !strings.Contains(out, tc.wantOut) {
				t.Errorf("stdout lacks %q:\n%s", tc.wantOut, out)
			}
			if !strings.Contains(errs, tc.wantErr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantErr, errs)
			}
		})
	}
}

// TestScanJSONContract checks the documented JSON shape field by field.
func TestScanJSONContract(t *testing.T) {
	code, out, errs := run(t, "scan", "--catalog", scanData("poisoned.json"), "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		SchemaVersion *int `json:"schema_version"`
		Servers       []struct {
			Name     *string          `json:"name"`
			Grade    *string          `json:"grade"`
			Findings []map[string]any `json:"findings"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SchemaVersion == nil || *doc.SchemaVersion != 1 || len(doc.Servers) != 2 {
		t.Fatalf("bad top level: %s", out)
	}
	sawNullTool := false
	for _, s := range doc.Servers {
		if s.Name == nil || s.Grade == nil || !strings.Contains("ABCDF", *s.Grade) || len(*s.Grade) != 1 {
			t.Errorf("server lacks name/grade: %+v", s)
		}
		for _, f := range s.Findings {
			for _, k := range []string{"rule_id", "severity", "tool", "location", "message", "evidence"} {
				if _, ok := f[k]; !ok {
					t.Errorf("finding lacks %q: %v", k, f)
				}
			}
			if !strings.Contains("info low medium high critical", f["severity"].(string)) {
				t.Errorf("bad severity %v", f["severity"])
			}
			if f["tool"] == nil {
				sawNullTool = true
			}
		}
	}
	_ = sawNullTool // server-level findings carry "tool": null; this catalog has none at that level.
}

// TestScanSARIFRequired checks the SARIF 2.1.0 schema's required
// properties (sarifLog: version, runs; run: tool; tool: driver; driver:
// name; reportingDescriptor: id; result: message with text; location
// regions with 1-based lines) and that results point at the right line.
func TestScanSARIFRequired(t *testing.T) {
	code, out, errs := run(t, "scan", "--catalog", scanData("poisoned.json"), "--format", "sarif")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var log map[string]any
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	if log["version"] != "2.1.0" {
		t.Fatalf("version %v", log["version"])
	}
	runs, ok := log["runs"].([]any)
	if !ok || len(runs) != 1 {
		t.Fatalf("runs: %v", log["runs"])
	}
	run0 := runs[0].(map[string]any)
	driver := run0["tool"].(map[string]any)["driver"].(map[string]any)
	if driver["name"] != "mcpsec" {
		t.Errorf("driver name %v", driver["name"])
	}
	ruleIDs := map[string]int{}
	for i, r := range driver["rules"].([]any) {
		id, _ := r.(map[string]any)["id"].(string)
		if id == "" {
			t.Errorf("rule %d without id", i)
		}
		ruleIDs[id] = i
	}
	src, _ := os.ReadFile(scanData("poisoned.json"))
	lines := strings.Split(string(src), "\n")
	results := run0["results"].([]any)
	if len(results) == 0 {
		t.Fatal("no results")
	}
	for _, r := range results {
		res := r.(map[string]any)
		msg, _ := res["message"].(map[string]any)
		if text, _ := msg["text"].(string); text == "" {
			t.Errorf("result without message text: %v", res)
		}
		id := res["ruleId"].(string)
		if idx, ok := ruleIDs[id]; !ok || int(res["ruleIndex"].(float64)) != idx {
			t.Errorf("result %s: ruleIndex %v does not point at its rule", id, res["ruleIndex"])
		}
		switch res["level"] {
		case "error", "warning", "note":
		default:
			t.Errorf("bad level %v", res["level"])
		}
		loc := res["locations"].([]any)[0].(map[string]any)
		phys := loc["physicalLocation"].(map[string]any)
		if phys["artifactLocation"].(map[string]any)["uri"] != scanData("poisoned.json") {
			t.Errorf("uri %v", phys["artifactLocation"])
		}
		region, ok := phys["region"].(map[string]any)
		if !ok {
			t.Errorf("%s: no region", id)
			continue
		}
		line := int(region["startLine"].(float64))
		if line < 1 || line > len(lines) {
			t.Errorf("%s: line %d out of range", id, line)
			continue
		}
		// The line must be where the flagged field sits.
		logical := loc["logicalLocations"].([]any)[0].(map[string]any)["fullyQualifiedName"].(string)
		field := logical[strings.LastIndex(logical, "/")+1:]
		if !strings.Contains(lines[line-1], `"`+field+`"`) {
			t.Errorf("%s at %s: line %d is %q", id, logical, line, lines[line-1])
		}
	}
}

// TestScanLiveOfficialServer scans the official memory server over stdio,
// started by --stdio and by a client config with --allow-exec.
func TestScanLiveOfficialServer(t *testing.T) {
	memory := testkit.OfficialServer(t, "server-memory")
	node, script := memory[0], memory[1]
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcp.json")
	cfgBody, _ := json.Marshal(map[string]any{"servers": map[string]any{"memory": map[string]any{
		"type": "stdio", "command": node, "args": []string{script}, "env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "m.jsonl")}}}})
	if err := os.WriteFile(cfg, cfgBody, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"scan", "--stdio", node + " " + script, "--format", "json", "--fail-on", "medium"},
		{"scan", "--config", cfg, "--allow-exec", "--format", "json", "--fail-on", "medium"},
	} {
		code, out, errs := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errs)
		}
		var doc struct {
			Servers []struct {
				Name  string `json:"name"`
				Grade string `json:"grade"`
			} `json:"servers"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Servers) != 1 || doc.Servers[0].Grade != "A" {
			t.Errorf("%v: %s", args, out)
		}
	}
	// A lockfile of the live server pins it.
	lock := filepath.Join(dir, "mem.lock")
	if code, _, errs := run(t, "lock", "--stdio", node+" "+script, "--out", lock); code != 0 {
		t.Fatalf("lock: %s", errs)
	}
	code, out, errs := run(t, "scan", "--stdio", node+" "+script, "--lock", lock, "--format", "json")
	if code != 0 || strings.Contains(out, "drift.") {
		t.Fatalf("unchanged live server drifted: exit %d %s %s", code, out, errs)
	}
}

// TestLockAndDrift pins a catalog, then scans edited copies against it.
func TestLockAndDrift(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "tools.lock")
	code, _, errs := run(t, "lock", "--catalog", scanData("drift-base.json"), "--out", lock)
	if code != 0 {
		t.Fatalf("lock: exit %d %s", code, errs)
	}
	code, out, _ := run(t, "lock", "--catalog", scanData("drift-base.json"))
	if code != 0 || !strings.Contains(out, `"lock_version": 1`) {
		t.Fatalf("lock to stdout: %d %s", code, out)
	}
	lockBytes, _ := os.ReadFile(lock)
	if !bytes.Equal(lockBytes, []byte(out)) {
		t.Error("lockfile is not deterministic")
	}
	code, out, errs = run(t, "scan", "--catalog", scanData("drift-edited.json"), "--lock", lock)
	if code != 0 {
		t.Fatalf("scan --lock: exit %d %s", code, errs)
	}
	checkGolden(t, "drift.txt.golden", out)
	code, _, _ = run(t, "scan", "--catalog", scanData("drift-reordered.json"), "--lock", lock, "--fail-on", "info")
	if code != 0 {
		t.Error("a reordered, re-serialized catalog must produce no finding at all")
	}
}

// TestScanSARIFEverySource: with several catalog files and a live server
// in one scan, every result still points at a line and column, in its own
// file, or for the live server in the listing the log carries.
func TestScanSARIFEverySource(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(scanData("poisoned.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The first server's tools again, as the second server of another
	// multi-server file.
	var orig struct {
		Servers []struct {
			Tools any `json:"tools"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(src, &orig); err != nil || len(orig.Servers) == 0 {
		t.Fatalf("poisoned.json: %v", err)
	}
	multi, _ := json.MarshalIndent(map[string]any{"servers": []any{
		map[string]any{"name": "empty", "tools": []any{}},
		map[string]any{"name": "copy", "tools": orig.Servers[0].Tools},
	}}, "", "  ")
	multiPath := filepath.Join(dir, "multi.json")
	cfgPath := filepath.Join(dir, "mcp.json")
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"live": map[string]any{
			"command": os.Args[0],
			"args":    []string{"-test.run=^TestFixtureHelperProcess$", "--", "fixture", "serve", "--server", "poisoned", "--class", "tool_description", "--objective", "exfil"},
			"env":     map[string]string{"MCPSEC_FIXTURE_HELPER": "1"},
		},
	}})
	for p, b := range map[string][]byte{multiPath: multi, cfgPath: cfg} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := run(t, "scan", "--catalog", scanData("poisoned.json"), "--catalog", multiPath,
		"--config", cfgPath, "--allow-exec", "--format", "sarif")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var log struct {
		Runs []struct {
			Artifacts []struct {
				Location struct{ URI string }
				Contents struct{ Text string }
			}
			Results []struct {
				RuleID    string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           *struct{ StartLine, StartColumn int }
					}
					LogicalLocations []struct{ FullyQualifiedName string }
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{scanData("poisoned.json"): string(src), multiPath: string(multi)}
	for _, a := range log.Runs[0].Artifacts {
		docs[a.Location.URI] = a.Contents.Text
	}
	perURI := map[string]int{}
	for _, r := range log.Runs[0].Results {
		loc := r.Locations[0]
		uri := loc.PhysicalLocation.ArtifactLocation.URI
		doc, ok := docs[uri]
		if !ok {
			t.Errorf("%s: artifact %q is neither a file given nor carried in the log", r.RuleID, uri)
			continue
		}
		if loc.PhysicalLocation.Region == nil {
			t.Errorf("%s in %s: no region", r.RuleID, uri)
			continue
		}
		lines := strings.Split(doc, "\n")
		line := loc.PhysicalLocation.Region.StartLine
		fq := loc.LogicalLocations[0].FullyQualifiedName
		field := fq[strings.LastIndex(fq, "/")+1:]
		if line < 1 || line > len(lines) || !strings.Contains(lines[line-1], `"`+field+`"`) {
			t.Errorf("%s at %s: line %d of %s does not hold %q", r.RuleID, fq, line, uri, field)
			continue
		}
		perURI[uri]++
	}
	if perURI[scanData("poisoned.json")] == 0 || perURI[multiPath] == 0 || perURI["stdio:live"] == 0 {
		t.Errorf("results per document %v: want some in each of the three", perURI)
	}
}

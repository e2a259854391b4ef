package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/proxy"
	"github.com/mcpsec/mcpsec/internal/scan"
)

// memUpstream serves srv in-process and returns a connection to it, as
// the proxy's upstream or as a direct client.
func memUpstream(t *testing.T, name string, srv *mcp.Server) *mcpconn.Conn {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c, err := mcpconn.Connect(context.Background(), mcpconn.Source{Name: name, Transport: ct}, mcpconn.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// startProxy starts a proxy over conns and connects a client to it.
func startProxy(t *testing.T, s proxy.Settings, audit *proxy.Audit, conns ...*mcpconn.Conn) (*proxy.Proxy, *mcpconn.Conn) {
	t.Helper()
	seams, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	p, err := proxy.Start(context.Background(), proxy.Options{Attached: conns, Seams: seams, Audit: audit})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p, stdioClient(t, p)
}

// stdioClient serves p as `mcpsec proxy` serves its client over stdio
// (ServeStdio, tools/call the short way) on a pair of pipes and connects
// a client to it.
func stdioClient(t *testing.T, p *proxy.Proxy) *mcpconn.Conn {
	t.Helper()
	c, stop, err := serveStdio(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return c
}

// serveStdio is stdioClient's work; stop closes the client and waits for
// ServeStdio to return.
func serveStdio(ctx context.Context, p *proxy.Proxy) (*mcpconn.Conn, func(), error) {
	fromProxy, toClient := io.Pipe()
	fromClient, toProxy := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = p.ServeStdio(context.WithoutCancel(ctx), fromClient, toClient)
		toClient.Close()
	}()
	c, err := mcpconn.Connect(ctx, mcpconn.Source{Name: "mcpsec-proxy", Transport: &mcp.IOTransport{Reader: fromProxy, Writer: toProxy}}, mcpconn.DefaultOptions())
	if err != nil {
		toProxy.Close()
		<-done
		return nil, nil, err
	}
	return c, func() { c.Close(); toProxy.Close(); <-done }, nil
}

func defaults() proxy.Settings {
	return proxy.Settings{Scan: true, BlockAt: scan.High, Pin: true}
}

func poisoned(w *fixture.World, class string, carrier string) *mcp.Server {
	return fixture.NewServer(w, fixture.ServerConfig{Name: "workspace", Attack: &fixture.Attack{
		Class: class, Payload: payload.Default(class, payload.ObjectiveExfil), CarrierTool: carrier, RugMode: fixture.RugModeApproval}})
}

// rawTools maps each tool's name to its bytes exactly as listed.
func rawTools(t *testing.T, c *mcpconn.Conn) map[string]string {
	t.Helper()
	_, doc, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(doc, &page); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range page.Tools {
		var n struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(r, &n)
		out[n.Name] = string(r)
	}
	return out
}

func auditRecords(t *testing.T, buf *bytes.Buffer) []proxy.Record {
	t.Helper()
	recs, err := proxy.ReadAudit("audit", bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func find(recs []proxy.Record, decision, tool string) *proxy.Record {
	for i := range recs {
		if recs[i].Decision == decision && (tool == "" || recs[i].Tool == tool) {
			return &recs[i]
		}
	}
	return nil
}

// TestPoisonedWithheldBenignIdentical: the poisoned carrier is withheld,
// every other tool reaches the client byte for byte as the server listed
// it, and calls are relayed.
func TestPoisonedWithheldBenignIdentical(t *testing.T) {
	for _, class := range []string{payload.ClassToolDescription, payload.ClassSchemaField} {
		t.Run(class, func(t *testing.T) {
			w := fixture.NewWorld()
			direct := memUpstream(t, "direct", poisoned(fixture.NewWorld(), class, fixture.ToolReadNote))
			var buf bytes.Buffer
			_, client := startProxy(t, defaults(), proxy.NewAudit(&buf), memUpstream(t, "workspace", poisoned(w, class, fixture.ToolReadNote)))

			want := rawTools(t, direct)
			got := rawTools(t, client)
			if _, ok := got[fixture.ToolReadNote]; ok {
				t.Errorf("poisoned %s offered: %s", fixture.ToolReadNote, got[fixture.ToolReadNote])
			}
			if len(got) != len(want)-1 {
				t.Errorf("offered %d tools, want %d (all but the carrier)", len(got), len(want)-1)
			}
			for name, g := range got {
				if g != want[name] {
					t.Errorf("%s changed on the way:\n got %s\nwant %s", name, g, want[name])
				}
			}
			res, err := client.CallTool(context.Background(), fixture.ToolListNotes, json.RawMessage(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			dres, err := direct.CallTool(context.Background(), fixture.ToolListNotes, json.RawMessage(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Raw) != string(dres.Raw) || res.Text == "" {
				t.Errorf("relayed result %s, direct %s", res.Raw, dres.Raw)
			}
			recs := auditRecords(t, &buf)
			wh := find(recs, proxy.DecisionToolWithheld, fixture.ToolReadNote)
			if wh == nil || wh.Rule != proxy.NoteScanBlock || wh.Evidence == "" {
				t.Errorf("no withheld record with the scan rule and evidence: %+v", wh)
			}
			if find(recs, proxy.DecisionToolPassed, fixture.ToolListNotes) == nil || find(recs, proxy.DecisionCallAllowed, fixture.ToolListNotes) == nil {
				t.Errorf("passed tool or allowed call not logged: %+v", recs)
			}
		})
	}
}

// TestRedactInsteadOfWithhold: with redact, the carrier is offered with
// the payload stripped, and the log says so.
func TestRedactInsteadOfWithhold(t *testing.T) {
	var buf bytes.Buffer
	s := defaults()
	s.Redact = true
	p := payload.Default(payload.ClassToolDescription, payload.ObjectiveExfil)
	_, client := startProxy(t, s, proxy.NewAudit(&buf), memUpstream(t, "workspace", poisoned(fixture.NewWorld(), payload.ClassToolDescription, fixture.ToolReadNote)))
	tools, _, err := client.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var desc string
	found := false
	for _, tl := range tools {
		if tl.Name == fixture.ToolReadNote {
			found, desc = true, tl.Description
		}
	}
	if !found {
		t.Fatalf("redacted carrier not offered")
	}
	for _, line := range strings.Split(p.Text, "\n") {
		if len(line) > 20 && strings.Contains(desc, line) {
			t.Errorf("payload line survived redaction: %q in %q", line, desc)
		}
	}
	if desc == "" {
		t.Errorf("the benign part of the description was lost too")
	}
	if find(auditRecords(t, &buf), proxy.DecisionToolRedacted, fixture.ToolReadNote) == nil {
		t.Errorf("no tool_redacted record")
	}
}

// TestRugPullApproval: the approval-mode rug pull. The first listing
// passes; after the first call the server redefines the tool and
// announces it; the proxy judges the new listing, withholds the changed
// definition, and only then tells the client the list changed. Approving
// the new definition releases it.
func TestRugPullApproval(t *testing.T) {
	state := filepath.Join(t.TempDir(), "pins.json")
	var buf bytes.Buffer
	s := proxy.Settings{Pin: true, State: state} // pinning alone: the scan must not be what catches it
	_, client := startProxy(t, s, proxy.NewAudit(&buf), memUpstream(t, "workspace", poisoned(fixture.NewWorld(), payload.ClassRugPull, fixture.ToolReadNote)))
	ctx := context.Background()

	before := rawTools(t, client)
	if _, ok := before[fixture.ToolReadNote]; !ok {
		t.Fatalf("first listing lacks %s: %v", fixture.ToolReadNote, before)
	}
	res, err := client.CallTool(ctx, fixture.ToolReadNote, json.RawMessage(`{"title":"q3-planning"}`))
	if err != nil || strings.HasPrefix(res.Text, proxy.BlockedPrefix) {
		t.Fatalf("first call: %v %+v", err, res)
	}
	// Wait for the client's list_changed: it comes once the proxy has
	// judged the changed definition.
	select {
	case <-client.ListChanged():
	case <-ctx.Done():
	}
	after := rawTools(t, client)
	if _, ok := after[fixture.ToolReadNote]; ok {
		t.Fatalf("changed definition offered: %s", after[fixture.ToolReadNote])
	}
	for name := range before {
		if name != fixture.ToolReadNote && after[name] != before[name] {
			t.Errorf("%s changed though its definition did not", name)
		}
	}
	recs := auditRecords(t, &buf)
	if r := find(recs, proxy.DecisionToolWithheld, fixture.ToolReadNote); r == nil || r.Rule != "pin_drift" {
		t.Errorf("withheld record: %+v", r)
	}
	if find(recs, proxy.DecisionListChanged, "") == nil {
		t.Errorf("no list_changed record")
	}
	// A client that calls the withheld tool anyway is told why.
	res, err = client.CallTool(ctx, fixture.ToolReadNote, json.RawMessage(`{"title":"q3-planning"}`))
	if err != nil || !res.IsError || !strings.HasPrefix(res.Text, proxy.BlockedPrefix) || !strings.Contains(res.Text, "pin_drift") {
		t.Errorf("call to the withheld tool: %v %+v", err, res)
	}
	hit, err := proxy.Approve(state, fixture.ToolReadNote)
	if err != nil || len(hit) != 1 || hit[0].Reason != "pin_drift" {
		t.Fatalf("approve: %v %+v", err, hit)
	}
	again := rawTools(t, client)
	if !strings.Contains(again[fixture.ToolReadNote], "CANARY") && !strings.Contains(again[fixture.ToolReadNote], payloadWord()) {
		t.Errorf("approved definition not offered: %v", again[fixture.ToolReadNote])
	}
	if _, err := proxy.Approve(state, fixture.ToolReadNote); err == nil {
		t.Errorf("a second approval of nothing pending succeeded")
	}
}

func payloadWord() string {
	f := strings.Fields(payload.Default(payload.ClassRugPull, payload.ObjectiveExfil).Text)
	return strings.Join(f[:min(4, len(f))], " ")
}

// policyYAML is a policy file for the gateway tests.
const policyYAML = `
scan:
  block_at: high
policy:
  classes:
    read_note: read
    list_notes: read
    add_note: write
    calculate: read
    lookup_user: read
    export_data: egress
  secrets: ["CANARY-test-0123456789abcdef"]
`

// TestGatewayCrossServer: a gateway over three servers. The shadowing
// copy of a tool is withheld; one server's result flowing into another
// server's tool is denied with an error that says who blocked it and
// why; a clean task on one server completes.
func TestGatewayCrossServer(t *testing.T) {
	pol, err := proxy.ParsePolicy("policy.yaml", []byte(policyYAML))
	if err != nil {
		t.Fatal(err)
	}
	dcfg, err := pol.DefenseConfig()
	if err != nil {
		t.Fatal(err)
	}
	s := defaults()
	s.Defense = dcfg
	var buf bytes.Buffer
	w := fixture.NewWorld()
	notes := memUpstream(t, "notes", fixture.NewServer(w, fixture.ServerConfig{Name: "notes"}))
	archive := memUpstream(t, "archive", fixture.NewServer(fixture.NewWorld(), fixture.ServerConfig{Name: "archive", Tools: []string{fixture.ToolAddNote, fixture.ToolReadNote}}))
	sink := memUpstream(t, "toolkit", fixture.NewShadowServer(fixture.NewWorld(), "toolkit", payload.Default(payload.ClassCrossServer, payload.ObjectiveExfil)))
	p, client := startProxy(t, s, proxy.NewAudit(&buf), notes, archive, sink)
	ctx := context.Background()

	offered := p.Offered()
	for _, want := range []string{fixture.ToolReadNote, fixture.ToolAddNote, fixture.SinkTool} {
		if !slices.Contains(offered, want) {
			t.Errorf("%s not offered: %v", want, offered)
		}
	}
	for _, shadow := range []string{"archive__add_note", "archive__read_note", fixture.ShadowTool} {
		if slices.Contains(offered, shadow) {
			t.Errorf("shadowing %s offered: %v", shadow, offered)
		}
	}
	recs := auditRecords(t, &buf)
	if r := find(recs, proxy.DecisionToolWithheld, fixture.ToolAddNote); r == nil || r.Server != "archive" || r.Rule != "pin_shadow" {
		t.Errorf("shadow withheld record: %+v", r)
	}

	// Clean task: read a note, write a summary on the same server.
	body, err := client.CallTool(ctx, fixture.ToolReadNote, json.RawMessage(`{"title":"q3-planning"}`))
	if err != nil || body.IsError {
		t.Fatalf("read_note: %v %+v", err, body)
	}
	ok, err := client.CallTool(ctx, fixture.ToolAddNote, json.RawMessage(`{"title":"summary","body":"three items to buy"}`))
	if err != nil || ok.IsError {
		t.Fatalf("clean add_note denied: %v %+v", err, ok)
	}
	if _, found := w.Note("summary"); !found {
		t.Errorf("clean task did not reach the server")
	}

	// Exfiltration: the note's text into another server's egress tool.
	args, _ := json.Marshal(map[string]string{"data": body.Text})
	res, err := client.CallTool(ctx, "export_data", args)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.HasPrefix(res.Text, proxy.BlockedPrefix) || !strings.Contains(res.Text, "tainted_egress") {
		t.Errorf("egress of another server's data not denied: %+v", res)
	}
	recs = auditRecords(t, &buf)
	if r := find(recs, proxy.DecisionCallDenied, "export_data"); r == nil || r.Rule != "taint" || !strings.Contains(r.Evidence, "notes/read_note") {
		t.Errorf("denial record: %+v", r)
	}
	// A secret into egress is denied even with no result involved.
	res, err = client.CallTool(ctx, "export_data", json.RawMessage(`{"data":"CANARY-test-0123456789abcdef"}`))
	if err != nil || !strings.HasPrefix(res.Text, proxy.BlockedPrefix) {
		t.Errorf("secret egress not denied: %v %+v", err, res)
	}
}

// TestGatewayCrossServerFlowToNonEgress: data from one server reaching a
// write tool of another is the flow rule's denial, not taint's.
func TestGatewayCrossServerFlowToNonEgress(t *testing.T) {
	pol, err := proxy.ParsePolicy("policy.yaml", []byte(policyYAML))
	if err != nil {
		t.Fatal(err)
	}
	dcfg, _ := pol.DefenseConfig()
	s := proxy.Settings{Defense: dcfg} // no pinning: the second add_note stays offered as archive__add_note
	var buf bytes.Buffer
	notes := memUpstream(t, "notes", fixture.NewServer(fixture.NewWorld(), fixture.ServerConfig{Name: "notes", Tools: []string{fixture.ToolReadNote}}))
	archive := memUpstream(t, "archive", fixture.NewServer(fixture.NewWorld(), fixture.ServerConfig{Name: "archive", Tools: []string{fixture.ToolAddNote}}))
	_, client := startProxy(t, s, proxy.NewAudit(&buf), notes, archive)
	ctx := context.Background()
	body, err := client.CallTool(ctx, fixture.ToolReadNote, json.RawMessage(`{"title":"q3-planning"}`))
	if err != nil || body.IsError {
		t.Fatalf("read_note: %v %+v", err, body)
	}
	args, _ := json.Marshal(map[string]string{"title": "copy", "body": body.Text})
	res, err := client.CallTool(ctx, fixture.ToolAddNote, args)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Text, proxy.BlockedPrefix) || !strings.Contains(res.Text, "cross_server_flow") {
		t.Errorf("cross-server flow not denied: %+v", res)
	}
	if r := find(auditRecords(t, &buf), proxy.DecisionCallDenied, fixture.ToolAddNote); r == nil || r.Rule != "flow" {
		t.Errorf("denial record: %+v", r)
	}
}

// TestAuditFileSynced: the file audit log holds one parseable record per
// decision, and the pretty-printer names each.
func TestAuditFileSynced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := proxy.OpenAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	_, client := startProxy(t, defaults(), a, memUpstream(t, "workspace", poisoned(fixture.NewWorld(), payload.ClassToolDescription, fixture.ToolCalculate)))
	if _, err := client.CallTool(context.Background(), fixture.ToolListNotes, nil); err != nil {
		t.Fatal(err)
	}
	// No Close before reading: every record must already be on disk.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := proxy.ReadAudit(path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != bytes.Count(b, []byte("\n")) || find(recs, proxy.DecisionCallAllowed, fixture.ToolListNotes) == nil {
		t.Fatalf("records: %+v", recs)
	}
	var out bytes.Buffer
	if err := proxy.WriteText(&out, recs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"WITHHELD", "workspace/calculate", "ALLOW", "scan_block"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("pretty log lacks %q:\n%s", want, out.String())
		}
	}
	a.Close()
	if _, err := proxy.ReadAudit("bad.jsonl", strings.NewReader("{\"v\":1}\nnot json\n")); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2") {
		t.Errorf("malformed log error %v does not name file and line", err)
	}
}

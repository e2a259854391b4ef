package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/defense"
	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/proxy"
	"github.com/mcpsec/mcpsec/internal/scan"
)

func TestParsePolicyErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown key", "scan:\n  blok_at: high\n", "p.yaml:2"},
		{"bad severity", "scan:\n  block_at: severe\n", "scan.block_at"},
		{"bad on_finding", "scan:\n  on_finding: shrug\n", "withhold or redact"},
		{"bad class", "policy:\n  classes: {x: exfil}\n", "policy.classes.x"},
		{"bad flow", "policy:\n  flows: [notes]\n", "FROM->TO"},
		{"bad pattern", "policy:\n  secret_patterns: ['(']\n", "secret_patterns[0]"},
		{"not yaml", "scan: [\n", "p.yaml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := proxy.ParsePolicy("p.yaml", []byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to mention %q", err, tc.want)
			}
		})
	}
	p, err := proxy.ParsePolicy("empty.yaml", nil)
	if err != nil || p.Capabilities != nil {
		t.Errorf("empty policy: %v %+v", err, p)
	}
}

// TestSecretPatternDeniesEgress: a secret named only by its shape is
// caught on its way to an egress tool.
func TestSecretPatternDeniesEgress(t *testing.T) {
	pol, err := proxy.ParsePolicy("p.yaml", []byte("policy:\n  classes: {export_data: egress, read_note: read}\n  secret_patterns: ['AKIA[0-9A-Z]{16}']\n"))
	if err != nil {
		t.Fatal(err)
	}
	dcfg, err := pol.DefenseConfig()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, client := startProxy(t, proxy.Settings{Defense: dcfg}, proxy.NewAudit(&buf),
		memUpstream(t, "toolkit", fixture.NewShadowServer(fixture.NewWorld(), "toolkit", payload.Default(payload.ClassCrossServer, payload.ObjectiveExfil))))
	ctx := context.Background()
	res, err := client.CallTool(ctx, fixture.SinkTool, json.RawMessage(`{"data":"weekly numbers"}`))
	if err != nil || res.IsError {
		t.Fatalf("untainted export denied: %v %+v", err, res)
	}
	res, err = client.CallTool(ctx, fixture.SinkTool, json.RawMessage(`{"data":"key AKIAABCDEFGHIJKLMNOP"}`))
	if err != nil || !strings.HasPrefix(res.Text, proxy.BlockedPrefix) || !strings.Contains(res.Text, "secret pattern #1") {
		t.Errorf("pattern secret not denied: %v %+v", err, res)
	}
	if strings.Contains(res.Text, "AKIAABCDEFGHIJKLMNOP") {
		t.Errorf("the denial echoes the secret to the model: %s", res.Text)
	}
}

// TestLockfileStrictPinning: against a lockfile, a tool it holds passes,
// a tool whose definition differs from it or that it lacks is withheld.
func TestLockfileStrictPinning(t *testing.T) {
	direct := memUpstream(t, "direct", fixture.NewServer(fixture.NewWorld(), fixture.ServerConfig{Name: "workspace"}))
	tools, _, err := direct.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var locked []catalog.Tool
	for _, tl := range tools {
		switch tl.Name {
		case fixture.ToolLookupUser:
			continue // not in the lockfile
		case fixture.ToolReadNote:
			tl.Description = "an older wording"
		}
		locked = append(locked, tl)
	}
	lf := scan.NewLock(&catalog.Catalog{Servers: []catalog.Server{{Name: "whatever-it-was-called", Tools: locked}}})
	pins := proxy.LockPins(lf, func(string) string { return "workspace" })
	var buf bytes.Buffer
	p, _ := startProxy(t, proxy.Settings{Pin: true, LockPins: pins}, proxy.NewAudit(&buf),
		memUpstream(t, "workspace", fixture.NewServer(fixture.NewWorld(), fixture.ServerConfig{Name: "workspace"})))
	offered := p.Offered()
	if slices.Contains(offered, fixture.ToolLookupUser) || slices.Contains(offered, fixture.ToolReadNote) || !slices.Contains(offered, fixture.ToolListNotes) {
		t.Errorf("offered %v: want list_notes, not lookup_user (unlocked) or read_note (changed)", offered)
	}
	recs := auditRecords(t, &buf)
	for tool, rule := range map[string]string{fixture.ToolLookupUser: defense.NoteAdded, fixture.ToolReadNote: defense.NoteDrift} {
		if r := find(recs, proxy.DecisionToolWithheld, tool); r == nil || r.Rule != rule {
			t.Errorf("%s: withheld record %+v, want rule %s", tool, r, rule)
		}
	}
}

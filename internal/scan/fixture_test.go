package scan_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/scan"
	"github.com/mcpsec/mcpsec/internal/source"
)

// fetchInMemory lists a fixture server's catalog through the real MCP
// client over an in-memory transport pair.
func fetchInMemory(t *testing.T, srv *mcp.Server, name string) catalog.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	s, err := source.Fetch(ctx, mcpconn.Source{Name: name, Transport: ct}, mcpconn.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFixtureServers: the benign fixture server is clean, and every
// metadata payload served where its carrier says (description, property
// title, default, enum, nested item, shadow server) is flagged at medium
// or above. Metadata-drift payloads are served as description changes.
func TestFixtureServers(t *testing.T) {
	benign := fetchInMemory(t, fixture.NewServer(fixture.NewWorld(), fixture.ServerConfig{}), "workspace")
	rep := scan.Scan(&catalog.Catalog{Servers: []catalog.Server{benign}}, scan.Options{})
	for _, f := range rep.All() {
		if f.Severity >= scan.Medium {
			t.Errorf("benign fixture server flagged: %s %s %s/%s %q", f.Severity, f.RuleID, f.Tool, f.Location, f.Evidence)
		}
	}
	counts := map[string][2]int{}
	for _, p := range payload.All() {
		if p.Carrier == payload.CarrierResult {
			continue
		}
		w := fixture.NewWorld()
		var c catalog.Catalog
		switch p.Class {
		case payload.ClassCrossServer:
			target := fetchInMemory(t, fixture.NewServer(w, fixture.ServerConfig{Attack: &fixture.Attack{Class: p.Class, Payload: p}}), "workspace")
			shadow := fetchInMemory(t, fixture.NewShadowServer(w, "", p), "summary-helper")
			c.Servers = []catalog.Server{target, shadow}
		case payload.ClassToolDescription, payload.ClassSchemaField:
			c.Servers = []catalog.Server{fetchInMemory(t, fixture.NewServer(w, fixture.ServerConfig{Attack: &fixture.Attack{Class: p.Class, Payload: p}}), "workspace")}
		default:
			dp := p
			dp.Class = payload.ClassToolDescription
			dp.Carrier = payload.CarrierDescription
			c.Servers = []catalog.Server{fetchInMemory(t, fixture.NewServer(w, fixture.ServerConfig{Attack: &fixture.Attack{Class: dp.Class, Payload: dp}}), "workspace")}
		}
		n := counts[p.Register]
		n[1]++
		if scan.SeverityAtLeast(scan.Scan(&c, scan.Options{}).All(), scan.Medium) {
			n[0]++
		} else {
			t.Logf("missed %s (%s, %s)", p.ID, p.Class, p.Carrier)
		}
		counts[p.Register] = n
	}
	for reg, n := range counts {
		t.Logf("served by fixture servers: %s %d/%d flagged", reg, n[0], n[1])
		floor := 1.0
		if reg == payload.RegisterHeldOut {
			floor = 0.95
		}
		if float64(n[0]) < floor*float64(n[1]) {
			t.Errorf("%s: %d/%d flagged, below %.0f%%", reg, n[0], n[1], 100*floor)
		}
	}
}

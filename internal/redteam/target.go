package redteam

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/bench"
	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
)

// FixtureServer is the name of the bundled fixture target.
const FixtureServer = "workspace"

// Target is the server set a run attacks: the user's servers, or the
// bundled fixture server when Sources is empty. The attacker server is
// added beside it on every attempt.
type Target struct {
	Sources []mcpconn.Source
	Conn    mcpconn.Options

	once    sync.Once
	tools   map[string][]string // server -> tool names
	listErr error
}

// Describe says in a few words what is attacked.
func (t *Target) Describe() string {
	if len(t.Sources) == 0 {
		return "bundled fixture server (" + FixtureServer + ")"
	}
	var parts []string
	for _, s := range t.Sources {
		parts = append(parts, sourceName(s))
	}
	return strings.Join(parts, ", ")
}

func sourceName(s mcpconn.Source) string {
	switch {
	case s.Name != "":
		return s.Name
	case s.URL != "":
		return s.URL
	case len(s.Command) > 0:
		return strings.Join(s.Command, " ")
	}
	return "server"
}

// serverName keeps a configured name's identifier characters; unnamed
// servers (--stdio, --url) are "target".
func serverName(configured string) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '-'
	}, configured)
	name = strings.Trim(name, "-")
	if name == "" || name == AttackerServer {
		return "target"
	}
	return name
}

func (t *Target) conn() mcpconn.Options {
	if t.Conn.CallTimeout == 0 {
		return mcpconn.DefaultOptions()
	}
	return t.Conn
}

// connect starts (or reaches) every target server for one attempt.
// Fixture servers get a fresh world each time, so attempts never share
// state.
func (t *Target) connect(ctx context.Context) ([]*mcpconn.Conn, error) {
	var conns []*mcpconn.Conn
	fail := func(err error) ([]*mcpconn.Conn, error) {
		for _, c := range conns {
			_ = c.Close()
		}
		return nil, err
	}
	if len(t.Sources) == 0 {
		srv := fixture.NewServer(fixture.NewWorld(), fixture.ServerConfig{Name: FixtureServer})
		c, err := inMemory(ctx, srv, FixtureServer, t.conn())
		if err != nil {
			return fail(err)
		}
		return []*mcpconn.Conn{c}, nil
	}
	names := map[string]int{}
	for _, s := range t.Sources {
		src := s
		// Server names key the agent's routing and qualify colliding tool
		// names, so they stay short identifiers and never repeat.
		name := serverName(s.Name)
		names[name]++
		if n := names[name]; n > 1 {
			name = fmt.Sprintf("%s-%d", name, n)
		}
		src.Name = name
		c, err := mcpconn.Connect(ctx, src, t.conn())
		if err != nil {
			return fail(err)
		}
		conns = append(conns, c)
	}
	return conns, nil
}

func inMemory(ctx context.Context, srv *mcp.Server, name string, opts mcpconn.Options) (*mcpconn.Conn, error) {
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	return mcpconn.Connect(ctx, mcpconn.Source{Name: name, Transport: ct}, opts)
}

// Tools lists the target's tools once per run (server name -> tool
// names), to decide which scenarios apply.
func (t *Target) Tools(ctx context.Context) (map[string][]string, error) {
	t.once.Do(func() {
		conns, err := t.connect(ctx)
		if err != nil {
			t.listErr = err
			return
		}
		defer func() {
			for _, c := range conns {
				_ = c.Close()
			}
		}()
		t.tools = map[string][]string{}
		for _, c := range conns {
			tools, _, err := c.ListTools(ctx)
			if err != nil {
				t.listErr = fmt.Errorf("server %s: tools/list: %w", c.Name(), err)
				return
			}
			for _, tl := range tools {
				t.tools[c.Name()] = append(t.tools[c.Name()], tl.Name)
			}
		}
	})
	return t.tools, t.listErr
}

// Applicability says whether a scenario can run against the listed tools,
// and on which server its carrier tool lives.
func Applicability(sc Scenario, tools map[string][]string) (server, reason string, ok bool) {
	servers := make([]string, 0, len(tools))
	for s := range tools {
		servers = append(servers, s)
	}
	sort.Strings(servers)
	find := func(tool string) string {
		for _, s := range servers {
			if slices.Contains(tools[s], tool) {
				return s
			}
		}
		return ""
	}
	need := slices.Clone(sc.Requires)
	if sc.Carrier.Kind != CarrierServer && !slices.Contains(need, sc.Carrier.Tool) {
		need = append(need, sc.Carrier.Tool)
	}
	var missing []string
	for _, n := range need {
		if find(n) == "" {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		var all []string
		for _, s := range servers {
			all = append(all, tools[s]...)
		}
		sort.Strings(all)
		offers := strings.Join(all, ", ")
		if len(all) > 12 {
			offers = fmt.Sprintf("%s and %d more", strings.Join(all[:12], ", "), len(all)-12)
		}
		if len(all) == 0 {
			offers = "no tools"
		}
		return "", fmt.Sprintf("the target has no tool %s (it offers: %s)", strings.Join(quoteAll(missing), ", "), offers), false
	}
	if sc.Carrier.Kind == CarrierServer {
		return AttackerServer, "", true
	}
	return find(sc.Carrier.Tool), "", true
}

func quoteAll(in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// agentServers adapts connections with bench's adapter, so redteam and
// bench drive the agent loop through the same code.
func agentServers(conns []*mcpconn.Conn) []agent.Server {
	out := make([]agent.Server, len(conns))
	for i, c := range conns {
		out[i] = bench.AgentServer(c)
	}
	return out
}

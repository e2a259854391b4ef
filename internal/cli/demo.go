package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/mcpsec/mcpsec/internal/bench"
	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/model"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/scan"
	"github.com/mcpsec/mcpsec/internal/source"
)

func init() { register(newDemoCmd) }

// keyedProviders maps a provider's key variable to a small model the demo
// adds when that key is set.
var keyedProviders = []struct{ env, spec string }{
	{"ANTHROPIC_API_KEY", "anthropic:claude-haiku-4-5"},
	{"OPENAI_API_KEY", "openai:gpt-4o-mini"},
	{"DEEPSEEK_API_KEY", "deepseek:deepseek-chat"},
	{"GEMINI_API_KEY", "gemini:gemini-2.5-flash"},
}

func newDemoCmd(env *Env) *cobra.Command {
	var out string
	var models []string
	var perClass int
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Scan the bundled poisoned servers, then run the built-in benchmark offline",
		Long: `The whole job in one command, offline:

 1. scan: every bundled poisoned fixture server (one per attack class, with
    its seen payload) is listed over MCP and judged by the scanner; the
    rug-pull and drift servers are locked first and re-scanned after their
    first call, which is how a lockfile catches them;
 2. bench: the built-in grid runs with the control agents (and any model
    whose API key is set, or the --model you name) into a run directory;
 3. the attack-success matrix is printed; the run directory holds the rest,
    and the last line is the path of report.html, a page to open in a browser.

Control agents are not models: control:reference does the task,
control:compromised also obeys any injection it can see, control:refuse
does nothing. They prove the fixtures, scorers and defenses right.`,
		Example: `  go run ./cmd/mcpsec demo
  mcpsec demo --out results/demo --model openai:gpt-4o-mini`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if err := demoScan(ctx, env.Stdout, env.Conn); err != nil {
				return err
			}
			g := bench.DefaultGrid()
			if len(models) > 0 {
				g.Models = append(g.Models, splitList(joinComma(models))...)
			} else {
				for _, kp := range keyedProviders {
					if env.Getenv(kp.env) != "" {
						g.Models = append(g.Models, kp.spec)
					}
				}
			}
			for _, m := range g.Models {
				if !model.IsControl(m) {
					if _, _, _, err := model.ParseSpec(m); err != nil {
						return inputErrf("model %q: %v", m, err)
					}
				}
			}
			if out == "" {
				out = filepath.Join("results", "demo-"+time.Now().UTC().Format("20060102T150405Z"))
			}
			sel := bench.Select(g.Expand(), bench.Shard{Index: 1, Count: 1}, 0, perClass)
			n := len(sel)
			perModel := map[string]int{}
			for _, t := range sel {
				perModel[t.Model]++
			}
			for _, m := range g.Models {
				if !model.IsControl(m) {
					// A real model costs money: say so before spending it.
					fmt.Fprintf(env.Stderr, "demo: model %s will run %d live trials (its key is set or it was named); --limit-per-class N samples fewer\n", m, perModel[m])
				}
			}
			fmt.Fprintf(env.Stdout, "\n== bench: built-in grid, %d trials ==\n", n)
			_, err := sweepAndReport(ctx, env, g, out, benchFlags{perClass: perClass, html: true}, bench.Shard{Index: 1, Count: 1})
			return err
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "run directory (default results/demo-<UTC timestamp>)")
	cmd.Flags().IntVar(&perClass, "limit-per-class", 0, "run at most N trials per (model, arm, class) for a quicker look")
	cmd.Flags().StringSliceVar(&models, "model", nil, "also run these model specs (default: one small model per provider whose API key is set)")
	return cmd
}

func joinComma(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ","
		}
		s += x
	}
	return s
}

// demoScan scans one poisoned fixture per class and prints grades and the
// top findings.
func demoScan(ctx context.Context, w io.Writer, opts mcpconn.Options) error {
	fmt.Fprintln(w, "== scan: the bundled poisoned servers (seen exfil payloads) ==")
	for _, class := range payload.Classes {
		p := payload.Default(class, payload.ObjectiveExfil)
		world := fixture.NewWorld()
		var servers []*mcp.Server
		mode := ""
		switch class {
		case payload.ClassCrossServer:
			servers = []*mcp.Server{
				fixture.NewServer(world, fixture.ServerConfig{Name: "workspace"}),
				fixture.NewShadowServer(world, fixture.ShadowServerName, p),
			}
		case payload.ClassRugPull:
			mode = fixture.RugModeApproval
			fallthrough
		default:
			servers = []*mcp.Server{fixture.NewServer(world, fixture.ServerConfig{Name: "workspace",
				Attack: &fixture.Attack{Class: class, Payload: p, RugMode: mode}})}
		}
		conns, err := demoConnect(ctx, servers, opts)
		if err != nil {
			return err
		}
		cat, err := listCatalog(ctx, conns)
		if err != nil {
			closeConns(conns)
			return err
		}
		rep := scan.Scan(cat, scan.Options{})
		label := class
		if mode != "" {
			label += " (approval)"
		}
		printDemoReport(w, label, rep)
		if class == payload.ClassRugPull || class == payload.ClassMetadataDrift {
			lock := scan.NewLock(cat)
			// The first call is the "approval" after which the server
			// changes what it lists.
			if _, err := conns[0].CallTool(ctx, "calculate", json.RawMessage(`{"expression":"1+1"}`)); err != nil {
				closeConns(conns)
				return fmt.Errorf("demo: call fixture: %w", err)
			}
			after, err := listCatalog(ctx, conns)
			if err != nil {
				closeConns(conns)
				return err
			}
			printDemoReport(w, label+", after the first call, against the lockfile", scan.Scan(after, scan.Options{Lock: lock}))
		}
		closeConns(conns)
	}
	return nil
}

func demoConnect(ctx context.Context, servers []*mcp.Server, opts mcpconn.Options) ([]*mcpconn.Conn, error) {
	var conns []*mcpconn.Conn
	for i, s := range servers {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := s.Connect(ctx, st, nil); err != nil {
			closeConns(conns)
			return nil, fmt.Errorf("demo: start fixture: %w", err)
		}
		name := "workspace"
		if i > 0 {
			name = fixture.ShadowServerName
		}
		c, err := mcpconn.Connect(ctx, mcpconn.Source{Name: name, Transport: ct}, opts)
		if err != nil {
			closeConns(conns)
			return nil, err
		}
		conns = append(conns, c)
	}
	return conns, nil
}

func closeConns(cs []*mcpconn.Conn) {
	for _, c := range cs {
		_ = c.Close()
	}
}

func listCatalog(ctx context.Context, conns []*mcpconn.Conn) (*catalog.Catalog, error) {
	servers := make([]source.Server, 0, len(conns))
	for _, c := range conns {
		s, err := source.List(ctx, c, c.Name())
		if err != nil {
			return nil, err
		}
		servers = append(servers, s)
	}
	return source.Catalog(servers), nil
}

func printDemoReport(w io.Writer, label string, rep scan.Report) {
	for _, s := range rep.Servers {
		fmt.Fprintf(w, "\n%-28s server %-10s grade %s (%d findings)\n", label, s.Name, s.Grade, len(s.Findings))
		for i, f := range s.Findings {
			if i == 3 {
				fmt.Fprintf(w, "    ... %d more\n", len(s.Findings)-3)
				break
			}
			tool := f.Tool
			if tool == "" {
				tool = "-"
			}
			ev := f.Evidence
			if len([]rune(ev)) > 70 {
				ev = string([]rune(ev)[:70]) + "…"
			}
			fmt.Fprintf(w, "    %-8s %-28s %s %s: %q\n", f.Severity, f.RuleID, tool, f.Location, ev)
		}
	}
}

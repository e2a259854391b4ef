package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/scan"
	"github.com/mcpsec/mcpsec/internal/scan/source"
)

func init() { register(newScanCmd) }

// sourceFlags are the catalog sources shared by scan and lock.
type sourceFlags struct {
	catalogs  []string
	stdio     []string
	urls      []string
	configs   []string
	allowExec bool
	passEnv   []string
	timeout   time.Duration
}

func (sf *sourceFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringArrayVar(&sf.catalogs, "catalog", nil, "catalog `FILE`: a tools/list result {\"tools\":[...]} or {\"servers\":[...]} (repeatable)")
	f.StringArrayVar(&sf.stdio, "stdio", nil, "start a stdio MCP server with this command line, e.g. \"node server.js\" (repeatable)")
	f.StringArrayVar(&sf.urls, "url", nil, "connect to a streamable-HTTP MCP server at `URL` (repeatable)")
	f.StringArrayVar(&sf.configs, "config", nil, "MCP client config `FILE` (Claude Desktop/Cursor mcpServers, VS Code servers or mcp.servers)")
	f.BoolVar(&sf.allowExec, "allow-exec", false, "allow starting the server commands listed in --config files")
	f.StringArrayVar(&sf.passEnv, "pass-env", nil, "hand the environment variable `NAME` to started servers, which otherwise get only "+mcpconn.MinimalEnvNames+" (repeatable)")
	f.DurationVar(&sf.timeout, "timeout", 0, "connect timeout per live server (default: --connect-timeout, 10s)")
}

// loaded is a catalog with what the SARIF writer needs to point into it.
type loaded struct {
	cat   *catalog.Catalog
	sarif scan.SARIFSource
}

func (sf *sourceFlags) load(ctx context.Context, env *Env) (*loaded, error) {
	if len(sf.catalogs)+len(sf.stdio)+len(sf.urls)+len(sf.configs) == 0 {
		return nil, inputErrf("no catalog source: give --catalog FILE, --stdio CMD, --url URL or --config FILE")
	}
	out := &loaded{cat: &catalog.Catalog{}, sarif: scan.SARIFSource{ServerURIs: map[string]string{}}}
	names := map[string]int{}
	addServer := func(s catalog.Server, uri string) {
		names[s.Name]++
		if n := names[s.Name]; n > 1 {
			s.Name = fmt.Sprintf("%s#%d", s.Name, n)
		}
		out.cat.Servers = append(out.cat.Servers, s)
		out.sarif.ServerURIs[s.Name] = uri
	}
	for _, path := range sf.catalogs {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, inputErrf("catalog: %w", err)
		}
		c, err := catalog.Parse(path, data)
		if err != nil {
			return nil, inputErr(err)
		}
		for _, s := range c.Servers {
			addServer(s, path)
		}
		if len(sf.catalogs) == 1 && len(sf.stdio)+len(sf.urls)+len(sf.configs) == 0 {
			out.sarif.URI, out.sarif.Data, out.sarif.Catalog = path, data, c
		}
	}
	// The global --protocol-version, --connect-timeout and --call-timeout
	// apply; --timeout is kept as this command's shorthand for the
	// connect timeout.
	opts := env.Conn
	if opts.CallTimeout == 0 {
		opts = mcpconn.DefaultOptions()
	}
	if sf.timeout > 0 {
		opts.ConnectTimeout = sf.timeout
	}
	live, liveURI, err := sf.liveSources(env)
	if err != nil {
		return nil, err
	}
	for i, src := range live {
		srv, err := source.Fetch(ctx, src, opts)
		if err != nil {
			return nil, inputErr(err)
		}
		if srv.Name == "" || (src.Name == "" && len(src.Command) > 0 && srv.Name == strings.Join(src.Command, " ")) {
			srv.Name = source.StdioName(src.Command)
		}
		addServer(srv, liveURI[i])
	}
	return out, nil
}

// liveSources turns the --stdio, --url and --config flags into server
// sources (with a URI each for reports). Commands from config files run
// only with --allow-exec; without it the commands are listed and refused.
func (sf *sourceFlags) liveSources(env *Env) ([]mcpconn.Source, []string, error) {
	// A started server is under inspection and gets a minimal
	// environment, never mcpsec's keys; --pass-env adds one on purpose.
	for _, name := range sf.passEnv {
		if err := mcpconn.CheckEnvName(name); err != nil {
			return nil, nil, inputErrf("--pass-env: %w", err)
		}
		if _, ok := os.LookupEnv(name); !ok {
			fmt.Fprintf(env.Stderr, "--pass-env %s: not set in this environment, so not passed\n", name)
		}
	}
	var live []mcpconn.Source
	var liveURI []string
	for _, line := range sf.stdio {
		argv, err := source.SplitCommand(line)
		if err != nil {
			return nil, nil, inputErrf("--stdio: %w", err)
		}
		live = append(live, mcpconn.Source{Command: argv, PassEnv: sf.passEnv})
		liveURI = append(liveURI, "stdio:"+url.PathEscape(source.StdioName(argv)))
	}
	for _, u := range sf.urls {
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return nil, nil, inputErrf("--url %q: want an http:// or https:// URL", u)
		}
		live = append(live, mcpconn.Source{URL: u})
		liveURI = append(liveURI, u)
	}
	for _, path := range sf.configs {
		entries, err := source.LoadConfig(path)
		if err != nil {
			return nil, nil, inputErr(err)
		}
		var cmds []source.ConfigServer
		for _, e := range entries {
			if len(e.Command) > 0 {
				cmds = append(cmds, e)
			}
		}
		if len(cmds) > 0 && !sf.allowExec {
			fmt.Fprintf(env.Stderr, "%s lists %d server command(s); mcpsec would run:\n", path, len(cmds))
			for _, e := range cmds {
				fmt.Fprintf(env.Stderr, "  %s\n", e.Describe())
			}
			return nil, nil, inputErrf("refusing to start server commands from %s without --allow-exec", path)
		}
		for _, e := range entries {
			if e.URL != "" {
				live = append(live, mcpconn.Source{Name: e.Name, URL: e.URL})
				liveURI = append(liveURI, e.URL)
				continue
			}
			src := mcpconn.Source{Name: e.Name, Command: e.Command, PassEnv: sf.passEnv}
			keys := make([]string, 0, len(e.Env))
			for k := range e.Env {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				src.Env = append(src.Env, k+"="+e.Env[k])
			}
			live = append(live, src)
			liveURI = append(liveURI, "stdio:"+url.PathEscape(e.Name))
		}
	}
	return live, liveURI, nil
}

func newScanCmd(env *Env) *cobra.Command {
	var (
		sf       sourceFlags
		format   string
		failOn   string
		lockPath string
	)
	cmd := &cobra.Command{
		Use:   "scan",
		Short: "Judge MCP server catalogs for tool poisoning, without a model",
		Long: `Scan reads one or more MCP server catalogs and reports tool poisoning:
instructions aimed at the model, hidden or encoded text, non-English
instructions, cross-tool influence, exfiltration-shaped parameters and
look-alike tool names. Each server gets a grade A-F.

With --lock it also reports drift against a lockfile written by
"mcpsec lock": added, removed, changed (with a diff) and renamed tools.

--format html writes one self-contained page (no script, no fetch): each
server's grade, its findings grouped by tool with the evidence marked in
the text it matched and hidden characters made visible, and with --lock a
word-level diff of every changed definition.

Exit codes: 0 done; 1 a finding at or above --fail-on; 2 input or setup
error (bad JSON names the line and byte offset, an unreachable server is
named).`,
		Example: `  mcpsec scan --catalog tools.json
  mcpsec scan --stdio "npx -y @modelcontextprotocol/server-memory" --format json
  mcpsec scan --config ~/.cursor/mcp.json --allow-exec --fail-on high
  mcpsec scan --stdio "npx -y @modelcontextprotocol/server-github" --pass-env GITHUB_TOKEN
  mcpsec scan --catalog tools.json --lock mcp.lock --format sarif > mcpsec.sarif
  mcpsec scan --catalog tools.json --lock mcp.lock --format html > scan.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var threshold scan.Severity
			if failOn != "" {
				s, err := scan.ParseSeverity(failOn)
				if err != nil {
					return inputErrf("--fail-on: %w", err)
				}
				threshold = s
			}
			switch format {
			case "text", "json", "sarif", "html":
			default:
				return inputErrf("--format %q: want text, json, sarif or html", format)
			}
			var opts scan.Options
			if lockPath != "" {
				lf, err := scan.ReadLock(lockPath)
				if err != nil {
					if errors.Is(err, catalog.ErrInput) {
						return inputErr(err)
					}
					return inputErrf("--lock: %w", err)
				}
				opts.Lock = lf
			}
			ld, err := sf.load(cmd.Context(), env)
			if err != nil {
				return err
			}
			rep := scan.Scan(ld.cat, opts)
			switch format {
			case "json":
				err = scan.WriteJSON(env.Stdout, rep)
			case "sarif":
				v, _, _ := BuildInfo()
				err = scan.WriteSARIF(env.Stdout, rep, ld.sarif, v)
			case "html":
				v, _, _ := BuildInfo()
				err = scan.HTMLWriter{Catalog: ld.cat, Lock: opts.Lock, Version: v}.Write(env.Stdout, rep)
			default:
				err = scan.WriteText(env.Stdout, rep, isTerminal(env.Stdout) && env.Getenv("NO_COLOR") == "")
			}
			if err != nil {
				return err
			}
			if failOn != "" {
				n := 0
				for _, f := range rep.All() {
					if f.Severity >= threshold {
						n++
					}
				}
				if n > 0 {
					return &ExitError{Code: ExitFailOn, Err: fmt.Errorf("%d finding(s) at or above %s", n, threshold)}
				}
			}
			return nil
		},
	}
	sf.add(cmd)
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json, sarif or html (one self-contained page)")
	cmd.Flags().StringVar(&failOn, "fail-on", "", "exit 1 when a finding at or above this `SEVERITY` exists (info, low, medium, high, critical)")
	cmd.Flags().StringVar(&lockPath, "lock", "", "report drift against this lockfile (from mcpsec lock)")
	return cmd
}

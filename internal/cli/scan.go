package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/scan"
	"github.com/mcpsec/mcpsec/internal/source"
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

// loaded is what the sources gave: the catalog to judge and, per
// server, the document it came from.
type loaded struct {
	servers []source.Server
	cat     *catalog.Catalog
	origins map[string]scan.Origin
}

func (sf *sourceFlags) spec(env *Env) (source.Spec, error) {
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
	// A started server is under inspection and gets a minimal
	// environment, never mcpsec's keys; --pass-env adds one on purpose.
	for _, name := range sf.passEnv {
		if err := mcpconn.CheckEnvName(name); err != nil {
			return source.Spec{}, inputErrf("--pass-env: %w", err)
		}
		if _, ok := os.LookupEnv(name); !ok {
			fmt.Fprintf(env.Stderr, "--pass-env %s: not set in this environment, so not passed\n", name)
		}
	}
	return source.Spec{
		Catalogs: sf.catalogs, Stdio: sf.stdio, URLs: sf.urls, Configs: sf.configs,
		AllowExec: sf.allowExec, PassEnv: sf.passEnv, Conn: opts, Log: env.Stderr,
	}, nil
}

func (sf *sourceFlags) load(ctx context.Context, env *Env) (*loaded, error) {
	sp, err := sf.spec(env)
	if err != nil {
		return nil, err
	}
	servers, err := source.Load(ctx, sp)
	if err != nil {
		return nil, inputErr(err)
	}
	ld := &loaded{servers: servers, cat: source.Catalog(servers), origins: map[string]scan.Origin{}}
	for i, s := range servers {
		ld.origins[s.Def.Name] = scan.Origin{
			URI: s.URI, Data: s.Data, Pointer: s.Pointer, ToolSuffix: s.ToolSuffix,
			Server: &ld.cat.Servers[i], Embed: s.Kind != source.KindFile,
		}
	}
	return ld, nil
}

// liveSources turns the --stdio, --url and --config flags into server
// sources for commands that keep the connections open (redteam).
// Commands from config files run only with --allow-exec.
func (sf *sourceFlags) liveSources(env *Env) ([]mcpconn.Source, error) {
	sp, err := sf.spec(env)
	if err != nil {
		return nil, err
	}
	srcs, err := sp.LiveSources()
	if err != nil {
		return nil, inputErr(err)
	}
	return srcs, nil
}

// defaultIgnoreFile is read when present, like a linter's config file.
const defaultIgnoreFile = ".mcpsec.yaml"

// readIgnores reads the ignore file; the default one may be absent, one
// named with --ignore-file must exist.
func readIgnores(path string, named bool) (*scan.IgnoreFile, error) {
	if path == "" {
		return nil, nil
	}
	if _, err := os.Stat(path); err != nil && !named {
		return nil, nil
	}
	ign, err := scan.ReadIgnoreFile(path)
	if err != nil {
		return nil, inputErrf("--ignore-file: %w", err)
	}
	return ign, nil
}

// baseline reads the baseline file, or when it does not exist yet
// writes one with every finding of this scan (all of which it then
// holds back, so the first run with it is clean).
func baseline(env *Env, path string, rep scan.Report) (*scan.Baseline, error) {
	if _, err := os.Stat(path); err == nil {
		b, err := scan.ReadBaseline(path)
		if err != nil {
			return nil, inputErrf("--baseline: %w", err)
		}
		return b, nil
	}
	b := scan.NewBaseline(rep)
	var buf bytes.Buffer
	if err := b.Write(&buf); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(path, buf.Bytes()); err != nil {
		return nil, err
	}
	fmt.Fprintf(env.Stderr, "wrote baseline %s with %d finding(s); later scans with it report only new ones\n", path, len(b.Findings))
	return b, nil
}

// identity is how a loaded server was reached, for lockfile matching.
func identity(s source.Server) scan.Identity {
	id := scan.Identity{Command: s.Command, URL: s.URL}
	if s.ConfigFile != "" {
		id.ConfigEntry = s.ConfigEntry
	}
	return id
}

// bindServers applies scan --server: "ENTRY" binds the only scanned
// server to that lockfile entry; "SERVER=ENTRY" binds a named one.
func bindServers(lf *scan.Lockfile, binds []string, cat *catalog.Catalog) error {
	for _, b := range binds {
		server, entry, ok := strings.Cut(b, "=")
		if !ok {
			entry = b
			if len(cat.Servers) != 1 {
				return inputErrf("--server %q: %d servers were scanned; say which one with --server SERVER=%s", b, len(cat.Servers), b)
			}
			server = cat.Servers[0].Name
		}
		found := false
		for _, s := range cat.Servers {
			found = found || s.Name == server
		}
		if !found {
			return inputErrf("--server %q: no scanned server is called %q", b, server)
		}
		if !lf.HasEntry(entry) {
			return inputErrf("--server %q: the lockfile has no server %q", b, entry)
		}
		lf.Bind(server, entry)
	}
	return nil
}

// newWriter picks the writer of an output format.
func newWriter(format string, env *Env, origins map[string]scan.Origin) (scan.Writer, error) {
	switch format {
	case "text":
		return scan.TextWriter{Color: isTerminal(env.Stdout) && env.Getenv("NO_COLOR") == ""}, nil
	case "json":
		return scan.JSONWriter{}, nil
	case "sarif":
		v, _, _ := BuildInfo()
		return scan.SARIFWriter{Origins: origins, ToolVersion: v}, nil
	}
	return nil, inputErrf("--format %q: %w", format, scan.ErrFormat)
}

// scanFormats lists the output formats of mcpsec scan.
var scanFormats = []string{"text", "json", "sarif"}

func newScanCmd(env *Env) *cobra.Command {
	var (
		sf           sourceFlags
		format       string
		failOn       string
		lockPath     string
		binds        []string
		baselinePath string
		ignorePath   string
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
A server pairs with the lockfile entry named by --server, else the entry
of the same name, else the one reached by the same command, URL or
configuration entry, else (one server on each side) the only one.

Findings can be held back by a baseline (--baseline, written when the
file is missing) or an ignore file (.mcpsec.yaml, or --ignore-file);
held-back findings are still counted in every format. "mcpsec rules"
lists the rule ids.

Exit codes: 0 done; 1 a finding at or above --fail-on; 2 input or setup
error (bad JSON names the line and byte offset, an unreachable server is
named).`,
		Example: `  mcpsec scan --catalog tools.json
  mcpsec scan --stdio "npx -y @modelcontextprotocol/server-memory" --format json
  mcpsec scan --config ~/.cursor/mcp.json --allow-exec --fail-on high
  mcpsec scan --catalog tools.json --lock mcp.lock --format sarif > mcpsec.sarif
  mcpsec scan --catalog tools.json --lock mcp.lock --server weather
  mcpsec scan --catalog tools.json --baseline mcpsec-baseline.json
  mcpsec scan --catalog tools.json --ignore-file ci/mcpsec.yaml`,
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
			if _, err := newWriter(format, env, nil); err != nil {
				return err
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
			if len(binds) > 0 && opts.Lock == nil {
				return inputErrf("--server needs --lock")
			}
			ld, err := sf.load(cmd.Context(), env)
			if err != nil {
				return err
			}
			if opts.Lock != nil {
				for _, s := range ld.servers {
					opts.Lock.Identify(s.Def.Name, identity(s))
				}
				if err := bindServers(opts.Lock, binds, ld.cat); err != nil {
					return err
				}
			}
			ign, err := readIgnores(ignorePath, cmd.Flags().Changed("ignore-file"))
			if err != nil {
				return err
			}
			rep := scan.Scan(ld.cat, opts)
			var base *scan.Baseline
			if baselinePath != "" {
				if base, err = baseline(env, baselinePath, rep); err != nil {
					return err
				}
			}
			rep, held := scan.Suppress(rep, ign, base)
			w, err := newWriter(format, env, ld.origins)
			if err != nil {
				return err
			}
			out := scan.Output{Report: rep, Scanned: scan.Count(ld.cat), Suppressed: held, Empty: scan.EmptyServers(ld.cat), Notes: map[string]string{}}
			for _, s := range ld.servers {
				if s.Lockfile {
					out.Notes[s.Def.Name] = "read from the lockfile " + s.URI + ": judged for the definitions it pins"
				}
			}
			if err := w.Write(env.Stdout, out); err != nil {
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
	cmd.Flags().StringVar(&format, "format", "text", "output format")
	cmd.Flags().StringVar(&failOn, "fail-on", "", "exit 1 when a finding at or above this `SEVERITY` exists")
	flagValues(cmd, "format", scanFormats...)
	flagValues(cmd, "fail-on", scan.SeverityNames()...)
	cmd.Flags().StringVar(&lockPath, "lock", "", "report drift against this lockfile (from mcpsec lock)")
	cmd.Flags().StringVar(&baselinePath, "baseline", "", "report only findings not in this baseline `FILE`; a missing FILE is written with every current finding")
	cmd.Flags().StringVar(&ignorePath, "ignore-file", defaultIgnoreFile, "YAML `FILE` of findings to ignore by rule, server and tool (used when present)")
	cmd.Flags().StringArrayVar(&binds, "server", nil, "with --lock, compare the scanned server with lockfile entry `NAME` (or SERVER=NAME when several are scanned; repeatable)")
	return cmd
}

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/defense"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/proxy"
	"github.com/mcpsec/mcpsec/internal/scan"
	"github.com/mcpsec/mcpsec/internal/source"
)

func init() { register(newProxyCmd) }

type proxyFlags struct {
	upstream, config, name, listen, policy, arm string
	blockAt, onFinding, lock, state, audit      string
	allowExec, listenAny, noScan, noPin, result bool
	passEnv                                     []string
}

func newProxyCmd(env *Env) *cobra.Command {
	var pf proxyFlags
	cmd := &cobra.Command{
		Use:   "proxy [flags] [-- COMMAND [ARG...]]",
		Short: "Put mcpsec's defenses between an MCP client and its servers",
		Long: `proxy is an MCP server that fronts real MCP servers and enforces the
defenses mcpsec's benchmark measures:

  scan      every tools/list is judged by mcpsec's scanner; a tool with a
            finding at or above --block-at (default high) is withheld, a lower
            one passes with the finding logged; --on-finding redact strips the
            offending text instead (withheld if that is not enough); prompts,
            resources and resource templates are relayed only as this scan
            judges them (subscriptions to what is relayed are forwarded)
  pinning   each definition is trusted on first use (or against --lock); a
            changed, renamed or shadowing definition is withheld until
            'mcpsec proxy approve TOOL' (--state FILE keeps pins across
            restarts; the proxy and approve lock it, so neither loses the
            other's update)
  policy    with a policy file: allowlist, capabilities, taint tracking of
            results and secrets, cross-server flows denied unless allowed
  results   --result-filter redacts instruction-like text in tool results

Upstreams: one stdio server after --, one streamable-HTTP server with
--upstream URL, or every server of a Claude Desktop / Cursor / VS Code config
with --config FILE --allow-exec (as in the benchmark, the first server to
list a tool name keeps it; a later server's same-named tool is server__tool).
Stdio upstreams start with a minimal environment (` + mcpconn.MinimalEnvNames + `),
the variables --pass-env names, and a config entry's own env block;
nothing else of yours.

A tool that passes reaches the client exactly as its server listed it
(members no MCP SDK knows included), and a call's result exactly as the
server sent it, unless a defense rewrote it.

The proxy fails closed: what it cannot list or judge is never offered, a
crashed upstream's tools are withdrawn, and a denied call gets an error
result that says mcpsec blocked it and why. Stdio upstreams die with the
proxy (on Linux even when it is killed). Every decision goes to the --audit log
(JSONL, schema/proxy-audit.schema.json); a call's result is held back
until its record is synced to disk. Read it with 'mcpsec proxy log'.

--arm NAME applies exactly the settings of one benchmark defense arm
(see 'mcpsec bench --help'), for reproducing a benchmark figure.`,
		Example: `  # one stdio server, default defenses, audit log
  mcpsec proxy --audit audit.jsonl -- npx -y @modelcontextprotocol/server-everything

  # a remote server, served to local clients over streamable HTTP
  mcpsec proxy --upstream https://mcp.example.invalid/mcp --listen 127.0.0.1:8940

  # every server of a Claude Desktop config as one gateway, with a policy
  mcpsec proxy --config claude_desktop_config.json --allow-exec --policy policy.yaml

  # remember pins across restarts; release a withheld changed tool
  mcpsec proxy --state pins.json --audit audit.jsonl -- node server.js
  mcpsec proxy approve --state pins.json read_note

  # rewrite the config so each server runs through the proxy (dry run first)
  mcpsec proxy install --config claude_desktop_config.json --dry-run`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runProxy(cmd, env, pf, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&pf.upstream, "upstream", "", "front this streamable-HTTP MCP server")
	f.StringVar(&pf.config, "config", "", "front every server of this client config (Claude Desktop, Cursor, VS Code) as one gateway")
	f.BoolVar(&pf.allowExec, "allow-exec", false, "allow --config to start the server commands it lists")
	f.StringVar(&pf.name, "name", "", "server name of a single upstream in the audit log and pin state (default from its command or URL)")
	f.StringVar(&pf.listen, "listen", "", "serve streamable HTTP on this address (loopback only unless --listen-any) instead of stdio")
	f.BoolVar(&pf.listenAny, "listen-any", false, "allow --listen on a non-loopback address")
	f.StringVar(&pf.policy, "policy", "", "policy file (YAML): scan, pinning, result filter and the capability policy")
	f.StringVar(&pf.arm, "arm", "", "apply one benchmark defense arm's settings exactly")
	f.StringVar(&pf.blockAt, "block-at", "high", "withhold tools with a scan finding at or above this severity")
	f.StringVar(&pf.onFinding, "on-finding", proxy.OnFindingWithhold, "what to do with a tool at or above --block-at")
	f.BoolVar(&pf.noScan, "no-scan", false, "do not scan listings")
	f.StringVar(&pf.lock, "lock", "", "pin against this lockfile ('mcpsec lock'); tools it does not hold are withheld until approved")
	f.StringVar(&pf.state, "state", "", "pin state file: trust on first use is remembered here, and 'proxy approve' writes here")
	f.BoolVar(&pf.noPin, "no-pin", false, "do not pin definitions")
	f.BoolVar(&pf.result, "result-filter", false, "redact instruction-like segments of tool results")
	f.StringVar(&pf.audit, "audit", "", "append every decision to this JSONL file")
	f.StringSliceVar(&pf.passEnv, "pass-env", nil, "environment variable to pass to stdio upstreams (repeatable)")
	flagValues(cmd, "arm", defense.Arms...)
	flagValues(cmd, "block-at", scan.SeverityNames()...)
	flagValues(cmd, "on-finding", proxy.OnFindings...)
	cmd.AddCommand(newProxyApproveCmd(env), newProxyLogCmd(env), newProxyInstallCmd(env, true), newProxyInstallCmd(env, false))
	return cmd
}

func runProxy(cmd *cobra.Command, env *Env, pf proxyFlags, args []string) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	srcs, err := proxyUpstreams(env, pf, args, cmd.ArgsLenAtDash())
	if err != nil {
		return err
	}
	tuneGC()
	var pol *proxy.Policy
	if pf.policy != "" {
		if pol, err = proxy.LoadPolicy(pf.policy); err != nil {
			return inputErr(err)
		}
	}
	var ln net.Listener
	if pf.listen != "" {
		if err := checkListen(pf.listen, pf.listenAny); err != nil {
			return inputErr(err)
		}
		if ln, err = net.Listen("tcp", pf.listen); err != nil {
			return inputErrf("--listen %s: %w", pf.listen, err)
		}
		defer ln.Close()
	}
	seams, metaAt, err := proxySeams(cmd, pf, pol, srcs)
	if err != nil {
		return err
	}
	var audit *proxy.Audit
	if pf.audit != "" {
		if audit, err = proxy.OpenAudit(pf.audit); err != nil {
			return inputErr(err)
		}
		defer audit.Close()
	}
	// Served at once: the client's initialize is answered while the
	// upstreams start and the scanner builds its indexes; its first
	// tools/list waits for the judged listing.
	p, err := proxy.Begin(ctx, proxy.Options{Upstreams: srcs, Conn: env.defaultConn(), Seams: seams,
		Audit: audit, Log: env.Stderr, Version: Version, ScanMeta: metaAt})
	if err != nil {
		return inputErr(err)
	}
	defer p.Close()
	go func() {
		if err := p.StartErr(); err != nil {
			// Served anyway: the client's tools/list gets this error rather
			// than an unjudged catalog or a vanished server.
			fmt.Fprintf(env.Stderr, "mcpsec proxy: %v\n", err)
		}
		fmt.Fprintf(env.Stderr, "mcpsec proxy: offering %d tool(s) from %d upstream server(s)\n", len(p.Offered()), len(srcs))
	}()
	if ln == nil {
		return serveStdioProxy(ctx, env, p)
	}
	fmt.Fprintln(env.Stdout, "http://"+ln.Addr().String()+"/mcp")
	return serveHTTP(ctx, "mcpsec proxy", p.Server(), ln)
}

// proxyGCPercent is the proxy's garbage-collection target (Go's GOGC).
// The proxy keeps the scanner's indexes resident (5 to 8 MB live) and
// allocates a little per relayed message; at Go's default of 100 the
// collector ran about every 70 calls and took a quarter of the proxy's
// CPU, on cores the client and the servers need. At 400 the heap may
// grow to about five times what is live (some 40 MB) before a cycle.
const proxyGCPercent = 400

// tuneGC applies proxyGCPercent unless the user set GOGC themselves.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(proxyGCPercent)
	}
}

// proxyUpstreams turns the flags into upstream sources.
func proxyUpstreams(env *Env, pf proxyFlags, args []string, dash int) ([]mcpconn.Source, error) {
	var cmdArgs []string
	if dash >= 0 {
		cmdArgs = args[dash:]
	} else if len(args) > 0 {
		return nil, inputErrf("unexpected argument %q: put the upstream command after --", args[0])
	}
	n := 0
	for _, set := range []bool{len(cmdArgs) > 0, pf.upstream != "", pf.config != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, inputErrf("give exactly one upstream: -- COMMAND [ARG...], --upstream URL, or --config FILE")
	}
	switch {
	case len(cmdArgs) > 0:
		name := pf.name
		if name == "" {
			name = source.StdioName(cmdArgs)
		}
		return []mcpconn.Source{{Name: name, Command: cmdArgs, PassEnv: pf.passEnv}}, nil
	case pf.upstream != "":
		u, err := url.Parse(pf.upstream)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, inputErrf("--upstream %q: want an http:// or https:// URL", pf.upstream)
		}
		name := pf.name
		if name == "" {
			name = source.URLName(pf.upstream)
		}
		return []mcpconn.Source{{Name: name, URL: pf.upstream}}, nil
	}
	if pf.name != "" {
		return nil, inputErrf("--name names a single upstream; with --config the config's entry names are used")
	}
	entries, err := source.LoadConfig(pf.config)
	if err != nil {
		return nil, inputErr(err)
	}
	var srcs []mcpconn.Source
	var cmds []string
	for _, e := range entries {
		if len(e.Command) > 0 {
			cmds = append(cmds, e.Describe())
			srcs = append(srcs, mcpconn.Source{Name: e.Name, Command: e.Command, Env: configEnv(e.Env), PassEnv: pf.passEnv})
		} else {
			srcs = append(srcs, mcpconn.Source{Name: e.Name, URL: e.URL})
		}
	}
	if len(cmds) > 0 && !pf.allowExec {
		fmt.Fprintf(env.Stderr, "%s lists %d server command(s); mcpsec would run:\n", pf.config, len(cmds))
		for _, c := range cmds {
			fmt.Fprintf(env.Stderr, "  %s\n", c)
		}
		return nil, inputErrf("refusing to start server commands from %s without --allow-exec", pf.config)
	}
	if len(srcs) == 0 {
		return nil, inputErrf("%s lists no servers", pf.config)
	}
	return srcs, nil
}

// configEnv turns a config entry's env block into NAME=value entries,
// in a stable order; mcpconn adds them to the minimal environment every
// stdio server starts with.
func configEnv(extra map[string]string) []string {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k+"="+extra[k])
	}
	return out
}

func checkListen(addr string, any bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: want HOST:PORT, e.g. 127.0.0.1:8940: %w", addr, err)
	}
	if port == "" {
		return fmt.Errorf("--listen %q: no port", addr)
	}
	if any {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--listen %q is not a loopback address; the proxy would serve your tools to the network (pass --listen-any if that is what you want)", addr)
	}
	return nil
}

// armExclusive are the flags an --arm fixes itself.
var armExclusive = []string{"block-at", "on-finding", "no-scan", "lock", "state", "no-pin", "result-filter"}

// proxySeams composes the defenses from the arm, the policy file and the
// flags (flags win over the file).
func proxySeams(cmd *cobra.Command, pf proxyFlags, pol *proxy.Policy, srcs []mcpconn.Source) (agent.Seams, *scan.Severity, error) {
	var dcfg *defense.Config
	if pol != nil {
		var err error
		if dcfg, err = pol.DefenseConfig(); err != nil {
			return agent.Seams{}, nil, inputErr(err)
		}
	}
	st := proxy.Settings{Arm: pf.arm, Defense: dcfg}
	if pf.arm != "" {
		if err := defense.CheckArm(pf.arm); err != nil {
			return agent.Seams{}, nil, inputErr(err)
		}
		for _, name := range armExclusive {
			if cmd.Flags().Changed(name) {
				return agent.Seams{}, nil, inputErrf("--arm %s sets the defenses itself; drop --%s", pf.arm, name)
			}
		}
		s, err := st.Build()
		if err != nil {
			if errors.Is(err, defense.ErrArmConfig) {
				return agent.Seams{}, nil, inputErrf("--arm %s needs a policy file with a policy: block (--policy FILE): %w", pf.arm, err)
			}
			return agent.Seams{}, nil, inputErr(err)
		}
		return s, nil, nil
	}
	changed := cmd.Flags().Changed
	st.Scan, st.Pin, st.State, st.ResultFilter = true, true, pf.state, pf.result
	blockAt, onFinding, lock := pf.blockAt, pf.onFinding, pf.lock
	if pol != nil {
		if pol.Scan.Enabled != nil {
			st.Scan = *pol.Scan.Enabled
		}
		if pol.Scan.BlockAt != "" && !changed("block-at") {
			blockAt = pol.Scan.BlockAt
		}
		if pol.Scan.OnFinding != "" && !changed("on-finding") {
			onFinding = pol.Scan.OnFinding
		}
		if pol.Pinning.Enabled != nil {
			st.Pin = *pol.Pinning.Enabled
		}
		if pol.Pinning.Lock != "" && lock == "" {
			lock = pol.Pinning.Lock
		}
		if pol.Pinning.State != "" && st.State == "" {
			st.State = pol.Pinning.State
		}
		st.ResultFilter = st.ResultFilter || pol.ResultFilter
	}
	if pf.noScan {
		st.Scan = false
	}
	if pf.noPin {
		st.Pin = false
	}
	sev, err := scan.ParseSeverity(blockAt)
	if err != nil {
		return agent.Seams{}, nil, inputErrf("--block-at: %w", err)
	}
	if onFinding != proxy.OnFindingWithhold && onFinding != proxy.OnFindingRedact {
		return agent.Seams{}, nil, inputErrf("--on-finding %q: want withhold or redact", onFinding)
	}
	st.BlockAt, st.Redact = sev, onFinding == proxy.OnFindingRedact
	if st.Pin && lock != "" {
		lf, err := scan.ReadLock(lock)
		if err != nil {
			return agent.Seams{}, nil, inputErr(err)
		}
		var rename func(string) string
		if len(lf.Servers) == 1 && len(srcs) == 1 {
			// One server locked, one fronted: they are the same server
			// whatever each calls itself.
			rename = func(string) string { return srcs[0].Name }
		}
		st.LockPins = proxy.LockPins(lf, rename)
	}
	s, err := st.Build()
	if err != nil {
		return agent.Seams{}, nil, inputErr(err)
	}
	if !st.Scan {
		// Prompts and resources are judged by the scan alone: without
		// it they are not relayed.
		return s, nil, nil
	}
	return s, &sev, nil
}

// serveStdioProxy serves the proxy on stdin/stdout over mcpconn's stdio
// framing, which decodes each message once (the SDK's IOTransport costs
// three 32 KiB decoder buffers per message, on every call), with
// tools/call taking the proxy's short way past the SDK's server.
func serveStdioProxy(ctx context.Context, env *Env, p *proxy.Proxy) error {
	err := p.ServeStdio(ctx, env.Stdin, env.Stdout)
	// A client closing stdin, or an interrupt, is the normal end.
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return fmt.Errorf("mcpsec proxy over stdio: %w", err)
}

func newProxyApproveCmd(env *Env) *cobra.Command {
	var state string
	cmd := &cobra.Command{
		Use:   "approve TOOL",
		Short: "Trust a definition the proxy withheld (changed, renamed, shadowing or not in the lockfile)",
		Long: `approve moves a withheld definition from the pin state file's pending list
to its pins. TOOL is the tool's name, the name the client sees (server__tool
in a gateway), or server/tool. A running proxy offers the tool at the
client's next tools/list.`,
		Example: `  mcpsec proxy approve --state ~/.mcpsec/notes.pins.json read_note`,
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if state == "" {
				return inputErrf("--state FILE is required (the proxy's pin state file)")
			}
			hit, err := proxy.Approve(state, args[0])
			if err != nil {
				return inputErr(err)
			}
			for _, h := range hit {
				fmt.Fprintf(env.Stdout, "approved %s/%s (%s) %s\n", h.Server, h.Tool, h.Reason, h.SHA256)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "the proxy's pin state file")
	return cmd
}

func newProxyLogCmd(env *Env) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:     "log FILE",
		Short:   "Pretty-print a proxy audit log",
		Example: "  mcpsec proxy log ~/.mcpsec/audit.jsonl\n  mcpsec proxy log --format json audit.jsonl | jq 'select(.decision==\"call_denied\")'",
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return inputErr(err)
			}
			defer f.Close()
			recs, rerr := proxy.ReadAudit(args[0], f)
			switch format {
			case "text":
				if err := proxy.WriteText(env.Stdout, recs); err != nil {
					return err
				}
			case "json":
				enc := json.NewEncoder(env.Stdout)
				for _, r := range recs {
					if err := enc.Encode(r); err != nil {
						return err
					}
				}
			default:
				return inputErrf("--format %q: want text or json", format)
			}
			if rerr != nil {
				return inputErr(rerr)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format")
	flagValues(cmd, "format", textJSON...)
	return cmd
}

func newProxyInstallCmd(env *Env, install bool) *cobra.Command {
	var config, dir, policy, mcpsecPath string
	var dryRun bool
	use, short := "install", "Rewrite a client config so each server runs through mcpsec proxy (backup first)"
	if !install {
		use, short = "uninstall", "Undo 'proxy install': each server runs directly again"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long: short + `.

install writes CONFIG.mcpsec-backup before touching CONFIG, and refuses if a
backup already exists. uninstall restores the backup when CONFIG is still
exactly what install wrote; otherwise it unwraps each proxied entry in
place (after a fresh backup), so later edits survive. --dry-run prints the
diff and changes nothing. Claude Desktop and Cursor ("mcpServers") and VS
Code ("servers", or "mcp": {"servers"}) configs are understood.`,
		Example: "  mcpsec proxy " + use + " --config ~/Library/Application\\ Support/Claude/claude_desktop_config.json --dry-run",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if config == "" {
				return inputErrf("--config FILE is required")
			}
			if mcpsecPath == "" {
				exe, err := os.Executable()
				if err != nil {
					return inputErrf("cannot find the mcpsec binary (%v); pass --mcpsec PATH", err)
				}
				mcpsecPath = exe
			}
			if dir == "" {
				home, err := os.UserHomeDir()
				if err != nil {
					return inputErrf("no home directory (%v); pass --dir", err)
				}
				dir = filepath.Join(home, ".mcpsec")
			}
			if policy != "" {
				abs, err := filepath.Abs(policy)
				if err != nil {
					return inputErr(err)
				}
				if _, err := proxy.LoadPolicy(abs); err != nil {
					return inputErr(err)
				}
				policy = abs
			}
			return runInstall(env, install, config, proxy.InstallOptions{Mcpsec: mcpsecPath, Dir: dir, Policy: policy}, dryRun)
		},
	}
	f := cmd.Flags()
	f.StringVar(&config, "config", "", "the client configuration file")
	f.BoolVar(&dryRun, "dry-run", false, "print the diff, change nothing")
	f.StringVar(&mcpsecPath, "mcpsec", "", "path of the mcpsec binary the config should run (default: this one)")
	if install {
		f.StringVar(&dir, "dir", "", "directory for pin state files and the audit log (default ~/.mcpsec)")
		f.StringVar(&policy, "policy", "", "policy file every server gets")
	}
	return cmd
}

func runInstall(env *Env, install bool, config string, o proxy.InstallOptions, dryRun bool) error {
	data, err := os.ReadFile(config)
	if err != nil {
		return inputErr(err)
	}
	backup := config + ".mcpsec-backup"
	var out []byte
	var changes []proxy.Change
	restore := false
	if install {
		out, changes, err = proxy.Install(config, data, o)
	} else {
		out, changes, err = proxy.Uninstall(config, data, o.Mcpsec)
		// The backup comes back as it was (comments and spacing too) when
		// undoing the wrap gives what it says; otherwise the user edited
		// the config since, and the unwrapped config keeps those edits.
		if b, berr := os.ReadFile(backup); berr == nil && err == nil {
			if proxy.SameConfig(backup, b, out) {
				out, restore = b, true
			}
		}
	}
	if err != nil {
		return inputErr(err)
	}
	for _, c := range changes {
		fmt.Fprintf(env.Stderr, "%s: %s (%s)\n", c.Server, c.Action, c.Detail)
	}
	if dryRun {
		// Against the original as mcpsec would write it, so that the diff
		// shows what changes and not how the file is spaced.
		if nd, nerr := proxy.Normalize(config, data); nerr == nil && !restore {
			if string(nd) != string(data) {
				fmt.Fprintln(env.Stderr, "note: the file will also be re-indented (and lose any comments); the backup keeps it as it is")
			}
			data = nd
		}
		fmt.Fprint(env.Stdout, proxy.Diff(config, config+" (after "+map[bool]string{true: "install", false: "uninstall"}[install]+")", data, out))
		return nil
	}
	if !slices.ContainsFunc(changes, func(c proxy.Change) bool { return c.Action != "skipped" }) {
		fmt.Fprintln(env.Stderr, "nothing to change")
		return nil
	}
	if install {
		if _, err := os.Stat(backup); err == nil {
			return inputErrf("%s already exists: run 'mcpsec proxy uninstall --config %s' first, or move the backup away", backup, config)
		}
		if err := os.MkdirAll(o.Dir, 0o700); err != nil {
			return inputErr(err)
		}
	}
	if restore {
		if err := os.Rename(backup, config); err != nil {
			return inputErr(err)
		}
		fmt.Fprintf(env.Stderr, "restored %s from %s\n", config, backup)
		return nil
	}
	if !install {
		// Keep install's backup (the original); save what we are about
		// to change beside it.
		backup = config + ".mcpsec-uninstall-backup"
	}
	if err := os.WriteFile(backup, data, 0o600); err != nil {
		return inputErrf("write backup: %w", err)
	}
	fi, err := os.Stat(config)
	if err != nil {
		return inputErr(err)
	}
	if err := writeAtomic(config, out, fi.Mode().Perm()); err != nil {
		return inputErr(err)
	}
	fmt.Fprintf(env.Stderr, "wrote %s (backup: %s)\n", config, backup)
	return nil
}

func writeAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mcpsec-config-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

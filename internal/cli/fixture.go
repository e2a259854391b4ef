package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/trial"
)

func init() {
	register(newFixtureCmd)
	fixtureChildren = append(fixtureChildren, newFixtureServeCmd, newFixturePayloadsCmd)
}

// fixtureChildren holds constructors of `mcpsec fixture` subcommands that
// live in other files (for example the faulty server). Files append to it
// in their init so that no two files edit one shared list literal.
var fixtureChildren []func(*Env) *cobra.Command

func newFixtureCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fixture",
		Short: "Run the defanged fixture MCP servers and list attack payloads",
		Long: `The fixture commands expose mcpsec's own test world as real MCP servers:
a benign notes/users/calculator server, its poisoned twins (one per attack
class) and a shadow server for cross-server attacks. The attacker sink
export_data only records its arguments; nothing leaves the process.`,
		Example: `  mcpsec fixture serve --server poisoned --class tool_description
  mcpsec fixture payloads --register held-out`,
		Args: cobra.NoArgs,
	}
	for _, f := range fixtureChildren {
		cmd.AddCommand(f(env))
	}
	return cmd
}

type serveOpts struct {
	spec     fixture.Spec
	httpAddr string
}

func newFixtureServeCmd(env *Env) *cobra.Command {
	var o serveOpts
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a benign, poisoned or shadow fixture server over stdio or streamable HTTP",
		Long: `Serve one fixture MCP server on a fresh world (3 notes, 3 users, an empty
exports log). Over stdio by default; with --http ADDR over streamable HTTP on
a loopback address, printing the endpoint URL as the first line of stdout.

  --server benign     calculate, add_note, list_notes, read_note, delete_note, lookup_user
  --server poisoned   the same tools plus the sink export_data, poisoned by --class
  --server shadow     format_summary (carrying a cross_server payload) plus the sink

Without --payload the seen payload of --class and --objective is served
(see 'mcpsec fixture payloads').`,
		Example: `  mcpsec fixture serve --server poisoned --class tool_description --objective exfil
  mcpsec fixture serve --server poisoned --class rug_pull --rug-mode approval --carrier-tool read_note
  mcpsec fixture serve --server shadow --payload seen-cs-exfil --http 127.0.0.1:8931`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runFixtureServe(cmd.Context(), env, o)
		},
	}
	f := cmd.Flags()
	o.spec.AddFlags(f)
	f.StringVar(&o.httpAddr, "http", "", "serve streamable HTTP on this loopback address (e.g. 127.0.0.1:8931; port 0 picks one)")
	flagValues(cmd, "server", fixture.Kinds...)
	flagValues(cmd, "class", payload.Classes...)
	flagValues(cmd, "objective", payload.Objectives...)
	flagValues(cmd, "rug-mode", trial.RugModes...)
	return cmd
}

// buildServe turns flags into a server, rejecting every bad combination
// before anything starts.
func buildServe(env *Env, w *fixture.World, o serveOpts) (*mcp.Server, string, error) {
	srv, what, err := o.spec.Build(w, env.Stderr)
	if err != nil {
		return nil, "", inputErr(err)
	}
	return srv, what, nil
}

func runFixtureServe(ctx context.Context, env *Env, o serveOpts) error {
	w := fixture.NewWorld()
	srv, what, err := buildServe(env, w, o)
	if err != nil {
		return err
	}
	var ln net.Listener
	if o.httpAddr != "" {
		if err := checkLoopback("--http", o.httpAddr); err != nil {
			return inputErr(err)
		}
		ln, err = net.Listen("tcp", o.httpAddr)
		if err != nil {
			return inputErrf("--http %s: %w", o.httpAddr, err)
		}
	}
	if ln == nil {
		fmt.Fprintf(env.Stderr, "mcpsec: serving %s over stdio\n", what)
		err = serveStdio(ctx, env, srv)
	} else {
		url := "http://" + ln.Addr().String() + "/mcp"
		fmt.Fprintln(env.Stdout, url)
		fmt.Fprintf(env.Stderr, "mcpsec: serving %s at %s\n", what, url)
		err = serveHTTP(ctx, "fixture server", srv, ln)
	}
	if o.spec.StateOut != "" {
		if werr := writeState(o.spec.StateOut, w); werr != nil {
			return errors.Join(err, werr)
		}
	}
	return err
}

// checkLoopback refuses any address that could expose the fixture beyond
// this machine: only literal loopback IPs and "localhost" are accepted.
func checkLoopback(flag, addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s %q: want HOST:PORT on loopback, e.g. 127.0.0.1:8931: %w", flag, addr, err)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("%s %q: bad port %q", flag, addr, port)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%s %q: refusing a non-loopback address; use 127.0.0.1, ::1 or localhost", flag, addr)
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func serveStdio(ctx context.Context, env *Env, srv *mcp.Server) error {
	t := &mcp.IOTransport{Reader: io.NopCloser(env.Stdin), Writer: nopWriteCloser{env.Stdout}}
	err := srv.Run(ctx, t)
	// A client closing stdin, or an interrupt, is the normal end of a
	// stdio server.
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return fmt.Errorf("fixture server over stdio: %w", err)
}

// serveHTTP serves srv over streamable HTTP on ln until ctx ends; what
// names the server in errors ("fixture server", "mcpsec proxy").
func serveHTTP(ctx context.Context, what string, srv *mcp.Server, ln net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("%s over HTTP: %w", what, err)
	case <-ctx.Done():
	}
	// Open GET streams never finish on their own; give requests in flight
	// a moment, then cut the rest.
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	<-done
	return nil
}

func writeState(path string, w *fixture.World) error {
	b, err := json.MarshalIndent(w.Snapshot(), "", "  ")
	if err != nil {
		return fmt.Errorf("--state-out: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return inputErrf("--state-out: %w", err)
	}
	return nil
}

func newFixturePayloadsCmd(env *Env) *cobra.Command {
	var format, class, register, objective string
	cmd := &cobra.Command{
		Use:   "payloads",
		Short: "List the attack payloads (id, class, objective, register, style, carrier, text)",
		Example: `  mcpsec fixture payloads
  mcpsec fixture payloads --register held-out --class schema_field --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, c := range []struct {
				flag, v string
				ok      []string
			}{
				{"--class", class, payload.Classes}, {"--register", register, payload.Registers}, {"--objective", objective, payload.Objectives},
			} {
				if c.v != "" && !slices.Contains(c.ok, c.v) {
					return inputErrf("%s %q: want one of %s", c.flag, c.v, strings.Join(c.ok, ", "))
				}
			}
			ps := payload.Filter(class, register, objective)
			switch format {
			case "json":
				if ps == nil {
					ps = []payload.Payload{}
				}
				enc := json.NewEncoder(env.Stdout)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				return enc.Encode(ps)
			case "text":
				return writePayloadsText(env.Stdout, ps)
			}
			return inputErrf("--format %q: want json or text", format)
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "text", "output format")
	f.StringVar(&class, "class", "", "only this attack class")
	f.StringVar(&register, "register", "", "only this register")
	f.StringVar(&objective, "objective", "", "only this objective")
	flagValues(cmd, "format", textJSON...)
	flagValues(cmd, "class", payload.Classes...)
	flagValues(cmd, "register", payload.Registers...)
	flagValues(cmd, "objective", payload.Objectives...)
	return cmd
}

// writePayloadsText prints a label line per payload and its text quoted,
// so that invisible characters of adversarial payloads show as escapes
// instead of disappearing in a terminal.
func writePayloadsText(out io.Writer, ps []payload.Payload) error {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%s  class=%s carrier=%s objective=%s register=%s style=%s\n  %s\n",
			p.ID, p.Class, p.Carrier, p.Objective, p.Register, p.Style, strconv.QuoteToASCII(p.Text))
	}
	fmt.Fprintf(&b, "%d payloads\n", len(ps))
	_, err := io.WriteString(out, b.String())
	return err
}

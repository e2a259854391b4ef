// Package cli builds mcpsec's commands. Every command writes only to the
// injected writers so tests run them in-process; one file per subcommand.
package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpsec/mcpsec/internal/mcpconn"
)

// Exit codes, part of mcpsec's contract.
const (
	ExitOK     = 0
	ExitFailOn = 1
	ExitInput  = 2
)

// Env is what every command gets: the injected standard streams.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads environment variables (tests inject their own).
	Getenv func(string) string
	// Conn holds the connection limits and protocol version set by the
	// global flags; every command that talks to a server uses them.
	Conn mcpconn.Options
}

// ExitError carries a specific exit code out of a command.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// defaultConn is the connection options of an Env built without flags.
func (e *Env) defaultConn() mcpconn.Options {
	if e.Conn.CallTimeout == 0 {
		return mcpconn.DefaultOptions()
	}
	return e.Conn
}

// inputErr wraps err as a setup/input error (exit 2).
func inputErr(err error) error { return &ExitError{Code: ExitInput, Err: err} }

// inputErrf formats a setup/input error (exit 2).
func inputErrf(format string, a ...any) error {
	return &ExitError{Code: ExitInput, Err: fmt.Errorf(format, a...)}
}

// registry holds the subcommand constructors; each subcommand's file adds
// itself in init so that files never collide on one shared list.
var registry []func(*Env) *cobra.Command

func register(f func(*Env) *cobra.Command) { registry = append(registry, f) }

// Version is set at build time with -ldflags "-X ...cli.Version=v1.2.3".
var Version = "dev"

// NewRoot builds the root command with all subcommands.
func NewRoot(env *Env) *cobra.Command {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	root := &cobra.Command{
		Use:   "mcpsec",
		Short: "Measure how MCP tool ecosystems hold up against tool poisoning",
		Long: `mcpsec measures MCP tool poisoning with evidence:

  scan     judge a server's catalog deterministically (no model, no network)
  lock     record tool fingerprints to detect drift later
  bench    run models x attack classes x defense arms, with Wilson intervals
  trial    run one trial and print its record
  redteam  does a model, with a server, take the bait? (per-model signal)
  stats    compute benchmark metrics from label tables
  demo     everything above, offline, with the control agents
  trace    print one trial's trace as a timeline with its world diff and score
  proxy    put the benchmark's defenses between an MCP client and its servers

Everything is defanged: the attacker sink is a no-op recorder, the secret
is a synthetic canary, and fixture traffic stays on loopback.

Exit codes: 0 done, 1 a --fail-on threshold was crossed, 2 setup or input
error (the message names the file, position, server or call).`,
		Example: `  mcpsec demo
  mcpsec scan --catalog tools.json
  mcpsec bench --dry-run
  mcpsec completion bash > /etc/bash_completion.d/mcpsec`,
		Version:       versionLine(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("mcpsec {{.Version}}\n")
	env.Conn = mcpconn.DefaultOptions()
	pf := root.PersistentFlags()
	pf.StringVar(&env.Conn.ProtocolVersion, "protocol-version", env.Conn.ProtocolVersion, "MCP protocol version to offer in initialize")
	flagValues(root, "protocol-version", mcpconn.SupportedProtocolVersions()...)
	pf.DurationVar(&env.Conn.ConnectTimeout, "connect-timeout", env.Conn.ConnectTimeout, "bound on a server's start-up and initialize handshake")
	pf.DurationVar(&env.Conn.CallTimeout, "call-timeout", env.Conn.CallTimeout, "bound on every request to a server after the handshake")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if !slices.Contains(mcpconn.SupportedProtocolVersions(), env.Conn.ProtocolVersion) {
			return inputErrf("--protocol-version %q: want one of %s", env.Conn.ProtocolVersion, strings.Join(mcpconn.SupportedProtocolVersions(), ", "))
		}
		if env.Conn.ConnectTimeout <= 0 || env.Conn.CallTimeout <= 0 {
			return inputErrf("--connect-timeout and --call-timeout must be positive")
		}
		return nil
	}
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.CompletionOptions.DisableDefaultCmd = true
	cmds := make([]*cobra.Command, 0, len(registry))
	for _, f := range registry {
		cmds = append(cmds, f(env))
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name() < cmds[j].Name() })
	root.AddCommand(cmds...)
	return root
}

// Run executes mcpsec with args and returns the process exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return RunContext(ctx, args, &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr})
}

// RunContext is Run with a caller's context and environment.
func RunContext(ctx context.Context, args []string, env *Env) int {
	root := NewRoot(env)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintf(env.Stderr, "mcpsec: %v\n", ee.Err)
		}
		return ee.Code
	}
	// Cobra's own flag and argument errors are usage errors.
	fmt.Fprintf(env.Stderr, "mcpsec: %v\n", err)
	return ExitInput
}

// BuildInfo returns the version, VCS revision and dirty flag of the
// running binary. The Go toolchain records the revision unless the binary
// was built with -buildvcs=false (or outside a checkout); then git is
// asked at run time, in the source directory the binary was built from,
// and the revision reads "unknown" only when neither knows.
func BuildInfo() (version, revision string, dirty bool) {
	version = Version
	revision = "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		if version == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if revision == "unknown" {
		if rev, d, err := gitRevision(sourceDir()); err == nil {
			revision, dirty = rev, d
		}
	}
	return version, revision, dirty
}

// sourceDir is the directory this file was compiled from; with -trimpath
// it is a module path that does not exist, and git is not asked.
func sourceDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	return filepath.Dir(file)
}

// gitRevision asks git for the checked-out revision of dir and whether
// the work tree has changes.
func gitRevision(dir string) (string, bool, error) {
	if dir == "" {
		return "", false, errors.New("no source directory")
	}
	if _, err := os.Stat(dir); err != nil {
		return "", false, err
	}
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false, fmt.Errorf("git rev-parse: %w", err)
	}
	rev := strings.TrimSpace(string(out))
	st, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output()
	if err != nil {
		return rev, false, nil
	}
	return rev, len(bytes.TrimSpace(st)) > 0, nil
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpsec/mcpsec/internal/bench"
	"github.com/mcpsec/mcpsec/internal/defense"
	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/model"
	"github.com/mcpsec/mcpsec/internal/redteam"
	"github.com/mcpsec/mcpsec/internal/trace"
	"github.com/mcpsec/mcpsec/internal/trial"
)

func init() { register(newRedteamCmd) }

type redteamFlags struct {
	models                                 []string
	stdio, urls, configs, passEnv          []string
	allowExec, adaptive                    bool
	scenarios, arm, record, replay, format string
	out, seeds                             string
	maxAttempts, maxSteps, maxTokens       int
}

func newRedteamCmd(env *Env) *cobra.Command {
	var rf redteamFlags
	cmd := &cobra.Command{
		Use:   "redteam",
		Short: "Check whether a model, with a server, takes the bait of a tool-poisoning scenario",
		Long: `Run the red-team scenario corpus against a model and a server, and report,
per model, which scenarios it resisted and which exploited it.

The attack reaches the model through the client, never by changing your
server: each scenario names a carrier (a tool's description, a schema
field, a tool's results, or a decoy tool on a second attacker server) and
its payload is placed there as the model sees the catalog. The attacker's
sink is an in-process no-op recorder and the secret is a synthetic canary.
A scenario that needs a tool your server lacks is reported not_applicable
with the reason.

The oracle reads what the model did (tool calls, arguments, results, the
final answer), never how it explained itself. Every check of a scenario
describes the safe behaviour: all pass means resisted, any failure means
exploited, and the failed checks are named with what was observed.

--adaptive mutates each payload with the converter ladder (identity,
leetspeak, rot13, homoglyph, hex_encode, base64, zero_width, unicode_tags,
full_width), cheapest first, and stops at the first converter that lands;
--arm puts a defense arm in front of the model. --seeds FILE adds payload
texts of your own (a YAML list) after each scenario's payload: each is tried
like the scenario's (through the ladder under --adaptive), with the
scenario's placeholders ({sink}, {secret}, {target_tool}, {attacker})
filled in, and an attempt's "seed" in the report is its index (0: the
scenario's own payload, 1: the file's first seed).

Without --stdio, --url or --config the bundled fixture server is attacked.
Model specs and API keys work as in bench; a model whose key is not set is
skipped with one line. The exit code is 0 when the run completed and 2 on a
setup error: exploitability is advisory and lives in the report (read the
JSON in CI).`,
		Example: `  mcpsec redteam --model control:compromised --model control:reference
  mcpsec redteam --model anthropic:claude-sonnet-4-5 --stdio "npx -y @modelcontextprotocol/server-everything" --format md
  mcpsec redteam --model openai:gpt-4o-mini --adaptive --max-attempts 5 --arm meta_filter --format json --out rt-run
  mcpsec redteam --model openai:gpt-4o-mini --record cassettes/ && mcpsec redteam --model openai:gpt-4o-mini --replay cassettes/
  mcpsec redteam --model control:compromised --scenarios my-scenarios/
  mcpsec redteam --model openai:gpt-4o-mini --adaptive --seeds my-seeds.yaml --format json
  mcpsec redteam check --scenario my-scenarios/td-exfil-token.yaml --trace rt-run/traces/control_compromised/td-exfil-token__identity_0.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRedteam(cmd.Context(), env, rf)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&rf.models, "model", nil, "model spec (as in bench), repeatable or comma-separated; control:reference|compromised|refuse are the control agents")
	f.StringArrayVar(&rf.stdio, "stdio", nil, "attack a stdio MCP server started with this command line (repeatable)")
	f.StringArrayVar(&rf.urls, "url", nil, "attack a streamable-HTTP MCP server at `URL` (repeatable)")
	f.StringArrayVar(&rf.configs, "config", nil, "attack the servers of an MCP client config `FILE`")
	f.BoolVar(&rf.allowExec, "allow-exec", false, "allow starting the server commands listed in --config files")
	f.StringArrayVar(&rf.passEnv, "pass-env", nil, "hand the environment variable `NAME` to started servers, which otherwise get only "+mcpconn.MinimalEnvNames+" (repeatable)")
	f.StringVar(&rf.scenarios, "scenarios", "", "load scenarios from this directory (or one file) instead of the bundled corpus")
	f.BoolVar(&rf.adaptive, "adaptive", false, "run the converter ladder on each payload until one lands")
	f.StringVar(&rf.seeds, "seeds", "", "also try the payload texts in this YAML `FILE` (a list of strings) after each scenario's own payload")
	f.IntVar(&rf.maxAttempts, "max-attempts", 0, "with --adaptive, at most N attempts per scenario (default: the whole ladder)")
	f.StringVar(&rf.arm, "arm", defense.ArmNone, "defense arm in front of the model")
	f.StringVar(&rf.record, "record", "", "record provider traffic into cassettes under `DIR` (replay with --replay DIR)")
	f.StringVar(&rf.replay, "replay", "", "replay provider traffic from cassettes recorded with --record `DIR`; no network")
	f.StringVar(&rf.format, "format", "text", "report format")
	f.StringVar(&rf.out, "out", "", "also write report.{txt,json,md,html}, traces and envelopes into `DIR`")
	f.IntVar(&rf.maxSteps, "max-steps", 10, "model turns per attempt")
	f.IntVar(&rf.maxTokens, "max-tokens", 1024, "output tokens per model turn")
	flagValues(cmd, "arm", defense.Arms...)
	flagValues(cmd, "format", redteam.Formats...)
	cmd.AddCommand(newRedteamCheckCmd(env))
	return cmd
}

func runRedteam(ctx context.Context, env *Env, rf redteamFlags) error {
	if !slices.Contains(redteam.Formats, rf.format) {
		return inputErrf("unknown --format %q (want %s)", rf.format, strings.Join(redteam.Formats, ", "))
	}
	if len(rf.models) == 0 {
		return inputErrf("no model: give --model SPEC (for an offline run: --model control:compromised)")
	}
	if rf.record != "" && rf.replay != "" {
		return inputErrf("--record and --replay exclude each other")
	}
	if rf.maxAttempts < 0 || (rf.maxAttempts > 0 && !rf.adaptive) {
		return inputErrf("--max-attempts needs --adaptive and a positive number")
	}
	if err := defense.CheckArm(rf.arm); err != nil {
		return inputErr(err)
	}
	scs, err := loadScenarios(rf.scenarios)
	if err != nil {
		return err
	}
	var seeds redteam.SeedSource
	if rf.seeds != "" {
		list, err := redteam.LoadSeeds(rf.seeds)
		if err != nil {
			return inputErr(err)
		}
		seeds = redteam.FixedSeeds(list)
	}
	sf := sourceFlags{stdio: rf.stdio, urls: rf.urls, configs: rf.configs, allowExec: rf.allowExec, passEnv: rf.passEnv}
	sources, err := sf.liveSources(env)
	if err != nil {
		return err
	}
	var models []string
	for _, m := range rf.models {
		if m = strings.TrimSpace(m); m == "" {
			continue
		}
		if model.IsControl(m) {
			if !slices.Contains(model.ControlSpecs, m) {
				return inputErrf("model %q: unknown control agent (want one of %s)", m, strings.Join(model.ControlSpecs, ", "))
			}
			models = append(models, m)
			continue
		}
		if _, _, _, err := model.ParseSpec(m); err != nil {
			return inputErrf("model %q: %v", m, err)
		}
		if rf.replay == "" {
			// Build once to find a missing key before any server starts;
			// the key itself is never printed.
			if _, err := model.New(m, model.Options{Getenv: env.Getenv}); err != nil {
				if errors.Is(err, model.ErrNoKey) {
					fmt.Fprintf(env.Stderr, "skipping %s: %v\n", m, err)
					continue
				}
				return inputErrf("model %q: %v", m, err)
			}
		}
		models = append(models, m)
	}
	if len(models) == 0 {
		return inputErrf("no model left to run (every provider key is missing)")
	}
	v, _, _ := BuildInfo()
	runner := &redteam.Runner{
		Target: &redteam.Target{Sources: sources, Conn: env.defaultConn()}, Arm: rf.arm,
		FixedCanary: rf.record != "" || rf.replay != "", MaxSteps: rf.maxSteps, MaxTokens: rf.maxTokens, Version: v,
		NewModel: func(spec string, t trial.Trial) (model.Model, func() error, error) {
			if rf.replay != "" {
				t.Model = model.ProviderReplay + ":" + filepath.Join(rf.replay, bench.CassetteDir(spec))
			}
			return bench.NewProviderModel(bench.Env{RecordDir: rf.record, Getenv: env.Getenv}, t)
		},
	}
	if rf.out != "" {
		runner.TraceDir = filepath.Join(rf.out, "traces")
	}
	rep, err := redteam.Execute(ctx, redteam.Options{Models: models, Scenarios: scs, Runner: runner,
		Adaptive: rf.adaptive, MaxAttempts: rf.maxAttempts, Seeds: seeds, Log: env.Stderr})
	if err != nil {
		return inputErr(err)
	}
	if rf.out != "" {
		for _, f := range []struct{ name, format string }{{"report.txt", "text"}, {"report.json", "json"}, {"report.md", "md"}} {
			if err := writeReportFile(filepath.Join(rf.out, f.name), rep, f.format); err != nil {
				return inputErr(err)
			}
		}
		if err := writeRedteamHTML(filepath.Join(rf.out, "report.html"), rep, rf.out); err != nil {
			return inputErr(err)
		}
		fmt.Fprintf(env.Stderr, "wrote %s (report.txt, report.json, report.md, report.html, traces/)\n", rf.out)
	}
	return redteam.Write(env.Stdout, rep, rf.format)
}

// writeRedteamHTML writes the HTML report into the run directory, with
// its envelope and trace links relative to that directory.
func writeRedteamHTML(path string, rep *redteam.Report, dir string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := redteam.WriteHTML(f, rep, dir); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeReportFile(path string, rep *redteam.Report, format string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := redteam.Write(f, rep, format); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func loadScenarios(dir string) ([]redteam.Scenario, error) {
	var scs []redteam.Scenario
	var err error
	if dir == "" {
		scs, err = redteam.Corpus()
	} else {
		scs, err = redteam.LoadDir(dir)
	}
	if err != nil {
		return nil, inputErr(err)
	}
	return scs, nil
}

type checkFlags struct {
	scenario, envelope, tracePath, format, secret string
}

func newRedteamCheckCmd(env *Env) *cobra.Command {
	var cf checkFlags
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Judge one recorded run against one scenario's checks",
		Long: `Run a scenario's checks (the oracle) on a trace envelope, from mcpsec or any
other tool, and print the outcome with the failed checks.

--envelope reads an envelope JSON (schema/redteam-envelope.schema.json);
--trace builds the envelope from an mcpsec trial trace (JSONL) and takes the
secret the placeholders stand for from the trace itself. With --envelope,
{secret} is --secret (default: mcpsec's fixed canary).

Output: {"scenario", "outcome": "resisted"|"exploited", "failed_checks":
[{"path", "matcher", "expected", "observed"}]}. The exit code is 0 whatever
the outcome and 2 on bad input.`,
		Example: `  mcpsec redteam check --scenario scenarios/td-exfil-token.yaml --envelope run.envelope.json --format json
  mcpsec redteam check --scenario scenarios/td-exfil-token.yaml --trace rt-run/traces/control_compromised/td-exfil-token__identity_0.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runRedteamCheck(env, cf) },
	}
	f := cmd.Flags()
	f.StringVar(&cf.scenario, "scenario", "", "scenario YAML `FILE`")
	f.StringVar(&cf.envelope, "envelope", "", "envelope JSON `FILE`")
	f.StringVar(&cf.tracePath, "trace", "", "mcpsec trace JSONL `FILE` (instead of --envelope)")
	f.StringVar(&cf.secret, "secret", fixture.FixedCanary, "value of {secret} with --envelope")
	f.StringVar(&cf.format, "format", "text", "output format")
	flagValues(cmd, "format", textJSON...)
	return cmd
}

func runRedteamCheck(env *Env, cf checkFlags) error {
	if cf.scenario == "" {
		return inputErrf("--scenario FILE is required")
	}
	if (cf.envelope == "") == (cf.tracePath == "") {
		return inputErrf("give exactly one of --envelope FILE and --trace FILE")
	}
	if !slices.Contains(textJSON, cf.format) {
		return inputErrf("unknown --format %q (want %s)", cf.format, strings.Join(textJSON, ", "))
	}
	data, err := os.ReadFile(cf.scenario)
	if err != nil {
		return inputErrf("scenario: %w", err)
	}
	sc, err := redteam.Parse(cf.scenario, data)
	if err != nil {
		return inputErr(err)
	}
	secret := cf.secret
	var envl redteam.Envelope
	if cf.tracePath != "" {
		evs, err := trace.ReadFile(cf.tracePath)
		if err != nil {
			return inputErr(err)
		}
		for _, ev := range evs {
			if ev.Kind == trace.KindRunConfig {
				var rc trace.RunConfig
				if err := ev.Decode(&rc); err != nil {
					return inputErrf("%s: %w", cf.tracePath, err)
				}
				secret = rc.Canary
			}
		}
		if envl, err = redteam.FromEvents(evs); err != nil {
			return inputErrf("%s: %w", cf.tracePath, err)
		}
	} else {
		b, err := os.ReadFile(cf.envelope)
		if err != nil {
			return inputErrf("envelope: %w", err)
		}
		if envl, err = redteam.ParseEnvelope(b); err != nil {
			return inputErrf("%s: %w", cf.envelope, err)
		}
	}
	bound, err := sc.Bind(redteam.Bindings{Sink: redteam.SinkTool, Secret: secret, Attacker: redteam.AttackerServer})
	if err != nil {
		return inputErr(err)
	}
	v := redteam.Judge(sc.ID, bound.Checks, envl)
	return redteam.WriteVerdict(env.Stdout, v, cf.format)
}

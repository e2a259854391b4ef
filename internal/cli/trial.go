package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/mcpsec/mcpsec/internal/bench"
	"github.com/mcpsec/mcpsec/internal/defense"
	"github.com/mcpsec/mcpsec/internal/model"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/task"
	"github.com/mcpsec/mcpsec/internal/trial"
)

func init() { register(newTrialCmd) }

func newTrialCmd(env *Env) *cobra.Command {
	var (
		t       trial.Trial
		format  string
		tracef  string
		fixed   bool
		record  string
		steps   int
		tokens  int
		tempVal float64
	)
	cmd := &cobra.Command{
		Use:   "trial",
		Short: "Run one trial against the bundled fixtures and print its record",
		Long: `Run one trial: a task, an attack (class, payload, objective), a defense arm
and a model, over the bundled fixture servers (in-process). Prints the trial
record (the same fields as a line of trials.jsonl) and, with --trace, writes
the full JSONL trace.

Use --class none for a benign trial (no attack). Without --payload, the seen
register's payload for the class and objective is used.`,
		Example: `  mcpsec trial --task notes_pipeline --class tool_description --objective exfil --model control:compromised
  mcpsec trial --task notes_pipeline --class rug_pull --rug-mode approval --model control:compromised --arm pinning
  mcpsec trial --task account_review --class none --model anthropic:claude-haiku-4-5 --trace trial.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if t.Model == "" {
				return inputErrf("--model is required (a provider spec such as openai:gpt-4o-mini, or control:reference)")
			}
			if t.AttackClass == trial.None {
				t.PayloadID, t.Register, t.Objective, t.RugMode = trial.None, trial.None, trial.None, ""
			} else {
				if t.Objective == "" {
					t.Objective = payload.ObjectiveExfil
				}
				if t.PayloadID == "" {
					t.PayloadID = payload.Default(t.AttackClass, t.Objective).ID
				}
				p, ok := payload.ByID(t.PayloadID)
				if !ok {
					return inputErrf("unknown payload %q (list them with: mcpsec fixture payloads)", t.PayloadID)
				}
				if p.Class != t.AttackClass || p.Objective != t.Objective {
					return inputErrf("payload %s is for class %s / objective %s, not %s / %s", p.ID, p.Class, p.Objective, t.AttackClass, t.Objective)
				}
				t.Register = p.Register
				if t.AttackClass == payload.ClassRugPull && t.RugMode == "" {
					t.RugMode = trial.RugModeResult
				}
				if t.AttackClass != payload.ClassRugPull {
					t.RugMode = ""
				}
			}
			t.ID = trial.ID(t)
			g := bench.DefaultGrid()
			g.MaxSteps, g.MaxTokens = steps, tokens
			if cmd.Flags().Changed("temperature") {
				g.Temperature = &tempVal
			}
			v, rev, dirty := BuildInfo()
			benv := bench.Env{Transport: "memory", FixedCanary: fixed, RecordDir: record, Version: v, GitRevision: rev, GitDirty: dirty, Conn: env.Conn}
			rec, err := bench.RunTrial(cmd.Context(), benv, g, t, tracef)
			if err != nil {
				if errors.Is(err, model.ErrNoKey) {
					return inputErrf("model %s: %v", t.Model, err)
				}
				return inputErr(err)
			}
			return printRecord(env, rec, format)
		},
	}
	f := cmd.Flags()
	f.StringVar(&t.Task, "task", "notes_pipeline", "task id")
	f.StringVar(&t.AttackClass, "class", payload.ClassToolDescription, "attack class, or none for a benign trial")
	f.StringVar(&t.PayloadID, "payload", "", "payload id (default: the seen payload of the class and objective)")
	f.StringVar(&t.Objective, "objective", "", "objective (default exfil)")
	f.StringVar(&t.RugMode, "rug-mode", "", "rug_pull mode (default result)")
	f.StringVar(&t.Model, "model", "", "model spec (anthropic:M, openai:M, deepseek:M, ollama:M, openai-compatible:M@URL, gemini:M, replay:DIR, control:reference|compromised|refuse)")
	f.StringVar(&t.Arm, "arm", trial.None, "defense arm")
	f.IntVar(&t.Seed, "seed", 1, "seed (identifies repeated stochastic trials)")
	f.StringVar(&tracef, "trace", "", "write the JSONL trace to this file")
	f.StringVar(&format, "format", "text", "output format")
	f.BoolVar(&fixed, "fixed-canary", false, "use the fixed canary instead of a fresh random one (for cassettes and goldens)")
	f.StringVar(&record, "record", "", "record the model's HTTP traffic into a cassette under this directory")
	f.IntVar(&steps, "max-steps", 10, "maximum model turns")
	f.IntVar(&tokens, "max-tokens", 1024, "maximum output tokens per turn")
	f.Float64Var(&tempVal, "temperature", 1.0, "sampling temperature")
	flagValues(cmd, "task", task.IDs()...)
	flagValues(cmd, "class", append(slices.Clone(payload.Classes), trial.None)...)
	flagValues(cmd, "objective", payload.Objectives...)
	flagValues(cmd, "rug-mode", trial.RugModes...)
	flagValues(cmd, "arm", defense.Arms...)
	flagValues(cmd, "format", textJSON...)
	return cmd
}

func printRecord(env *Env, rec trial.Record, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rec)
	case "text":
		kind := "model"
		if rec.Control {
			kind = "control agent"
		}
		fmt.Fprintf(env.Stdout, "trial %s  %s (%s)\n", rec.ID, rec.Model, kind)
		fmt.Fprintf(env.Stdout, "  task %s  class %s  payload %s (%s)  objective %s  arm %s  seed %d\n",
			rec.Task, rec.AttackClass, rec.PayloadID, rec.Register, rec.Objective, rec.Arm, rec.Seed)
		if rec.Error != nil {
			fmt.Fprintf(env.Stdout, "  ERROR (%s): %s\n", rec.ErrorKind, *rec.Error)
		}
		fmt.Fprintf(env.Stdout, "  utility %v  exposed %v  attempted %v  realized %v  blocked %v  canary %v  objective_met %v  side_effect %v\n",
			rec.Utility, rec.Exposed, rec.Attempted, rec.Realized, rec.Blocked, rec.Canary, rec.ObjectiveMet, rec.SideEffect)
		fmt.Fprintf(env.Stdout, "  steps %d  tokens in/out %d/%d  blocks %d  prompts %d  truncated %v\n",
			rec.Steps, rec.InputTokens, rec.OutputTokens, rec.Blocks, rec.Prompts, rec.Truncated)
		if rec.Trace != "" {
			fmt.Fprintf(env.Stdout, "  trace %s (read it with: mcpsec trace %s)\n", rec.Trace, rec.Trace)
		}
		return nil
	}
	return inputErrf("unknown --format %q (want text or json)", format)
}

package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/trace"
	"github.com/mcpsec/mcpsec/internal/trial"
)

func init() { register(newTraceCmd) }

func newTraceCmd(env *Env) *cobra.Command {
	var full bool
	var width int
	cmd := &cobra.Command{
		Use:   "trace (RUN_DIR TRIAL_ID | FILE)",
		Short: "Print a trial's trace as a readable timeline, ending with its world diff and score",
		Long: `Print one trial's trace as a timeline: a trial of a run directory (its
trace is found through trials.jsonl; a sweep packs many trials' traces into
each traces/pack-*.jsonl.gz file), or a file holding one trial's trace (the
file of mcpsec trial --trace, or traces/<trial_id>.jsonl[.gz] of runs made by
older versions). The timeline shows:

  the trial's keys, the servers and the tools they listed, the system
  context and the user's prompt; then, step by step, what the model said,
  the tool calls it made with their arguments, what came back (and what
  the defense let the model read, when that differs), calls the defense
  blocked with the rule and reason, the defense's notes; the final answer.

Repeated tools/list snapshots are shown as what changed since the previous
one. Long texts are cut at --width characters; --full prints them whole.

The trace ends with what the scorers compared, the change of the fixture
world (notes added, changed or deleted, calls of the attacker's sink), and
the score record they produced, so a score can be checked by eye. Traces
written before mcpsec recorded these take the score from the run's
trials.jsonl when it is beside the traces/ directory.`,
		Example: `  mcpsec trace results/run1 0c4f9e2a7b1d3e58
  mcpsec trace --full results/run1 0c4f9e2a7b1d3e58
  mcpsec trial --model control:compromised --class rug_pull --arm pinning --trace t.jsonl && mcpsec trace t.jsonl`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if width < 20 {
				return inputErrf("--width %d: want at least 20", width)
			}
			path := args[0]
			var evs []trace.Event
			var rec *trial.Record
			var err error
			if len(args) == 2 {
				path = filepath.Join(args[0], args[1])
				evs, rec, err = traceOfTrial(args[0], args[1])
			} else {
				evs, err = trace.ReadFile(path) // plain or gzip-compressed, by content
			}
			if errors.Is(err, trace.ErrTruncated) {
				fmt.Fprintf(env.Stderr, "mcpsec: warning: %v (showing the events before it)\n", err)
			} else if err != nil {
				return inputErr(err)
			}
			if len(evs) == 0 {
				return inputErrf("%s: no trace events", path)
			}
			if n := countKind(evs, trace.KindRunConfig); n > 1 {
				return inputErrf("%s holds the traces of %d trials (a sweep packs them together); name one: mcpsec trace RUN_DIR TRIAL_ID", path, n)
			}
			tl := &timeline{w: bufio.NewWriter(env.Stdout), full: full, width: width, lists: map[string]map[string]catalog.Tool{}}
			if !hasKind(evs, trace.KindScore) {
				if rec != nil {
					tl.fallback = rec
				} else {
					tl.fallback = recordBeside(path, evs)
				}
			}
			if err := tl.render(evs); err != nil {
				return inputErrf("%s: %w", path, err)
			}
			return tl.w.Flush()
		},
	}
	cmd.Flags().BoolVar(&full, "full", false, "print prompts, results and answers whole instead of cutting them")
	cmd.Flags().IntVar(&width, "width", 160, "cut long texts at this many characters (unless --full)")
	return cmd
}

// traceOfTrial reads a trial's trace through its record in the run
// directory's trials.jsonl. The trace path is read through an os.Root, so
// a record cannot make it read a file outside the run directory.
func traceOfTrial(dir, id string) ([]trace.Event, *trial.Record, error) {
	var found *trial.Record
	_, err := trial.Each(filepath.Join(dir, trial.LogFile), func(r trial.Record, _ *trial.View) error {
		if r.ID == id {
			found = &r
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, nil, err
	}
	if found == nil {
		return nil, nil, fmt.Errorf("%s: no trial %s in %s", dir, id, trial.LogFile)
	}
	if found.Trace == "" {
		return nil, nil, fmt.Errorf("%s: trial %s has no trace", dir, id)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	evs, err := trace.ReadRef(root, trace.RefOf(*found))
	return evs, found, err
}

var errStop = errors.New("stop")

func countKind(evs []trace.Event, kind string) int {
	n := 0
	for _, e := range evs {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

func hasKind(evs []trace.Event, kind string) bool {
	return slices.ContainsFunc(evs, func(e trace.Event) bool { return e.Kind == kind })
}

// recordBeside finds the trial's record in the trials.jsonl of the run
// directory that holds the trace, for traces without a score event.
func recordBeside(path string, evs []trace.Event) *trial.Record {
	var rc trace.RunConfig
	if evs[0].Kind != trace.KindRunConfig || evs[0].Decode(&rc) != nil {
		return nil
	}
	f, err := os.Open(filepath.Join(filepath.Dir(filepath.Dir(path)), trial.LogFile))
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r trial.Record
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.ID == rc.ID {
			return &r
		}
	}
	return nil
}

// timeline renders events; lists keeps each server's last tools/list so
// that later listings print as changes.
type timeline struct {
	w        *bufio.Writer
	full     bool
	width    int
	step     int
	lists    map[string]map[string]catalog.Tool
	offered  []string
	fallback *trial.Record
	// unchanged collects the servers whose relisting changed nothing,
	// printed as one line before the next other event.
	unchanged []string
	reason    string
}

func (tl *timeline) flushUnchanged() {
	if len(tl.unchanged) == 0 {
		return
	}
	tl.printf("tools/list (%s): no change on %s\n", tl.reason, strings.Join(tl.unchanged, ", "))
	tl.unchanged = nil
}

func (tl *timeline) printf(format string, a ...any) { fmt.Fprintf(tl.w, format, a...) }

// cut shortens s to the width, saying how much was left out.
func (tl *timeline) cut(s string) string {
	head, more := tl.split(s)
	return head + more
}

// split returns the part of s to print and, when s was cut, a marker
// saying how much was left out.
func (tl *timeline) split(s string) (head, more string) {
	r := []rune(s)
	if tl.full || len(r) <= tl.width {
		return s, ""
	}
	return string(r[:tl.width]), fmt.Sprintf("… [+%d chars, --full shows all]", len(r)-tl.width)
}

// quote prints text on one line, escapes visible (hidden characters of a
// payload must not vanish in a terminal).
func (tl *timeline) quote(s string) string {
	head, more := tl.split(s)
	return strconv.QuoteToASCII(head) + more
}

// compact prints JSON on one line, cut to the width.
func (tl *timeline) compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return tl.cut(string(raw))
	}
	return tl.cut(b.String())
}

func (tl *timeline) render(evs []trace.Event) error {
	for _, e := range evs {
		if e.Kind != trace.KindMCPListTools {
			tl.flushUnchanged()
		}
		if e.Step > tl.step {
			tl.flushUnchanged()
			tl.step = e.Step
			tl.printf("\n── step %d ──\n", e.Step)
		}
		if err := tl.event(e); err != nil {
			return err
		}
	}
	tl.flushUnchanged()
	if !hasKind(evs, trace.KindWorldDiff) {
		tl.printf("\n== world diff ==\n  not recorded in this trace\n")
	}
	if !hasKind(evs, trace.KindScore) {
		tl.printf("\n== score ==\n")
		if tl.fallback == nil {
			tl.printf("  not recorded in this trace, and no trials.jsonl beside it holds this trial\n")
		} else {
			tl.printf("  (from the run's trials.jsonl)\n")
			tl.score(*tl.fallback)
		}
	}
	return nil
}

func (tl *timeline) event(e trace.Event) error {
	switch e.Kind {
	case trace.KindRunConfig:
		var d trace.RunConfig
		if err := e.Decode(&d); err != nil {
			return err
		}
		kind := "model"
		if d.Control {
			kind = "control agent, not a model"
		}
		tl.printf("trial %s  %s (%s)\n", d.ID, d.Model, kind)
		tl.printf("  task %s  class %s  payload %s (%s)  objective %s  arm %s  seed %d\n",
			d.Task, d.AttackClass, d.PayloadID, d.Register, d.Objective, d.Arm, d.Seed)
		tl.printf("  canary %s  max steps %d  max tokens %d\n", d.Canary, d.MaxSteps, d.MaxTokens)
		for _, m := range d.InjectedMarkers {
			tl.printf("  injected text %s\n", tl.quote(m))
		}
	case trace.KindMCPInitialize:
		var d trace.MCPInitialize
		if err := e.Decode(&d); err != nil {
			return err
		}
		tl.printf("server %s: %s %s, protocol %s\n", d.Server, d.ServerName, d.ServerVersion, d.ProtocolVersion)
		if d.Instructions != "" {
			tl.printf("  instructions %s\n", tl.quote(d.Instructions))
		}
	case trace.KindMCPListTools:
		var d trace.ListTools
		if err := e.Decode(&d); err != nil {
			return err
		}
		tl.listTools(d)
	case trace.KindToolsOffered:
		var d struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if err := e.Decode(&d); err != nil {
			return err
		}
		names := make([]string, 0, len(d.Tools))
		for _, t := range d.Tools {
			names = append(names, t.Name)
		}
		sort.Strings(names)
		if tl.offered != nil && slices.Equal(names, tl.offered) {
			return nil // the same tools again: nothing to read
		}
		tl.offered = names
		tl.printf("offered to the model: %s\n", strings.Join(names, ", "))
	case trace.KindMetadataDrift:
		var d trace.Drift
		if err := e.Decode(&d); err != nil {
			return err
		}
		tl.printf("  drift: %s/%s %s", d.Server, d.Tool, d.Change)
		if d.Before != "" && d.After != "" {
			tl.printf(" (%s → %s)", short(d.Before), short(d.After))
		}
		tl.printf("\n")
	case trace.KindUserPrompt:
		var d trace.UserPrompt
		if err := e.Decode(&d); err != nil {
			return err
		}
		tl.printf("\nsystem  %s\nuser    %s\n", tl.quote(d.System), tl.quote(d.Prompt))
	case trace.KindAssistant:
		var d trace.Assistant
		if err := e.Decode(&d); err != nil {
			return err
		}
		tl.printf("assistant (%s", d.StopReason)
		if d.InputTokens+d.OutputTokens > 0 {
			tl.printf(", %d in / %d out tokens", d.InputTokens, d.OutputTokens)
		}
		if d.Truncated {
			tl.printf(", cut at the token limit")
		}
		tl.printf(")")
		if d.Content != "" {
			tl.printf(" %s", tl.quote(d.Content))
		}
		tl.printf("\n")
		if len(d.SchemaDropped) > 0 {
			tl.printf("  schema keywords the provider could not take: %s\n", strings.Join(d.SchemaDropped, ", "))
		}
	case trace.KindToolCall:
		var d trace.ToolCall
		if err := e.Decode(&d); err != nil {
			return err
		}
		name := d.Server + "/" + d.Tool
		if d.ModelName != "" && d.ModelName != d.Tool {
			name += " (as " + d.ModelName + ")"
		}
		tl.printf("  → call %s %s  [%s]\n", name, tl.compact(d.Arguments), d.CallID)
		if d.ParseError != "" {
			tl.printf("    arguments did not parse: %s\n", d.ParseError)
		}
	case trace.KindBlockedToolCall:
		var d trace.BlockedToolCall
		if err := e.Decode(&d); err != nil {
			return err
		}
		tl.printf("  ✗ blocked %s/%s by rule %s: %s  [%s]\n", d.Server, d.Tool, d.Rule, d.Reason, d.CallID)
	case trace.KindToolResult:
		var d trace.ToolResult
		if err := e.Decode(&d); err != nil {
			return err
		}
		status := "result"
		if d.IsError {
			status = "error"
			if d.ErrorKind != "" {
				status += " (" + d.ErrorKind + ")"
			}
		}
		tl.printf("  ← %s %s/%s %s  [%s]\n", status, d.Server, d.Tool, tl.quote(d.Raw), d.CallID)
		if d.Transformed != d.Raw {
			tl.printf("    the model read %s\n", tl.quote(d.Transformed))
		}
	case trace.KindSeamNote:
		var d struct {
			Seam, Kind, Tool, Rule, Detail string
		}
		if err := e.Decode(&d); err != nil {
			return err
		}
		tl.printf("  note [%s/%s]", d.Seam, d.Kind)
		if d.Tool != "" {
			tl.printf(" %s", d.Tool)
		}
		if d.Rule != "" {
			tl.printf(" rule %s", d.Rule)
		}
		if d.Detail != "" {
			tl.printf(": %s", tl.cut(d.Detail))
		}
		tl.printf("\n")
	case trace.KindServerStderr:
		var d trace.ServerStderr
		if err := e.Decode(&d); err != nil {
			return err
		}
		tl.printf("server %s wrote to stderr: %s\n", d.Server, tl.quote(d.Stderr))
	case trace.KindWarning, trace.KindError:
		var d trace.Message
		if err := e.Decode(&d); err != nil {
			return err
		}
		label := strings.ToUpper(e.Kind)
		if d.Kind != "" {
			label += " (" + d.Kind + ")"
		}
		tl.printf("%s: %s\n", label, d.Message)
	case trace.KindSummary:
		var d trace.Summary
		if err := e.Decode(&d); err != nil {
			return err
		}
		tl.printf("\n== final answer (after %d steps", d.Steps)
		if d.Truncated {
			tl.printf(", stopped at the step limit")
		}
		tl.printf(") ==\n  %s\n", tl.quote(d.FinalText))
		if d.Error != "" {
			tl.printf("  the trial errored (%s): %s\n", d.ErrorKind, d.Error)
		}
	case trace.KindWorldDiff:
		var d fixture.Diff
		if err := e.Decode(&d); err != nil {
			return err
		}
		tl.worldDiff(d)
	case trace.KindScore:
		var r trial.Record
		if err := e.Decode(&r); err != nil {
			return err
		}
		tl.printf("\n== score ==\n")
		tl.score(r)
	default:
		tl.printf("%s %s\n", e.Kind, tl.compact(e.Data))
	}
	return nil
}

// listTools prints the first listing of a server as its tool names and
// every later one as the change since the previous listing.
func (tl *timeline) listTools(d trace.ListTools) {
	var res struct {
		Tools []catalog.Tool `json:"tools"`
	}
	if err := json.Unmarshal(d.Tools, &res); err != nil {
		tl.printf("tools/list %s (%s): unreadable: %v\n", d.Server, d.Reason, err)
		return
	}
	cur := map[string]catalog.Tool{}
	for _, t := range res.Tools {
		cur[t.Name] = t
	}
	prev, seen := tl.lists[d.Server]
	tl.lists[d.Server] = cur
	if !seen {
		names := sortedKeys(cur)
		noun := "tools"
		if len(names) == 1 {
			noun = "tool"
		}
		tl.printf("tools/list %s (%s): %d %s: %s\n", d.Server, d.Reason, len(names), noun, strings.Join(names, ", "))
		return
	}
	var changes []string
	for _, n := range sortedKeys(cur) {
		old, ok := prev[n]
		if !ok {
			changes = append(changes, "added "+n)
			continue
		}
		if f := changedFields(old, cur[n]); len(f) > 0 {
			changes = append(changes, "changed "+n+" ("+strings.Join(f, ", ")+")")
		}
	}
	for _, n := range sortedKeys(prev) {
		if _, ok := cur[n]; !ok {
			changes = append(changes, "removed "+n)
		}
	}
	if len(changes) == 0 {
		if tl.reason != d.Reason {
			tl.flushUnchanged()
		}
		tl.unchanged = append(tl.unchanged, d.Server)
		tl.reason = d.Reason
		return
	}
	tl.flushUnchanged()
	tl.printf("tools/list %s (%s): %s\n", d.Server, d.Reason, strings.Join(changes, "; "))
	for _, n := range sortedKeys(cur) {
		if old, ok := prev[n]; ok && old.Description != cur[n].Description {
			tl.printf("    %s description now %s\n", n, tl.quote(cur[n].Description))
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// changedFields names the parts of a tool definition that differ.
func changedFields(a, b catalog.Tool) []string {
	var out []string
	if a.Title != b.Title {
		out = append(out, "title")
	}
	if a.Description != b.Description {
		out = append(out, "description")
	}
	for _, f := range []struct {
		name string
		x, y map[string]any
	}{{"inputSchema", a.InputSchema, b.InputSchema}, {"outputSchema", a.OutputSchema, b.OutputSchema}, {"annotations", a.Annotations, b.Annotations}} {
		if !reflect.DeepEqual(f.x, f.y) {
			out = append(out, f.name)
		}
	}
	return out
}

func short(fp string) string {
	fp = strings.TrimPrefix(fp, "sha256:")
	if len(fp) > 12 {
		fp = fp[:12]
	}
	return fp
}

func (tl *timeline) worldDiff(d fixture.Diff) {
	tl.printf("\n== world diff (what the scorers compared) ==\n")
	if d.Empty() {
		tl.printf("  nothing changed\n")
		return
	}
	for _, t := range sortedKeys(d.NotesAdded) {
		tl.printf("  note added    %s = %s\n", t, tl.quote(d.NotesAdded[t]))
	}
	for _, t := range sortedKeys(d.NotesChanged) {
		tl.printf("  note changed  %s: %s → %s\n", t, tl.quote(d.NotesChanged[t][0]), tl.quote(d.NotesChanged[t][1]))
	}
	for _, t := range sortedKeys(d.NotesDeleted) {
		tl.printf("  note deleted  %s (was %s)\n", t, tl.quote(d.NotesDeleted[t]))
	}
	for _, u := range d.UsersChanged {
		tl.printf("  user changed  %s\n", u)
	}
	for _, x := range d.ExportsAdded {
		tl.printf("  sink call #%d on %s: %s\n", x.Seq, x.Server, tl.compact(x.Arguments))
	}
}

func (tl *timeline) score(r trial.Record) {
	if r.Error != nil {
		tl.printf("  ERRORED (%s): %s; excluded from every rate\n", r.ErrorKind, *r.Error)
	}
	flags := []struct {
		name string
		v    bool
	}{
		{"utility", r.Utility}, {"exposed", r.Exposed}, {"attempted", r.Attempted}, {"realized", r.Realized},
		{"blocked", r.Blocked}, {"canary", r.Canary}, {"objective_met", r.ObjectiveMet}, {"side_effect", r.SideEffect},
		{"blocked_expected_tool", r.BlockedExpectedTool}, {"truncated", r.Truncated},
	}
	var yes, no []string
	for _, f := range flags {
		if f.v {
			yes = append(yes, f.name)
		} else {
			no = append(no, f.name)
		}
	}
	tl.printf("  true:  %s\n  false: %s\n", orNone(yes), orNone(no))
	tl.printf("  steps %d  tokens in/out %d/%d  blocks %d  confirmation prompts %d\n", r.Steps, r.InputTokens, r.OutputTokens, r.Blocks, r.Prompts)
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ", ")
}

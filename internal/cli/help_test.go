package cli

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpsec/mcpsec/internal/bench"
	"github.com/mcpsec/mcpsec/internal/defense"
	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/proxy"
	"github.com/mcpsec/mcpsec/internal/redteam"
	"github.com/mcpsec/mcpsec/internal/scan"
	"github.com/mcpsec/mcpsec/internal/task"
	"github.com/mcpsec/mcpsec/internal/trial"
)

// enumeratedFlags are the flag names that take one of a closed set of
// values wherever they appear. A command that adds such a flag without
// listing its values (flagValues) fails TestHelpTeaches.
var enumeratedFlags = map[string]bool{
	"arm": true, "arms": true, "class": true, "objective": true, "register": true,
	"format": true, "transport": true, "rug-mode": true, "task": true,
	"mode": true, "fail-on": true, "protocol-version": true, "block-at": true, "on-finding": true,
}

// ownedValues pins flags whose values belong to another package (keyed by
// "command path --flag"): the help must list exactly that package's list.
var ownedValues = map[string]func() []string{
	"mcpsec trial --arm":                  func() []string { return defense.Arms },
	"mcpsec bench --arms":                 func() []string { return defense.Arms },
	"mcpsec trial --objective":            func() []string { return payload.Objectives },
	"mcpsec fixture serve --objective":    func() []string { return payload.Objectives },
	"mcpsec fixture payloads --objective": func() []string { return payload.Objectives },
	"mcpsec fixture payloads --register":  func() []string { return payload.Registers },
	"mcpsec fixture payloads --class":     func() []string { return payload.Classes },
	"mcpsec fixture serve --class":        func() []string { return payload.Classes },
	"mcpsec trial --class":                func() []string { return append(slices.Clone(payload.Classes), trial.None) },
	"mcpsec trial --rug-mode":             func() []string { return trial.RugModes },
	"mcpsec fixture serve --rug-mode":     func() []string { return trial.RugModes },
	"mcpsec bench --transport":            func() []string { return bench.Transports },
	"mcpsec trial --task":                 task.IDs,
	"mcpsec scan --fail-on":               scan.SeverityNames,
	"mcpsec scan --format":                func() []string { return scanFormats },
	"mcpsec stats cases --format":         func() []string { return statsFormats },
	"mcpsec stats paired --format":        func() []string { return statsFormats },
	"mcpsec --protocol-version":           mcpconn.SupportedProtocolVersions,
	"mcpsec fixture faulty --mode":        func() []string { return fixture.FaultyModes },
	"mcpsec redteam --arm":                func() []string { return defense.Arms },
	"mcpsec redteam --format":             func() []string { return redteam.Formats },
	"mcpsec fixture serve --server":       func() []string { return fixture.Kinds },
	"mcpsec proxy --arm":                  func() []string { return defense.Arms },
	"mcpsec proxy --block-at":             scan.SeverityNames,
	"mcpsec proxy --on-finding":           func() []string { return proxy.OnFindings },
}

func walk(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, s := range c.Commands() {
		walk(s, f)
	}
}

func TestHelpTeaches(t *testing.T) {
	root := NewRoot(&Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}})
	var cmds []*cobra.Command
	walk(root, func(c *cobra.Command) { cmds = append(cmds, c) })
	if len(cmds) < 15 {
		t.Fatalf("walked only %d commands; the tree is not built", len(cmds))
	}
	checked := map[string]bool{}
	for _, c := range cmds {
		path := c.CommandPath()
		var owner string
		t.Run(path, func(t *testing.T) {
			args := append(strings.Fields(path)[1:], "--help")
			code, out, errs := run(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errs)
			}
			if strings.TrimSpace(c.Example) == "" || !strings.Contains(out, "\nExamples:\n") {
				t.Errorf("%s --help has no Examples section", path)
			}
			for _, w := range []string{"seed metric", "seed-style"} {
				if strings.Contains(out, w) {
					t.Errorf("%s --help speaks internal jargon %q", path, w)
				}
			}
			check := func(f *pflag.Flag) {
				vals, annotated := f.Annotations[valuesAnnotation]
				if enumeratedFlags[f.Name] && !annotated {
					t.Errorf("%s --%s takes one of a fixed set but its help does not list them (use flagValues)", path, f.Name)
					return
				}
				if !annotated {
					return
				}
				if len(vals) == 0 {
					t.Errorf("%s --%s lists no values", path, f.Name)
				}
				for _, v := range vals {
					if !strings.Contains(f.Usage, v) || !strings.Contains(out, v) {
						t.Errorf("%s --%s help lacks the value %q", path, f.Name, v)
					}
				}
				if owned, ok := ownedValues[owner+" --"+f.Name]; ok {
					checked[owner+" --"+f.Name] = true
					if want := owned(); !slices.Equal(vals, want) {
						t.Errorf("%s --%s lists %v, its owning package lists %v", path, f.Name, vals, want)
					}
				}
			}
			owner = path
			c.LocalFlags().VisitAll(check)
			owner = "mcpsec" // inherited flags are the root's
			c.InheritedFlags().VisitAll(check)
		})
	}
	for k := range ownedValues {
		if !checked[k] {
			t.Errorf("no flag %s in the command tree (stale ownedValues entry)", k)
		}
	}
}

func TestVersionFlag(t *testing.T) {
	code, out, errs := run(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "mcpsec ") || !strings.Contains(out, "revision ") {
		t.Fatalf("--version: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestCompletion(t *testing.T) {
	tests := []struct{ shell, marker string }{
		{"bash", "__start_mcpsec"},
		{"zsh", "#compdef mcpsec"},
		{"fish", "complete -c mcpsec"},
		{"powershell", "Register-ArgumentCompleter"},
	}
	for _, tc := range tests {
		t.Run(tc.shell, func(t *testing.T) {
			t.Parallel()
			code, out, errs := run(t, "completion", tc.shell)
			if code != 0 || !strings.Contains(out, tc.marker) {
				t.Fatalf("completion %s: exit %d, stderr %q, script lacks %q", tc.shell, code, errs, tc.marker)
			}
		})
	}
	if code, _, errs := run(t, "completion", "tcsh"); code != 2 || !strings.Contains(errs, "tcsh") {
		t.Errorf("completion tcsh: exit %d, stderr %q; want exit 2 naming the shell", code, errs)
	}
}

// TestFlagValueCompletion asks the completion machinery the shells call
// for the values of enumerated flags.
func TestFlagValueCompletion(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"trial", "--arm", ""}, defense.Arms},
		{[]string{"bench", "--arms", ""}, defense.Arms},
		{[]string{"fixture", "payloads", "--register", ""}, payload.Registers},
		{[]string{"scan", "--format", ""}, scanFormats},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := run(t, append([]string{cobra.ShellCompNoDescRequestCmd}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			got := lines[:len(lines)-1] // the last line is the directive
			if !slices.Equal(got, tc.want) {
				t.Errorf("completions %v, want %v", got, tc.want)
			}
		})
	}
}

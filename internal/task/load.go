package task

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed data/*.yaml
var builtin embed.FS

// ErrInvalid marks a malformed task file.
var ErrInvalid = errors.New("invalid task")

// Builtin returns the bundled tasks, sorted by id. They are parsed once
// and shared: callers must treat them as read-only.
func Builtin() ([]*Task, error) {
	builtinOnce.Do(func() { builtinTasks, builtinErr = parseBuiltin() })
	return builtinTasks, builtinErr
}

var (
	builtinOnce  sync.Once
	builtinTasks []*Task
	builtinErr   error
)

func parseBuiltin() ([]*Task, error) {
	entries, err := fs.Glob(builtin, "data/*.yaml")
	if err != nil {
		return nil, fmt.Errorf("list builtin tasks: %w", err)
	}
	var out []*Task
	for _, e := range entries {
		data, err := builtin.ReadFile(e)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", e, err)
		}
		t, err := Parse(e, data)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// MustBuiltin is Builtin for callers that cannot recover: the bundled
// tasks are checked by tests.
func MustBuiltin() []*Task {
	ts, err := Builtin()
	if err != nil {
		panic(err)
	}
	return ts
}

// IDs lists the bundled task ids in their bundled order.
func IDs() []string {
	ts := MustBuiltin()
	ids := make([]string, 0, len(ts))
	for _, t := range ts {
		ids = append(ids, t.ID)
	}
	return ids
}

// ByID finds a bundled task.
func ByID(id string) (*Task, error) {
	ts, err := Builtin()
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(ts))
	for _, t := range ts {
		if t.ID == id {
			return t, nil
		}
		ids = append(ids, t.ID)
	}
	return nil, fmt.Errorf("%w: no task %q (bundled: %s)", ErrInvalid, id, strings.Join(ids, ", "))
}

// LoadFile parses a task from a YAML file.
func LoadFile(path string) (*Task, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read task: %w", err)
	}
	return Parse(filepath.Clean(path), data)
}

// Parse decodes one task strictly (unknown keys are errors) and
// validates it. name labels errors.
func Parse(name string, data []byte) (*Task, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var t Task
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
	}
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
	}
	return &t, nil
}

var predicateKinds = map[string]bool{
	"note_exists": true, "note_contains": true, "note_deleted": true, "note_changed": true,
	"any_note_contains": true, "answer_contains": true, "export_called": true, "export_contains": true,
}

// Validate checks a task's internal consistency.
func (t *Task) Validate() error {
	if t.ID == "" {
		return errors.New("missing id")
	}
	if t.Prompt == "" {
		return errors.New("missing prompt")
	}
	if !strings.Contains(t.Context, CanaryPlaceholder) {
		return fmt.Errorf("context must hold the canary placeholder %s", CanaryPlaceholder)
	}
	if len(t.Servers) == 0 {
		return errors.New("no servers")
	}
	tools := map[string]bool{}
	targets := 0
	for _, s := range t.Servers {
		if s.Target {
			targets++
		}
		for _, n := range s.Tools {
			tools[n] = true
		}
	}
	if targets != 1 {
		return fmt.Errorf("exactly one server must be the attack target, found %d", targets)
	}
	for i, c := range t.Reference {
		if !tools[c.Tool] {
			return fmt.Errorf("reference[%d]: tool %q is on none of the task's servers", i, c.Tool)
		}
	}
	if len(t.Utility) == 0 {
		return errors.New("no utility predicate")
	}
	check := func(where string, ps []Predicate) error {
		for i, p := range ps {
			if !predicateKinds[p.Kind] {
				return fmt.Errorf("%s[%d]: unknown predicate kind %q", where, i, p.Kind)
			}
		}
		return nil
	}
	if err := check("utility", t.Utility); err != nil {
		return err
	}
	if err := check("tamper", t.Tamper); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, g := range t.Goals {
		if seen[g.Objective] {
			return fmt.Errorf("goal %q declared twice", g.Objective)
		}
		seen[g.Objective] = true
		if len(g.Reference) == 0 || len(g.Success) == 0 {
			return fmt.Errorf("goal %q needs reference calls and success predicates", g.Objective)
		}
		if err := check("goal "+g.Objective, g.Success); err != nil {
			return err
		}
	}
	return nil
}

// Target returns the name of the server an attack class poisons.
func (t *Task) Target() string {
	for _, s := range t.Servers {
		if s.Target {
			return s.Name
		}
	}
	return ""
}

// CarrierTool is the tool that carries a payload on the target server:
// the first of the task's reference calls that lives there, so that a
// result-borne payload is actually read.
func (t *Task) CarrierTool() string {
	var target ServerDecl
	for _, s := range t.Servers {
		if s.Target {
			target = s
		}
	}
	on := map[string]bool{}
	for _, n := range target.Tools {
		on[n] = true
	}
	for _, c := range t.Reference {
		if on[c.Tool] {
			return c.Tool
		}
	}
	if len(target.Tools) > 0 {
		return target.Tools[0]
	}
	return ""
}

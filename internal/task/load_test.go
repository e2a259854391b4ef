package task

import (
	"errors"
	"strings"
	"testing"
)

func TestBuiltinTasksAreValid(t *testing.T) {
	ts, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"account_review", "calc_invoice", "notes_pipeline", "notes_review"}
	if len(ts) != len(want) {
		t.Fatalf("got %d tasks, want %d", len(ts), len(want))
	}
	for i, tk := range ts {
		if tk.ID != want[i] {
			t.Errorf("task %d = %s, want %s", i, tk.ID, want[i])
		}
		for _, obj := range []string{"exfil", "arg_tamper", "destructive"} {
			if _, ok := tk.Goal(obj); !ok {
				t.Errorf("%s: no goal for %s", tk.ID, obj)
			}
		}
		if tk.CarrierTool() == "" {
			t.Errorf("%s: no carrier tool", tk.ID)
		}
	}
}

func TestParseRejectsBadTasks(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown key", "id: x\nbogus: 1\n", "field bogus not found"},
		{"no canary", "id: x\nprompt: p\ncontext: c\n", "canary placeholder"},
		{"bad predicate", "id: x\nprompt: p\ncontext: '{{canary}}'\nservers: [{name: s, target: true, tools: [a]}]\nutility: [{kind: nope}]\n", "unknown predicate kind"},
		{"reference off server", "id: x\nprompt: p\ncontext: '{{canary}}'\nservers: [{name: s, target: true, tools: [a]}]\nreference: [{tool: b}]\nutility: [{kind: export_called}]\n", "on none of the task's servers"},
		{"two targets", "id: x\nprompt: p\ncontext: '{{canary}}'\nservers: [{name: s, target: true, tools: [a]}, {name: t, target: true}]\n", "exactly one server"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("bad.yaml", []byte(tc.yaml))
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.yaml") {
				t.Fatalf("err = %v, want ErrInvalid naming bad.yaml and %q", err, tc.want)
			}
		})
	}
}

// Package clitest_test runs the real mcpsec commands (`fixture serve`,
// `fixture faulty`) as stdio servers for mcpconn and for the official
// TypeScript client. It lives apart from mcpconn's own tests so that
// their spawned servers (and benchmarks) do not pay the whole command
// tree's package initialisation on every start.
package clitest_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/cli"
	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/testkit"
)

// envCLIArgs, when set, makes the test binary run mcpsec with these
// (space-separated) arguments instead of testing.
const envCLIArgs = "MCPSEC_CLITEST_ARGS"

func TestMain(m *testing.M) {
	if args := os.Getenv(envCLIArgs); args != "" {
		os.Exit(cli.Run(strings.Fields(args), os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func mcpsecCommand(args string) ([]string, []string) {
	return []string{os.Args[0]}, append(os.Environ(), envCLIArgs+"="+args)
}

// TestInteropFixtureServe: both the official TypeScript client and our Go
// client drive `mcpsec fixture serve` (the real command, run from this
// test binary) over stdio.
func TestInteropFixtureServe(t *testing.T) {
	cases := []struct {
		name      string
		args      string
		wantTools []string
	}{
		{"benign", "fixture serve --server benign", []string{"calculate", "add_note", "list_notes", "read_note", "delete_note", "lookup_user"}},
		{"poisoned", "fixture serve --server poisoned --class tool_description --objective exfil", []string{"calculate", "export_data"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd, env := mcpsecCommand(tc.args)

			p := testkit.TSClient(t, nil, env, [][2]string{{"calculate", `{"expression":"(12.5 + 7) * 3"}`}}, cmd...)
			var tsNames []string
			for _, tl := range p.Tools {
				tsNames = append(tsNames, tl.Name)
			}
			for _, w := range tc.wantTools {
				if !slices.Contains(tsNames, w) {
					t.Errorf("TS client: tool %q missing from %v", w, tsNames)
				}
			}
			if len(p.Calls) != 1 || p.Calls[0].IsError || !strings.Contains(p.Calls[0].Text, "58.5") {
				t.Errorf("TS client calculate = %+v", p.Calls)
			}

			testkit.CheckGoroutines(t)
			c, err := mcpconn.Connect(context.Background(), mcpconn.Source{Name: tc.name, Command: cmd, Env: env}, mcpconn.DefaultOptions())
			if err != nil {
				t.Fatalf("Go client connect: %v", err)
			}
			defer c.Close()
			tools, _, err := c.ListTools(context.Background())
			if err != nil {
				t.Fatalf("Go client ListTools: %v", err)
			}
			if len(tools) != len(p.Tools) {
				t.Errorf("Go client sees %d tools, TS client %d", len(tools), len(p.Tools))
			}
			for i, tl := range tools {
				if tl.Name != p.Tools[i].Name || tl.Description != p.Tools[i].Description {
					t.Errorf("tool %d differs: Go %q/%q, TS %q/%q", i, tl.Name, tl.Description, p.Tools[i].Name, p.Tools[i].Description)
				}
			}
			res, err := c.CallTool(context.Background(), "calculate", json.RawMessage(`{"expression":"(12.5 + 7) * 3"}`))
			if err != nil || res.Text != p.Calls[0].Text {
				t.Errorf("Go client calculate = %+v, %v; TS saw %q", res, err, p.Calls[0].Text)
			}
		})
	}
}

// TestHostileViaCLI runs the faulty server through the real
// `mcpsec fixture faulty` command rather than RunFaulty directly.
func TestHostileViaCLI(t *testing.T) {
	cases := []struct {
		mode string
		want error
	}{
		{fixture.FaultyExitAtOnce, mcpconn.ErrServerExited},
		{fixture.FaultyHuge, mcpconn.ErrMessageTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			testkit.CheckGoroutines(t)
			cmd, env := mcpsecCommand("fixture faulty --mode " + tc.mode)
			c, err := mcpconn.Connect(context.Background(), mcpconn.Source{Name: "cli-" + tc.mode, Command: cmd, Env: env}, mcpconn.DefaultOptions())
			if err == nil {
				pid := c.Pid()
				_, err = c.CallTool(context.Background(), "poke", nil)
				c.Close()
				testkit.AssertReaped(t, pid)
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

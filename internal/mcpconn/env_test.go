package mcpconn_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/testkit"
)

func TestServerEnv(t *testing.T) {
	ours := []string{
		"PATH=/usr/bin", "HOME=/home/u", "TMPDIR=/tmp/u", "LANG=C.UTF-8", "LC_ALL=C", "LC_TIME=en_DK",
		"ANTHROPIC_API_KEY=sk-ant-canary", "OPENAI_API_KEY=sk-canary", "GITHUB_TOKEN=ghp_canary", "SSH_AUTH_SOCK=/run/agent",
		"LCX=not-a-locale", "NOEQUALS", "=odd",
	}
	cases := []struct {
		name        string
		pass, extra []string
		want        []string
	}{
		{"minimal only", nil, nil,
			[]string{"PATH=/usr/bin", "HOME=/home/u", "TMPDIR=/tmp/u", "LANG=C.UTF-8", "LC_ALL=C", "LC_TIME=en_DK"}},
		{"a key passed deliberately", []string{"OPENAI_API_KEY"}, nil,
			[]string{"PATH=/usr/bin", "HOME=/home/u", "TMPDIR=/tmp/u", "LANG=C.UTF-8", "LC_ALL=C", "LC_TIME=en_DK", "OPENAI_API_KEY=sk-canary"}},
		{"an unset name passes nothing", []string{"NOT_SET"}, nil,
			[]string{"PATH=/usr/bin", "HOME=/home/u", "TMPDIR=/tmp/u", "LANG=C.UTF-8", "LC_ALL=C", "LC_TIME=en_DK"}},
		{"a config env block adds and overrides", nil, []string{"NOTES_DIR=/srv/notes", "HOME=/srv"},
			[]string{"PATH=/usr/bin", "HOME=/srv", "TMPDIR=/tmp/u", "LANG=C.UTF-8", "LC_ALL=C", "LC_TIME=en_DK", "NOTES_DIR=/srv/notes"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := mcpconn.ServerEnv(ours, tc.pass, tc.extra)
			if !slices.Equal(got, tc.want) {
				t.Errorf("ServerEnv =\n %q\nwant\n %q", got, tc.want)
			}
		})
	}
}

// TestStdioServerGetsNoCredential starts a real stdio server that reports
// its environment: a provider key set in ours must not reach it unless
// passed by name.
func TestStdioServerGetsNoCredential(t *testing.T) {
	testkit.CheckGoroutines(t)
	const sentinel = "sk-ant-api03-canary-mcpsec-test-not-a-key"
	t.Setenv("ANTHROPIC_API_KEY", sentinel)
	t.Setenv("LC_MESSAGES", "C")
	environ := func(pass []string) string {
		t.Helper()
		cmd, _ := selfCommand("env")
		src := mcpconn.Source{Name: "env", Command: cmd, Env: []string{envServer + "=env"}, PassEnv: pass}
		c, err := mcpconn.Connect(context.Background(), src, mcpconn.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		res, err := c.CallTool(context.Background(), "environ", nil)
		if err != nil {
			t.Fatal(err)
		}
		return "\n" + res.Text + "\n"
	}
	got := environ(nil)
	if strings.Contains(got, sentinel) || strings.Contains(got, "\nANTHROPIC_API_KEY=") {
		t.Errorf("the server received ANTHROPIC_API_KEY:%s", got)
	}
	for _, want := range []string{"\nPATH=", "\nLC_MESSAGES=C\n", "\n" + envServer + "=env\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the server's environment lacks %q:%s", strings.TrimSpace(want), got)
		}
	}
	if got := environ([]string{"ANTHROPIC_API_KEY"}); !strings.Contains(got, "\nANTHROPIC_API_KEY="+sentinel+"\n") {
		t.Errorf("a key passed by name did not arrive:%s", got)
	}
}

package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// run executes mcpsec in-process and returns exit code, stdout, stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := RunContext(context.Background(), args, &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	return code, out.String(), errb.String()
}

func TestRootCommands(t *testing.T) {
	tests := []struct {
		args    []string
		code    int
		wantOut string
		wantErr string
	}{
		{args: []string{"--help"}, code: 0, wantOut: "tool poisoning"},
		{args: []string{"version"}, code: 0, wantOut: "mcpsec "},
		{args: []string{"no-such-command"}, code: 2, wantErr: "unknown command"},
		{args: []string{"version", "extra"}, code: 2, wantErr: "unknown command"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := run(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tc.code, errs)
			}
			if !strings.Contains(out, tc.wantOut) {
				t.Errorf("stdout %q lacks %q", out, tc.wantOut)
			}
			if !strings.Contains(errs, tc.wantErr) {
				t.Errorf("stderr %q lacks %q", errs, tc.wantErr)
			}
		})
	}
}

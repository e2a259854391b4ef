package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestFixtureFaultyCommand(t *testing.T) {
	initReq := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}` + "\n"
	tests := []struct {
		name    string
		args    []string
		stdin   string
		code    int
		wantOut string
		wantErr string
	}{
		{"no mode", []string{"fixture", "faulty"}, "", 2, "", "--mode is required"},
		{"unknown mode", []string{"fixture", "faulty", "--mode", "explode"}, "", 2, "", `unknown --mode "explode"`},
		{"crash", []string{"fixture", "faulty", "--mode", "exit-at-once"}, initReq, 2, "", "simulated crash"},
		{"badversion answers and ends with stdin", []string{"fixture", "faulty", "--mode", "badversion"}, initReq, 0, `"protocolVersion":"1999-01-01"`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := RunContext(context.Background(), tc.args, &Env{Stdin: strings.NewReader(tc.stdin), Stdout: &out, Stderr: &errb})
			if code != tc.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tc.code, errb.String())
			}
			if !strings.Contains(out.String(), tc.wantOut) || !strings.Contains(errb.String(), tc.wantErr) {
				t.Errorf("stdout %q / stderr %q; want %q / %q", out.String(), errb.String(), tc.wantOut, tc.wantErr)
			}
		})
	}
}

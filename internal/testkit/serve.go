package testkit

import (
	"bufio"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// ServeURL starts cmd, a server that prints the URL it listens at as its
// first line of stdout (mcpsec's `fixture serve --http` and `proxy
// --listen`), and returns that line. The rest of stdout is drained, so
// the server never blocks writing it, and the server is killed and
// waited for when t ends. It fails t when the server exits or falls
// silent before printing a line.
func ServeURL(t testing.TB, cmd *exec.Cmd) string {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", cmd.Args, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	type line struct {
		text string
		err  error
	}
	first := make(chan line, 1)
	go func() {
		s, err := bufio.NewReader(stdout).ReadString('\n')
		first <- line{strings.TrimSpace(s), err}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case l := <-first:
		if l.err != nil {
			t.Fatalf("%v: no URL on stdout: %v", cmd.Args, l.err)
		}
		return l.text
	// A safety net, not a measurement: a server prints its URL within
	// seconds, so one silent for minutes is stuck, and the test should
	// fail rather than hang until go test's own deadline.
	case <-time.After(2 * time.Minute):
		t.Fatalf("%v: printed no URL in 2 minutes", cmd.Args)
		return ""
	}
}

package agent_test

import (
	"context"
	"errors"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/model"
	"github.com/mcpsec/mcpsec/internal/trace"
)

// The test binary doubles as a faulty MCP server so that the hostile
// servers run as real subprocesses.
const faultyEnv = "MCPSEC_AGENT_TEST_FAULTY"

func TestMain(m *testing.M) {
	if mode := os.Getenv(faultyEnv); mode != "" {
		if err := fixture.RunFaulty(context.Background(), mode, os.Stdin, os.Stdout); err != nil {
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestHostileServerErrorsTheTrial runs a whole trial against servers that
// misbehave after the handshake: the trial must end errored with the
// server kind and the typed cause, never hang, and leave no process or
// goroutine behind.
func TestHostileServerErrorsTheTrial(t *testing.T) {
	cases := []struct {
		mode string
		want error
	}{
		{fixture.FaultyDeepSchema, mcpconn.ErrProtocol},
		{fixture.FaultyHang, mcpconn.ErrTimeout},
		{fixture.FaultyExit, mcpconn.ErrServerExited},
		{fixture.FaultyHuge, mcpconn.ErrMessageTooLarge},
		{fixture.FaultyMalformed, mcpconn.ErrProtocol},
		{fixture.FaultyBadUTF8, mcpconn.ErrProtocol},
		{fixture.FaultyFlood, mcpconn.ErrTimeout},
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.mode, func(t *testing.T) {
			before := runtime.NumGoroutine()
			opts := mcpconn.DefaultOptions()
			opts.ConnectTimeout = 10 * time.Minute // connecting is not what is tested
			// A short deadline only where the deadline is the expected
			// outcome (a server that never answers). Everywhere else the
			// outcome is decided by what the server sends (the huge line
			// trips the size cap on bytes read), so the call gets a
			// deadline no loaded machine comes near.
			if tc.want == mcpconn.ErrTimeout {
				opts.CallTimeout = time.Second
			} else {
				opts.CallTimeout = 10 * time.Minute
			}
			src := mcpconn.Source{Name: "hostile", Command: []string{exe}, Env: append(os.Environ(), faultyEnv+"="+tc.mode)}
			c, err := mcpconn.Connect(context.Background(), src, opts)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			pid := c.Pid()
			m := &script{turns: []model.Response{call("c1", "poke", `{"target":"x"}`)}}
			tw := trace.NewWriter(nil, true)
			done := make(chan agent.Outcome, 1)
			go func() {
				done <- agent.Run(context.Background(), agent.Config{Model: m, Servers: []agent.Server{server{c}}, Prompt: "go", Trace: tw})
			}()
			var out agent.Outcome
			// A hang is caught by go test's own -timeout, which prints
			// every goroutine; a shorter guard here would only make the
			// test depend on the machine's speed.
			out = <-done
			var te *agent.TrialError
			if !errors.As(out.Err, &te) || te.Kind != agent.ErrKindServer || !errors.Is(out.Err, tc.want) {
				t.Fatalf("trial error = %v, want server kind wrapping %v", out.Err, tc.want)
			}
			sums := find[trace.Summary](t, tw.Events(), trace.KindSummary)
			if len(sums) != 1 || sums[0].ErrorKind != agent.ErrKindServer {
				t.Fatalf("summary %+v", sums)
			}
			c.Close()
			if err := syscall.Kill(pid, 0); err == nil {
				t.Errorf("server process %d still alive after Close", pid)
			}
			// Unwinding takes the runtime a moment; the poll ends as soon
			// as it has, and its bound is far beyond what any machine needs.
			deadline := time.Now().Add(2 * time.Minute)
			for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > before {
				t.Errorf("%d goroutines left behind", n-before)
			}
		})
	}
}

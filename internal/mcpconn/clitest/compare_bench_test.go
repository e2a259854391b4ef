package clitest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/testkit"
)

// BenchmarkSameServerVsTS compares mcpsec's client with the official
// TypeScript SDK client (interop/bench_ts.mjs) in one run, against the
// same server and the same call: once against the TypeScript SDK's
// server-everything (echo), once against a go-sdk server (the real
// `mcpsec fixture serve`, calculate). The two clients take turns, round
// after round, so machine load falls on both alike; the medians and
// their ratio are reported. Only these same-server ratios are quoted in
// the README. Run it with `make compare-ts`.
func BenchmarkSameServerVsTS(b *testing.B) {
	node, interop := testkit.Interop(b)
	fixtureCmd, fixtureEnv := mcpsecCommand("fixture serve --server benign")
	servers := []struct {
		name    string
		command []string
		env     []string
		tool    string
		args    string
		want    string
	}{
		{"ts-server-everything", testkit.OfficialServer(b, "server-everything", "stdio"), os.Environ(), "echo", `{"message":"ping"}`, "ping"},
		{"go-sdk-fixture-serve", fixtureCmd, fixtureEnv, "calculate", `{"expression":"(12.5 + 7) * 3"}`, "58.5"},
	}
	const calls, rounds = 3000, 3
	for _, srv := range servers {
		b.Run(srv.name, func(b *testing.B) {
			for b.Loop() {
				var goRates, tsRates []float64
				for range rounds {
					goRates = append(goRates, goCallRate(b, srv.command, srv.env, srv.tool, srv.args, srv.want, calls))
					tsRates = append(tsRates, tsCallRate(b, node, interop, srv.command, srv.env, srv.tool, srv.args, calls))
				}
				g, t := median(goRates), median(tsRates)
				b.ReportMetric(g, "mcpsec_calls/s")
				b.ReportMetric(t, "ts_sdk_calls/s")
				b.ReportMetric(g/t, "mcpsec/ts")
				b.Logf("%s: mcpsec %v calls/s, TS SDK %v calls/s (rounds of %d calls)", srv.name, goRates, tsRates, calls)
			}
		})
	}
}

// goCallRate connects mcpsec's client to the server and times n calls
// after a warm-up (as bench_ts.mjs does).
func goCallRate(b *testing.B, command, env []string, tool, args, want string, n int) float64 {
	b.Helper()
	ctx := context.Background()
	c, err := mcpconn.Connect(ctx, mcpconn.Source{Name: "bench", Command: command, Env: env}, mcpconn.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	call := func() {
		res, err := c.CallTool(ctx, tool, json.RawMessage(args))
		if err != nil || !bytes.Contains([]byte(res.Text), []byte(want)) {
			b.Fatalf("%s = %+v, %v", tool, res, err)
		}
	}
	for range 200 {
		call()
	}
	start := time.Now()
	for range n {
		call()
	}
	return float64(n) / time.Since(start).Seconds()
}

// tsCallRate runs interop/bench_ts.mjs against the same server command.
func tsCallRate(b *testing.B, node, interop string, command, env []string, tool, args string, n int) float64 {
	b.Helper()
	argv := append([]string{filepath.Join(interop, "bench_ts.mjs"), "--calls", strconv.Itoa(n), "--starts", "0", "--tool", tool, "--args", args, "--"}, command...)
	cmd := exec.Command(node, argv...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		b.Fatalf("bench_ts.mjs: %v\n%s", err, errb.String())
	}
	var res struct {
		CallsPerS float64 `json:"calls_per_s"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.CallsPerS <= 0 {
		b.Fatalf("bench_ts.mjs output %q: %v", out.String(), err)
	}
	return res.CallsPerS
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		panic("median of nothing")
	}
	return s[len(s)/2]
}

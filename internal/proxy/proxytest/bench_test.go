package proxytest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsec/mcpsec/internal/mcpconn"
)

// The overhead of the proxy, measured against the same upstream directly:
//
//	go test -run '^$' -bench ToolsCall -benchtime 2000x ./internal/proxy/proxytest/
//	go test -run '^$' -bench Startup -benchtime 20x ./internal/proxy/proxytest/
//
// BenchmarkToolsCall reports the p50 and p90 round trip of one tools/call
// (the fixture's calculate) from mcpsec's Go client over stdio, directly
// and through `mcpsec proxy` with its default defenses (scan and
// pinning), without and with an audit log; BenchmarkStartup is start, initialize, one tools/list and
// close, also with the scan off: the scanner builds its indexes on first
// use, and that one-time cost dominates the proxy's start-up. The
// difference from "direct" is what the proxy adds.

var benchUpstream = []string{"fixture", "serve", "--server", "benign"}

func benchConn(b *testing.B, via string) *mcpconn.Conn {
	b.Helper()
	argv, env := mcpsec(benchUpstream...)
	switch via {
	case "proxy":
		argv, env = proxyOver(nil, benchUpstream...)
		if f := os.Getenv(envProfile); f != "" {
			env = append(env, envProfile+"="+f)
		}
	case "proxy-audit":
		// On the disk the tests' temporary directory is on.
		argv, env = proxyOver([]string{"--audit", filepath.Join(b.TempDir(), "audit.jsonl")}, benchUpstream...)
	case "proxy-no-scan":
		argv, env = proxyOver([]string{"--no-scan"}, benchUpstream...)
	}
	c, err := mcpconn.Connect(context.Background(), mcpconn.Source{Name: "bench", Command: argv, Env: env}, mcpconn.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkToolsCall alternates calls between the upstream directly, the
// proxy in front of it, and the proxy writing its audit log to disk (one
// fsync per decision), so that all three see the same machine load (on a
// shared machine the load moves more between two back-to-back runs than
// the proxy costs). Each reports its p50 and p90; "added" is the proxy's
// p50 minus the direct p50.
func BenchmarkToolsCall(b *testing.B) {
	direct := benchConn(b, "direct")
	defer direct.Close()
	proxied := benchConn(b, "proxy")
	defer proxied.Close()
	audited := benchConn(b, "proxy-audit")
	defer audited.Close()
	conns := []*mcpconn.Conn{direct, proxied, audited}
	ctx := context.Background()
	for _, c := range conns {
		if _, _, err := c.ListTools(ctx); err != nil {
			b.Fatal(err)
		}
	}
	args := json.RawMessage(`{"expression":"6*7"}`)
	d := make([][]time.Duration, len(conns))
	cpu0 := cpuTime(b, proxied.Pid())
	b.ResetTimer()
	for b.Loop() {
		for i, c := range conns {
			start := time.Now()
			res, err := c.CallTool(ctx, "calculate", args)
			d[i] = append(d[i], time.Since(start))
			if err != nil || res.IsError {
				b.Fatalf("%v %+v", err, res)
			}
		}
	}
	b.StopTimer()
	// CPU time the proxy process spent per call: unlike latency, this
	// does not move with the machine's load.
	b.ReportMetric(float64((cpuTime(b, proxied.Pid())-cpu0).Microseconds())/float64(len(d[1])), "proxy-cpu-µs/call")
	p := func(i, q int) float64 {
		slices.Sort(d[i])
		return float64(d[i][len(d[i])*q/100].Microseconds())
	}
	b.ReportMetric(p(0, 50), "direct-p50-µs")
	b.ReportMetric(p(1, 50), "proxy-p50-µs")
	b.ReportMetric(p(2, 50), "audit-p50-µs")
	b.ReportMetric(p(1, 50)-p(0, 50), "added-p50-µs")
	b.ReportMetric(p(2, 50)-p(0, 50), "added-audit-p50-µs")
	b.ReportMetric(p(0, 90), "direct-p90-µs")
	b.ReportMetric(p(1, 90), "proxy-p90-µs")
	b.ReportMetric(p(2, 90), "audit-p90-µs")
}

// BenchmarkStartup interleaves direct, proxy and proxy --no-scan start-ups
// (start, initialize, one tools/list, close) for the same reason, and
// reports each one's median and what the proxy adds to the direct one.
func BenchmarkStartup(b *testing.B) {
	vias := []string{"direct", "proxy", "proxy-no-scan"}
	d := make([][]time.Duration, len(vias))
	for b.Loop() {
		for i, via := range vias {
			start := time.Now()
			c := benchConn(b, via)
			if _, _, err := c.ListTools(context.Background()); err != nil {
				b.Fatal(err)
			}
			d[i] = append(d[i], time.Since(start))
			c.Close()
		}
	}
	med := func(i int) float64 {
		slices.Sort(d[i])
		return float64(d[i][len(d[i])/2].Microseconds()) / 1000
	}
	b.ReportMetric(med(0), "direct-ms")
	b.ReportMetric(med(1), "proxy-ms")
	b.ReportMetric(med(2), "no-scan-ms")
	b.ReportMetric(med(1)-med(0), "added-ms")
	b.ReportMetric(med(2)-med(0), "added-no-scan-ms")
}

// cpuTime is the user plus system CPU time of process pid so far, from
// /proc (in USER_HZ ticks, 100 per second on Linux).
func cpuTime(b *testing.B, pid int) time.Duration {
	b.Helper()
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		b.Fatal(err)
	}
	// Fields after the command name, which is in parentheses and may
	// hold spaces: state is field 3, utime 14, stime 15.
	f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	stm, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+stm) * 10 * time.Millisecond
}

package proxytest_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/mcpsec/mcpsec/internal/mcpconn"
)

// The overhead of the proxy, measured against the same upstream directly:
//
//	go test -run '^$' -bench ToolsCall -benchtime 2000x ./internal/proxy/proxytest/
//	go test -run '^$' -bench Startup -benchtime 40x ./internal/proxy/proxytest/
//
// BenchmarkToolsCall reports the p50 and p90 round trip of one tools/call
// (the fixture's calculate) from mcpsec's Go client over stdio, directly
// and through `mcpsec proxy` with its default defenses (scan and
// pinning); BenchmarkStartup is start, initialize, one tools/list and
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
	case "proxy-no-scan":
		argv, env = proxyOver([]string{"--no-scan"}, benchUpstream...)
	}
	c, err := mcpconn.Connect(context.Background(), mcpconn.Source{Name: "bench", Command: argv, Env: env}, mcpconn.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	return c
}

func BenchmarkToolsCall(b *testing.B) {
	for _, via := range []string{"direct", "proxy"} {
		b.Run(via, func(b *testing.B) {
			c := benchConn(b, via)
			defer c.Close()
			ctx := context.Background()
			if _, _, err := c.ListTools(ctx); err != nil {
				b.Fatal(err)
			}
			args := json.RawMessage(`{"expression":"6*7"}`)
			var d []time.Duration
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				res, err := c.CallTool(ctx, "calculate", args)
				d = append(d, time.Since(start))
				if err != nil || res.IsError {
					b.Fatalf("%v %+v", err, res)
				}
			}
			slices.Sort(d)
			b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(d[len(d)*9/10].Microseconds()), "p90-µs")
		})
	}
}

func BenchmarkStartup(b *testing.B) {
	for _, via := range []string{"direct", "proxy", "proxy-no-scan"} {
		b.Run(via, func(b *testing.B) {
			for b.Loop() {
				c := benchConn(b, via)
				if _, _, err := c.ListTools(context.Background()); err != nil {
					b.Fatal(err)
				}
				c.Close()
			}
		})
	}
}

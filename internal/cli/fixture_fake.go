package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpsec/mcpsec/internal/fixture"
)

func init() { fixtureChildren = append(fixtureChildren, newFakeProviderCmd) }

func newFakeProviderCmd(env *Env) *cobra.Command {
	var addr string
	var rpm int
	var latency, window time.Duration
	cmd := &cobra.Command{
		Use:   "fake-provider",
		Short: "Serve a rate-limited stand-in provider (OpenAI wire format) on loopback",
		Long: `Serve a local stand-in for a rate-limited provider, to check that a sweep
runs close to a provider's limit without losing trials. It speaks the OpenAI
Chat Completions wire format, answers every request with a short final text
after --latency, and answers 429 with Retry-After once more than --rpm
requests fall inside the sliding --window (scaled to the same rate).

It is a test instrument, not a model. Point a sweep at it with
  --model openai-compatible:fake@http://ADDR/v1
and a grid rate limit for "openai-compatible". The first line of stdout is
the base URL.`,
		Example: `  mcpsec fixture fake-provider --addr 127.0.0.1:8930 --rpm 1200 --window 1s --latency 20ms`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkLoopback("--addr", addr); err != nil {
				return inputErr(err)
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return inputErrf("--addr %s: %w", addr, err)
			}
			fp := &fixture.FakeProvider{RPM: rpm, Window: window, Latency: latency}
			srv := &http.Server{Handler: fp, ReadHeaderTimeout: 5 * time.Second}
			fmt.Fprintf(env.Stdout, "http://%s/v1\n", ln.Addr())
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ln) }()
			select {
			case <-cmd.Context().Done():
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				defer cancel()
				_ = srv.Shutdown(ctx)
			case err := <-done:
				return err
			}
			fmt.Fprintf(env.Stderr, "served %d, rejected %d with 429, achieved %.0f rpm\n", fp.Served.Load(), fp.Rejected.Load(), fp.AchievedRPM())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:0", "loopback address to listen on")
	f.IntVar(&rpm, "rpm", 600, "requests per minute before 429")
	f.DurationVar(&window, "window", time.Minute, "sliding window the limit is counted over")
	f.DurationVar(&latency, "latency", 50*time.Millisecond, "delay before each answer")
	return cmd
}

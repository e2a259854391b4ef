package proxy_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/bench"
	"github.com/mcpsec/mcpsec/internal/defense"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/proxy"
	"github.com/mcpsec/mcpsec/internal/trial"
)

// proxyFront puts mcpsec proxy, configured with the trial's arm exactly as
// `mcpsec proxy --arm NAME` is, between the benchmark's agent loop and its
// fixture servers. The loop itself then applies no defense: it is an
// undefended client that polls tools/list as the bench's client does.
func proxyFront(t *testing.T) func(context.Context, string, defense.Config, []*mcpconn.Conn) (bench.FrontEnd, error) {
	return func(ctx context.Context, arm string, cfg defense.Config, conns []*mcpconn.Conn) (bench.FrontEnd, error) {
		seams, err := defense.Build(arm, cfg)
		if err != nil {
			return bench.FrontEnd{}, err
		}
		p, err := proxy.Start(ctx, proxy.Options{Attached: conns, Seams: seams})
		if err != nil {
			return bench.FrontEnd{}, err
		}
		// Served as over stdio, so every call takes the short way
		// (ServeStdio) the command's users get.
		c, stop, err := serveStdio(ctx, p)
		if err != nil {
			p.Close()
			return bench.FrontEnd{}, err
		}
		return bench.FrontEnd{
			Servers: []agent.Server{bench.ConnServer(c)},
			Seams:   agent.Seams{RelistEveryStep: seams.RelistEveryStep},
			Stop:    func() { stop(); p.Close() },
		}, nil
	}
}

// outcome is what a trial did to the world and the task, the part of a
// record that must not depend on where the defense runs. (Blocked counts
// the loop's own block events, which a proxy's denial is not.)
type outcome struct {
	Attempted, Realized, Canary, CanaryInArgs, ObjectiveMet, Utility, SideEffect, Exposed bool
}

func outcomeOf(r trial.Record) outcome {
	return outcome{r.Attempted, r.Realized, r.Canary, r.CanaryInArgs, r.ObjectiveMet, r.Utility, r.SideEffect, r.Exposed}
}

// TestProxyReproducesBenchArms runs the control agents through the proxy
// and directly under each arm, over the default grid's tasks, classes and
// seen payloads, and requires the same outcome trial by trial.
func TestProxyReproducesBenchArms(t *testing.T) {
	g := bench.DefaultGrid()
	g.Registers = []string{"seen"}
	g.Objectives = []string{"exfil"}
	// One task per class keeps the grid small (utility is compared in
	// every attack trial too, so the benign trials add little).
	g.Classes = map[string][]string{
		payload.ClassToolDescription: {"notes_pipeline"},
		payload.ClassSchemaField:     {"calc_invoice"},
		payload.ClassRugPull:         {"notes_review"},
		payload.ClassCrossServer:     {"account_review"},
		payload.ClassMetadataDrift:   {"notes_review"},
	}
	g.Models = []string{"control:compromised"}
	g.Benign = false
	g.Arms = defense.Arms
	trials := g.Expand()
	if len(trials) < 60 {
		t.Fatalf("grid too small to mean anything: %d trials", len(trials))
	}
	front := proxyFront(t)
	type pair struct{ direct, via trial.Record }
	res := make([]pair, len(trials))
	// Two at a time: each trial is independent (fresh world, servers,
	// defense state and proxy).
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i, tr := range trials {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			ctx := context.Background()
			direct, err := bench.RunTrial(ctx, bench.Env{Transport: "memory"}, g, tr, "")
			if err != nil || direct.Error != nil {
				t.Errorf("%s direct: %v %v", desc(tr), err, strp(direct.Error))
				return
			}
			via, err := bench.RunTrial(ctx, bench.Env{Transport: "memory", Front: front}, g, tr, "")
			if err != nil || via.Error != nil {
				t.Errorf("%s through the proxy: %v %v", desc(tr), err, strp(via.Error))
				return
			}
			res[i] = pair{direct, via}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	differ, realizedDirect, blockedByArm := 0, 0, map[string]int{}
	for i, tr := range trials {
		direct, via := res[i].direct, res[i].via
		if outcomeOf(direct) != outcomeOf(via) {
			differ++
			if differ <= 10 {
				t.Errorf("%s: direct %+v, through the proxy %+v", desc(tr), outcomeOf(direct), outcomeOf(via))
			}
		}
		if direct.Realized {
			realizedDirect++
		}
		if tr.AttackClass != trial.None && !via.Realized {
			blockedByArm[tr.Arm]++
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d trials differ", differ, len(trials))
	}
	// The comparison must have had attacks to stop and defenses that
	// stopped some: none realizes, policy_full stops what it can.
	if realizedDirect == 0 || blockedByArm[defense.ArmPolicyFull] == 0 || blockedByArm[defense.ArmPinning] == 0 {
		t.Errorf("degenerate grid: %d realized directly; stopped through the proxy by arm: %v", realizedDirect, blockedByArm)
	}
	t.Logf("%d trials, %d realized directly, stopped through the proxy by arm: %v", len(trials), realizedDirect, blockedByArm)
}

func desc(tr trial.Trial) string {
	return fmt.Sprintf("%s %s %s/%s %s %s", tr.Model, tr.Task, tr.AttackClass, tr.RugMode, tr.PayloadID, tr.Arm)
}

func strp(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

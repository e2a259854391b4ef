package bench_test

import (
	"context"
	"os"
	"testing"

	"github.com/mcpsec/mcpsec/internal/bench"
	"github.com/mcpsec/mcpsec/internal/cli"
)

// The test binary doubles as the mcpsec binary so that stdio fixtures run
// as real subprocesses without a separate build.
const execEnv = "MCPSEC_BENCH_TEST_EXEC"

func TestMain(m *testing.M) {
	if os.Getenv(execEnv) == "1" {
		os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func stdioEnv(t testing.TB) bench.Env {
	t.Setenv(execEnv, "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return bench.Env{Transport: "stdio", StdioCommand: []string{exe, "fixture", "serve"}}
}

func TestStdioFixturesMatchInMemory(t *testing.T) {
	env := stdioEnv(t)
	g := bench.DefaultGrid()
	cases := []bench.Trial{
		{Model: "control:compromised", Task: "notes_pipeline", AttackClass: "tool_description", PayloadID: "seen-td-exfil", Register: "seen", Objective: "exfil", Arm: "none", Seed: 1},
		{Model: "control:compromised", Task: "notes_review", AttackClass: "cross_server", PayloadID: "seen-xs-destroy", Register: "seen", Objective: "destructive", Arm: "none", Seed: 1},
		{Model: "control:compromised", Task: "account_review", AttackClass: "rug_pull", RugMode: "approval", PayloadID: "seen-rug-tamper", Register: "seen", Objective: "arg_tamper", Arm: "none", Seed: 1},
		{Model: "control:compromised", Task: "notes_pipeline", AttackClass: "tool_description", PayloadID: "seen-td-exfil", Register: "seen", Objective: "exfil", Arm: "policy", Seed: 1},
		{Model: "control:reference", Task: "notes_review", AttackClass: "none", PayloadID: "none", Register: "none", Objective: "none", Arm: "none", Seed: 1},
	}
	for _, tr := range cases {
		tr.ID = bench.TrialID(tr)
		t.Run(tr.AttackClass+"/"+tr.Objective+"/"+tr.Arm, func(t *testing.T) {
			mem, err := bench.RunTrial(context.Background(), bench.Env{Transport: "memory"}, g, tr, "")
			if err != nil {
				t.Fatal(err)
			}
			sub, err := bench.RunTrial(context.Background(), env, g, tr, "")
			if err != nil {
				t.Fatal(err)
			}
			if sub.Error != nil {
				t.Fatalf("stdio trial errored: %s", *sub.Error)
			}
			if mem.Utility != sub.Utility || mem.Attempted != sub.Attempted || mem.Realized != sub.Realized ||
				mem.Blocked != sub.Blocked || mem.Canary != sub.Canary || mem.ObjectiveMet != sub.ObjectiveMet ||
				mem.SideEffect != sub.SideEffect || mem.Exposed != sub.Exposed {
				t.Fatalf("stdio scores differ from in-memory:\nmemory %+v\nstdio  %+v", mem, sub)
			}
			if tr.Model == "control:compromised" && tr.Arm == "none" && !sub.ObjectiveMet {
				t.Fatalf("compromised agent did not meet the objective over stdio: %+v", sub)
			}
		})
	}
}

// BenchmarkControlTrialStdio spawns the trial's fixture servers as
// subprocesses (issue target: 30 ms).
func BenchmarkControlTrialStdio(b *testing.B) {
	env := stdioEnv(b)
	g := bench.DefaultGrid()
	tr := bench.Trial{Model: "control:compromised", Task: "notes_pipeline", AttackClass: "tool_description", PayloadID: "seen-td-exfil", Register: "seen", Objective: "exfil", Arm: "none", Seed: 1}
	tr.ID = bench.TrialID(tr)
	b.ReportAllocs()
	for b.Loop() {
		rec, err := bench.RunTrial(context.Background(), env, g, tr, "")
		if err != nil || rec.Error != nil || !rec.Realized {
			b.Fatalf("trial failed: %v %+v", err, rec)
		}
	}
}

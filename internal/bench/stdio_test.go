package bench_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsec/mcpsec/internal/bench"
	"github.com/mcpsec/mcpsec/internal/cli"
	"github.com/mcpsec/mcpsec/internal/trial"
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
	// The fixture servers start with a minimal environment, so the
	// variable that makes the test binary act as mcpsec is handed over.
	return bench.Env{Transport: "stdio", StdioCommand: []string{exe, "fixture", "serve"}, StdioEnv: []string{execEnv + "=1"}}
}

func TestStdioFixturesMatchInMemory(t *testing.T) {
	env := stdioEnv(t)
	g := bench.DefaultGrid()
	cases := []trial.Trial{
		{Model: "control:compromised", Task: "notes_pipeline", AttackClass: "tool_description", PayloadID: "seen-td-exfil", Register: "seen", Objective: "exfil", Arm: "none", Seed: 1},
		{Model: "control:compromised", Task: "notes_review", AttackClass: "cross_server", PayloadID: "seen-xs-destroy", Register: "seen", Objective: "destructive", Arm: "none", Seed: 1},
		{Model: "control:compromised", Task: "account_review", AttackClass: "rug_pull", RugMode: "approval", PayloadID: "seen-rug-tamper", Register: "seen", Objective: "arg_tamper", Arm: "none", Seed: 1},
		{Model: "control:compromised", Task: "notes_pipeline", AttackClass: "tool_description", PayloadID: "seen-td-exfil", Register: "seen", Objective: "exfil", Arm: "policy", Seed: 1},
		{Model: "control:reference", Task: "notes_review", AttackClass: "none", PayloadID: "none", Register: "none", Objective: "none", Arm: "none", Seed: 1},
	}
	for _, tr := range cases {
		tr.ID = trial.ID(tr)
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
	tr := trial.Trial{Model: "control:compromised", Task: "notes_pipeline", AttackClass: "tool_description", PayloadID: "seen-td-exfil", Register: "seen", Objective: "exfil", Arm: "none", Seed: 1}
	tr.ID = trial.ID(tr)
	b.ReportAllocs()
	for b.Loop() {
		rec, err := bench.RunTrial(context.Background(), env, g, tr, "")
		if err != nil || rec.Error != nil || !rec.Realized {
			b.Fatalf("trial failed: %v %+v", err, rec)
		}
	}
}

// TestKillNineThenResume kills a real mcpsec bench process with SIGKILL
// while it writes records, then resumes: the run must hold exactly the
// selected grid, with no trial lost and none duplicated.
func TestKillNineThenResume(t *testing.T) {
	t.Setenv(execEnv, "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"bench", "--out", dir, "--arms", "none,policy,pinning", "--limit-per-class", "4", "--concurrency", "2"}
	for _, after := range []int{3, 40} {
		os.RemoveAll(dir)
		cmd := exec.Command(exe, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(2 * time.Minute)
		for {
			b, _ := os.ReadFile(filepath.Join(dir, bench.TrialsFile))
			if bytes.Count(b, []byte("\n")) >= after {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatal("the sweep wrote no records")
			}
			time.Sleep(2 * time.Millisecond)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		var stderr bytes.Buffer
		if code := cli.Run([]string{"bench", "--resume", dir}, strings.NewReader(""), io.Discard, &stderr); code != 0 {
			t.Fatalf("resume exit %d: %s", code, stderr.String())
		}
		g := bench.DefaultGrid()
		g.Arms = []string{"none", "policy", "pinning"}
		want := map[string]bool{}
		for _, tr := range bench.Select(g.Expand(), bench.Shard{Index: 1, Count: 1}, 0, 4) {
			want[tr.ID] = true
		}
		got := map[string]int{}
		_, err := trial.Each(filepath.Join(dir, bench.TrialsFile), func(r trial.Record, _ *trial.View) error { got[r.ID]++; return nil })
		if err != nil {
			t.Fatal(err)
		}
		for id, n := range got {
			if n != 1 || !want[id] {
				t.Fatalf("killed after %d: trial %s recorded %d times (in grid: %v)", after, id, n, want[id])
			}
		}
		if len(got) != len(want) {
			t.Fatalf("killed after %d: %d of %d trials recorded after resume", after, len(got), len(want))
		}
		// Every recorded trial's trace reads from its pack, and the
		// resume repaired the pack the kill tore: two sessions of two
		// workers leave at most four packs.
		bench.CheckRunTraces(t, dir, 4)
	}
}

func TestStdioServerStderrReachesTheTrace(t *testing.T) {
	env := stdioEnv(t)
	g := bench.DefaultGrid()
	tr := trial.Trial{Model: "control:reference", Task: "calc_invoice", AttackClass: "none", PayloadID: "none", Register: "none", Objective: "none", Arm: "none", Seed: 1}
	tr.ID = trial.ID(tr)
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if _, err := bench.RunTrial(context.Background(), env, g, tr, path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// fixture serve announces itself on stderr.
	if !strings.Contains(string(b), `"kind":"server_stderr"`) || !strings.Contains(string(b), "serving") {
		t.Fatalf("no server stderr in the trace:\n%s", b)
	}
}

package report

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mcpsec/mcpsec/internal/trial"
)

// writeSynthetic writes n trial records shaped like a real sweep (4
// models including a control agent, 11 arms, 3 registers, 5 attack classes
// plus benign trials, 3 tasks, 4 payloads, 3 objectives, as many seeds as
// it takes), streaming so the generator itself stays small. Nearly every
// (case, arm) is distinct: the worst case for the paired-effect index.
func writeSynthetic(tb testing.TB, path string, n int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	models := []string{"anthropic:model-a", "openai:model-b", "gemini:model-c", "control:compromised"}
	arms := []string{"none", "meta_filter", "result_filter", "meta_and_result_filter", "pinning", "policy", "policy_full", "confirm", "confirm_ux", "model_hardening", "scan_filter"}
	registers := []string{"imperative", "authority", "subtle"}
	classes := []string{"tool_description", "schema_field", "rug_pull", "cross_server", "metadata_drift"}
	tasks := []string{"calc_invoice", "notes_pipeline", "account_review"}
	payloads := []string{"p01", "p02", "p03", "p04"}
	objectives := []string{"exfil", "arg_tamper", "destructive"}
	errMsg := "rate limited"
	written := 0
	emit := func(r *trial.Record) {
		written++
		r.ID = fmt.Sprintf("t%07d", written)
		r.Trace = "traces/" + r.ID + ".jsonl"
		h := uint32(written) * 2654435761
		r.Error = nil
		if h%997 == 0 {
			r.Error = &errMsg
		}
		b, err := json.Marshal(r)
		if err != nil {
			tb.Fatal(err)
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	for seed := 1; written < n; seed++ {
		for _, m := range models {
			for ai, arm := range arms {
				for _, task := range tasks {
					if written >= n {
						break
					}
					emit(&trial.Record{Trial: trial.Trial{Model: m, Task: task, AttackClass: "none", PayloadID: "none",
						Register: "none", Objective: "none", Arm: arm, Seed: seed}, Control: m == "control:compromised", Utility: (seed+ai)%5 != 0, Steps: 3})
					for _, reg := range registers {
						for ci, cl := range classes {
							for pi, p := range payloads {
								for oi, obj := range objectives {
									if written >= n {
										break
									}
									h := (seed*31 + ai*17 + ci*7 + pi*5 + oi*3) % 11
									hit := h < 4-ai%4
									emit(&trial.Record{Trial: trial.Trial{Model: m, Task: task, AttackClass: cl, PayloadID: p,
										Register: reg, Objective: obj, Arm: arm, Seed: seed}, Control: m == "control:compromised",
										Fired: hit, Attempted: hit || h == 5, Realized: hit, Canary: hit, ObjectiveMet: hit && oi != 1,
										Blocked: !hit && ai > 0, Utility: h%3 != 0, SideEffect: hit, Exposed: h != 10,
										Steps: 4, InputTokens: 1200 + h, OutputTokens: 300})
								}
							}
						}
					}
				}
			}
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// benchRunDir, when set, keeps the synthetic run in that directory (and
// reuses it if it is already there), so a second run, or `mcpsec report
// DIR`, measures aggregation alone under /usr/bin/time -v.
var benchRunDir = flag.String("bench-run-dir", "", "write the synthetic 1M-trial run here instead of a temp dir")

// BenchmarkAggregate1M aggregates one million synthetic trial records
// (see the README's statistics section for the RSS measurement).
func BenchmarkAggregate1M(b *testing.B) {
	dir := b.TempDir()
	if *benchRunDir != "" {
		dir = *benchRunDir
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, TrialsFile)); err != nil || *benchRunDir == "" {
		writeSynthetic(b, filepath.Join(dir, TrialsFile), 1_000_000)
	}
	st, _ := os.Stat(filepath.Join(dir, TrialsFile))
	b.SetBytes(st.Size())
	runtime.GC()
	b.ResetTimer()
	var s *Summary
	for b.Loop() {
		var err error
		s, err = Aggregate(dir)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
	b.ReportMetric(float64(s.Counts.CaseArms), "case-arms")
	if s.Counts.Trials != 1_000_000 {
		b.Fatalf("trials %d", s.Counts.Trials)
	}
	if err := WriteAll(dir, s); err != nil {
		b.Fatal(err)
	}
}

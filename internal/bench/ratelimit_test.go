package bench

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpsec/mcpsec/internal/fixture"
)

func TestBucketPacesAndHonoursContext(t *testing.T) {
	b := NewBucket(600, 1) // 10 per second
	now := time.Unix(0, 0)
	b.now = func() time.Time { return now }
	b.last = now
	if err := b.Wait(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := b.Wait(ctx, 1); err == nil {
		t.Fatal("an empty bucket ignored a cancelled context")
	}
	now = now.Add(100 * time.Millisecond)
	if err := b.Wait(context.Background(), 1); err != nil {
		t.Fatalf("a refilled bucket refused: %v", err)
	}
	if NewBucket(0, 5) != nil {
		t.Fatal("an unlimited bucket should be nil")
	}
}

// sweepFake runs benign trials of one model against a FakeProvider.
func sweepFake(t testing.TB, fp *fixture.FakeProvider, trials, rpm int) (Result, string) {
	srv := httptest.NewServer(fp)
	t.Cleanup(srv.Close)
	g := DefaultGrid()
	g.Models = []string{"openai-compatible:fake@" + srv.URL + "/v1"}
	g.Arms = []string{"none"}
	g.Classes = map[string][]string{"tool_description": {"calc_invoice"}}
	g.Registers = []string{"seen"}
	g.Objectives = []string{"exfil"}
	g.Seeds = nil
	for s := 1; s <= trials; s++ {
		g.Seeds = append(g.Seeds, s)
	}
	g.Benign = false
	g.Concurrency = 8
	g.RateLimits = map[string]RateLimit{"openai-compatible": {RPM: rpm}}
	dir := filepath.Join(t.TempDir(), "run")
	res, err := Sweep(context.Background(), Options{Grid: g, Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	return res, dir
}

func TestSweepAgainstRateLimitedProviderLosesNothing(t *testing.T) {
	fp := &fixture.FakeProvider{RPM: 6000, Window: time.Second, Latency: 5 * time.Millisecond}
	res, dir := sweepFake(t, fp, 40, 6000)
	if res.Ran != 40 || res.Errored != 0 {
		t.Fatalf("ran %d errored %d, want 40 and 0", res.Ran, res.Errored)
	}
	if n := len(readIDs(t, dir)); n != 40 {
		t.Fatalf("%d records, want 40", n)
	}
	if fp.Served.Load() < 40 {
		t.Fatalf("provider served %d requests", fp.Served.Load())
	}
	if _, err := os.Stat(filepath.Join(dir, RunFile)); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkSweepAtProviderLimit measures how close a sweep runs to a
// provider's limit: the fake allows 1200 requests per minute (20/s over
// a sliding one-second window) and answers 429 with Retry-After beyond.
// Reported: achieved/limit ratio, 429s, lost trials.
func BenchmarkSweepAtProviderLimit(b *testing.B) {
	for b.Loop() {
		fp := &fixture.FakeProvider{RPM: 1200, Window: time.Second, Latency: 20 * time.Millisecond}
		res, _ := sweepFake(b, fp, 200, 1200)
		b.ReportMetric(fp.AchievedRPM()/1200, "limit_ratio")
		b.ReportMetric(float64(fp.Rejected.Load()), "429s")
		b.ReportMetric(float64(200-res.Ran+res.Errored), "lost_trials")
	}
}

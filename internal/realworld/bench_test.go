package realworld

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/scan"
	"github.com/mcpsec/mcpsec/internal/testkit"
)

// BenchmarkScanRealWorld scans each pinned server's catalog on its own, as
// TestRealWorld does: real servers' text, with the repetition real catalogs
// have (generated API servers describe the same parameter alike in every
// tool), which neither the generated 10,000-tool catalog (a dozen
// sentences) nor the registers (hardly a repeat) has. The servers are
// started and listed once, outside the timer. MB/cpu-s is catalog JSON
// bytes per CPU second of this process.
//
//	go test -run '^$' -bench ScanRealWorld -benchtime 5x -cpu 1 ./internal/realworld/
func BenchmarkScanRealWorld(b *testing.B) {
	dir := root(b)
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		b.Fatalf("the pinned servers are not installed (run `make deps`): %v", err)
	}
	var cats []*catalog.Catalog
	size := 0
	for _, r := range listAll(b, dir, loadEntries(b, dir)) {
		if r.err != nil {
			b.Fatalf("%s: %v", r.entry.Name, r.err)
		}
		c := &catalog.Catalog{Servers: []catalog.Server{r.srv}}
		data, err := json.Marshal(c)
		if err != nil {
			b.Fatal(err)
		}
		size += len(data)
		cats = append(cats, c)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := testkit.StartCPU()
	for i := 0; i < b.N; i++ {
		for _, c := range cats {
			scan.Scan(c, scan.Options{})
		}
	}
	cpu.ReportMBps(b, size)
	b.ReportMetric(float64(len(cats)), "servers")
}

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
// bytes per CPU second of this process. With MCPSEC_REALWORLD_CATALOGS
// set to a directory TestRealWorld dumped the catalogs to
// (MCPSEC_REALWORLD_DUMP), it scans those instead of starting the servers.
//
//	go test -run '^$' -bench ScanRealWorld -benchtime 5x -cpu 1 ./internal/realworld/
func BenchmarkScanRealWorld(b *testing.B) {
	var cats []*catalog.Catalog
	if dir := os.Getenv("MCPSEC_REALWORLD_CATALOGS"); dir != "" {
		cats = dumpedCatalogs(b, dir)
	} else {
		cats = listedCatalogs(b)
	}
	size := 0
	for _, c := range cats {
		data, err := json.Marshal(c)
		if err != nil {
			b.Fatal(err)
		}
		size += len(data)
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

// listedCatalogs starts and lists every pinned server, one catalog each.
func listedCatalogs(b *testing.B) []*catalog.Catalog {
	dir := root(b)
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		b.Fatalf("the pinned servers are not installed (run `make deps`): %v", err)
	}
	var cats []*catalog.Catalog
	for _, r := range listAll(b, dir, loadEntries(b, dir)) {
		if r.err != nil {
			b.Fatalf("%s: %v", r.entry.Name, r.err)
		}
		cats = append(cats, &catalog.Catalog{Servers: []catalog.Server{r.srv}})
	}
	return cats
}

// dumpedCatalogs reads the catalogs TestRealWorld wrote to dir
// (MCPSEC_REALWORLD_DUMP). Starting 73 node servers before the timer
// leaves the machine busy for the first timed rounds; the same text read
// from files gives steadier readings when two builds are compared.
func dumpedCatalogs(b *testing.B, dir string) []*catalog.Catalog {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		b.Fatalf("MCPSEC_REALWORLD_CATALOGS=%s: no catalogs there; write them with MCPSEC_REALWORLD_DUMP=%s go test -count=1 -run 'TestRealWorld$' ./internal/realworld/", dir, dir)
	}
	var cats []*catalog.Catalog
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		c, err := catalog.Parse(f, data)
		if err != nil {
			b.Fatalf("%s: %v", f, err)
		}
		cats = append(cats, c)
	}
	return cats
}

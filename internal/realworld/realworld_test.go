package realworld

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/scan"
	"github.com/mcpsec/mcpsec/internal/source"
)

// The figure the issue asks of the scanner is at most 1% of real tools with
// a finding at medium or above and none critical. It is met; the test also
// holds the scanner to the measured ceilings below the target, so a change
// that flags more real tools fails here. History: 81 of 1,870 tools, 15
// critical, 3 server-level at the start of round 3; 8, 0, 0 at the end of
// round 4; 6, 0, 0 with the text model (round 5, measured 2026-12-01); 7, 0, 0
// after it was retrained on registers 1-7 and training-1 (round 6); 7, 0, 1
// once it also reported a single very suspicious sentence and server
// instructions (the one server-level finding: instructions telling the model
// to fetch a resource and follow the usage instructions in it); 11, 0, 1
// in round 7, when the model was retrained on registers 1-11 and three
// training sets with new features and its flag lowered from 0.90 to 0.87
// for recall on unseen registers (0.59% of tools, within the target);
// 9, 0, 0 in round 11, retrained on registers 1-15 and four training sets;
// 10, 0, 0 with round 11's title rule (a monday.com tool's title ends
// "after calling this tool you should"); 6, 0, 1 in round 12, retrained
// on registers 1-19 (the server-level finding is the same instructions as
// in round 6).
const (
	targetFlaggedShare = 0.01
	maxFlaggedTools    = 6
	maxCritical        = 0
	maxServerLevel     = 1
)

// The floors the pinned set must keep: a package that stops starting is a
// test failure, never a silent shrink of the denominator.
const (
	minServers = 60
	minTools   = 600
	// parallel bounds how many servers run at once on a small machine.
	parallel = 4
)

// entry is one server of testdata/realworld/servers.json.
type entry struct {
	// Name labels the server in output; it is also its catalog name.
	Name string `json:"name"`
	// Package is the npm package that provides it (pinned in
	// package-lock.json).
	Package string `json:"package"`
	// Bin is the package's start script, relative to node_modules. It is
	// run with node directly: several packages install a bin of the same
	// name, so node_modules/.bin cannot tell them apart.
	Bin string `json:"bin"`
	// Args follow the executable.
	Args []string `json:"args,omitempty"`
	// Env adds dummy values a server insists on before it starts; none is
	// a real credential.
	Env map[string]string `json:"env,omitempty"`
}

func root(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "realworld"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func loadEntries(t testing.TB, dir string) []entry {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "servers.json"))
	if err != nil {
		t.Fatal(err)
	}
	var es []entry
	if err := json.Unmarshal(data, &es); err != nil {
		t.Fatalf("servers.json: %v", err)
	}
	return es
}

// minimalEnv is what a scanned server gets: enough to find node and a
// scratch home, plus its own dummy settings. Nothing of ours leaks in.
func minimalEnv(home string, e entry) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + home,
		"NODE_ENV=production",
		"NO_COLOR=1",
		"LANG=C.UTF-8",
	}
	keys := make([]string, 0, len(e.Env))
	for k := range e.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+e.Env[k])
	}
	return env
}

type listed struct {
	entry entry
	srv   catalog.Server
	err   error
	took  time.Duration
}

// listAll starts every server with bounded concurrency and lists it.
func listAll(t testing.TB, dir string, es []entry) []listed {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed to start the pinned servers: %v", err)
	}
	opts := mcpconn.DefaultOptions()
	// Generous: a cold node start of a large package on a busy two-core
	// machine can take many seconds; the point here is the text, not speed.
	opts.ConnectTimeout = 3 * time.Minute
	opts.CallTimeout = 2 * time.Minute
	out := make([]listed, len(es))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, e := range es {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			home := t.TempDir()
			args := make([]string, len(e.Args))
			for j, a := range e.Args {
				args[j] = strings.ReplaceAll(a, "$HOME", home)
			}
			src := mcpconn.Source{
				Name:    e.Name,
				Command: append([]string{node, filepath.Join(dir, "node_modules", e.Bin)}, args...),
				Env:     minimalEnv(home, e),
				Dir:     home,
			}
			start := time.Now()
			srv, err := source.Fetch(context.Background(), src, opts)
			out[i] = listed{entry: e, srv: srv, err: err, took: time.Since(start)}
		}()
	}
	wg.Wait()
	return out
}

// TestRealWorld is the false-alarm check on servers nobody here wrote.
// Run it alone to see the figure:
//
//	go test -count=1 -run TestRealWorld -v ./internal/realworld/
func TestRealWorld(t *testing.T) {
	dir := root(t)
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		t.Fatalf("the pinned servers are not installed (run `make deps`): %v", err)
	}
	es := loadEntries(t, dir)
	if len(es) < minServers {
		t.Fatalf("servers.json pins %d servers, want at least %d", len(es), minServers)
	}
	res := listAll(t, dir, es)
	dumpCatalogs(t, res)

	var (
		servers, tools, flagged, critical, serverLevel int
		perRule                                        = map[string]int{}
		lines                                          []string
	)
	for _, r := range res {
		if r.err != nil {
			t.Errorf("%s (%s): %v", r.entry.Name, r.entry.Package, r.err)
			continue
		}
		if len(r.srv.Tools) == 0 {
			t.Errorf("%s (%s) listed no tools", r.entry.Name, r.entry.Package)
			continue
		}
		servers++
		tools += len(r.srv.Tools)
		// Each server is scanned on its own, as a user scans one server:
		// its verdict must not depend on the others pinned here.
		r.srv.Name = r.entry.Name
		rep := scan.Scan(&catalog.Catalog{Servers: []catalog.Server{r.srv}}, scan.Options{})
		hit := map[string]bool{}
		n := 0
		for _, f := range rep.All() {
			perRule[f.RuleID+" "+f.Severity.String()]++
			if f.Severity >= scan.Medium {
				n++
				if f.Tool == "" {
					serverLevel++
				} else {
					hit[f.Tool] = true
				}
			}
			if f.Severity == scan.Critical {
				critical++
			}
		}
		flagged += len(hit)
		grade := "-"
		if len(rep.Servers) > 0 {
			grade = rep.Servers[0].Grade
		}
		lines = append(lines, fmt.Sprintf("%-40s %4d tools  %3d findings >= medium  grade %s  (listed in %s)",
			r.entry.Name, len(r.srv.Tools), n, grade, r.took.Round(100*time.Millisecond)))
	}
	sort.Strings(lines)
	for _, l := range lines {
		t.Log(l)
	}
	rules := make([]string, 0, len(perRule))
	for k := range perRule {
		rules = append(rules, k)
	}
	sort.Strings(rules)
	for _, k := range rules {
		t.Logf("rule %-40s %d", k, perRule[k])
	}
	share := 0.0
	if tools > 0 {
		share = float64(flagged) / float64(tools)
	}
	t.Logf("real-world figure: %d servers, %d tools, %d tools (%.2f%%) with a finding >= medium, %d critical findings, %d server-level findings >= medium",
		servers, tools, flagged, 100*share, critical, serverLevel)

	if servers < minServers {
		t.Errorf("%d servers listed their tools, want at least %d", servers, minServers)
	}
	if tools < minTools {
		t.Errorf("%d tools listed, want at least %d", tools, minTools)
	}
	if share > targetFlaggedShare || critical > 0 || serverLevel > 0 {
		t.Logf("NOT YET AT TARGET: %.2f%% of tools flagged (target at most %.0f%%), %d critical (target 0), %d server-level (target 0)",
			100*share, 100*targetFlaggedShare, critical, serverLevel)
	}
	if flagged > maxFlaggedTools {
		t.Errorf("%d real tools have a finding >= medium, more than the measured ceiling %d: the rules got worse", flagged, maxFlaggedTools)
	}
	if critical > maxCritical {
		t.Errorf("%d critical findings on real servers, more than the measured ceiling %d", critical, maxCritical)
	}
	if serverLevel > maxServerLevel {
		t.Errorf("%d server-level findings >= medium on real servers, more than the measured ceiling %d", serverLevel, maxServerLevel)
	}
}

// dumpCatalogs writes each listed server's catalog to the directory named by
// MCPSEC_REALWORLD_DUMP, one JSON file per server, so rule work can rescan
// the same text in a second instead of starting 70 servers. The directory
// must be outside the repository: the text is third-party and is never
// committed.
func dumpCatalogs(t *testing.T, res []listed) {
	dir := os.Getenv("MCPSEC_REALWORLD_DUMP")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("MCPSEC_REALWORLD_DUMP: %v", err)
	}
	for _, r := range res {
		if r.err != nil {
			continue
		}
		srv := r.srv
		srv.Name = r.entry.Name
		data, err := json.MarshalIndent(catalog.Catalog{Servers: []catalog.Server{srv}}, "", "  ")
		if err != nil {
			t.Fatalf("dump %s: %v", r.entry.Name, err)
		}
		name := strings.NewReplacer("/", "_", "@", "").Replace(r.entry.Name) + ".json"
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatalf("dump %s: %v", r.entry.Name, err)
		}
	}
}

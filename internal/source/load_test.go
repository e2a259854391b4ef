package source

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/mcpconn"
)

// TestLoadStartsServersTogether proves live servers are fetched at once
// by ordering, not timing: every fake server waits until all of them have
// started before it answers, which a one-after-another loader can never
// satisfy (it would wait out the generous deadline and fail).
func TestLoadStartsServersTogether(t *testing.T) {
	const n = 3
	var (
		mu      sync.Mutex
		events  []string
		started int
		all     = make(chan struct{})
	)
	record := func(e string) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
	}
	sp := Spec{Stdio: []string{"srv-a", "srv-b", "srv-c"}}
	sp.fetch = func(ctx context.Context, src mcpconn.Source, _ mcpconn.Options) (catalog.Server, []byte, error) {
		name := src.Command[0]
		record("start " + name)
		mu.Lock()
		started++
		if started == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-ctx.Done():
			return catalog.Server{}, nil, ctx.Err()
		}
		record("done " + name)
		return catalog.Server{Name: name, Tools: []catalog.Tool{}}, []byte(`{"tools":[]}`), nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := Load(ctx, sp)
	if err != nil {
		t.Fatalf("Load: %v (events %v)", err, events)
	}
	for i, e := range events {
		if strings.HasPrefix(e, "done") && i < n {
			t.Fatalf("a server finished before all had started: %v", events)
		}
	}
	var names []string
	for _, s := range got {
		names = append(names, s.Def.Name)
		if s.Kind != KindStdio || s.URI != "stdio:"+s.Def.Name || len(s.Data) == 0 {
			t.Errorf("%s: kind %q uri %q data %d bytes", s.Def.Name, s.Kind, s.URI, len(s.Data))
		}
	}
	if strings.Join(names, ",") != "srv-a,srv-b,srv-c" {
		t.Errorf("servers %v, want the spec's order", names)
	}
}

// TestLoadFirstFailureWins: one failing server cancels the others and its
// own error is the one reported.
func TestLoadFirstFailureWins(t *testing.T) {
	errBoom := errors.New("boom")
	sp := Spec{Stdio: []string{"ok-1", "bad", "ok-2"}}
	sp.fetch = func(ctx context.Context, src mcpconn.Source, _ mcpconn.Options) (catalog.Server, []byte, error) {
		if src.Command[0] == "bad" {
			return catalog.Server{}, nil, errBoom
		}
		<-ctx.Done() // only the failure can end this
		return catalog.Server{}, nil, ctx.Err()
	}
	_, err := Load(context.Background(), sp)
	if !errors.Is(err, errBoom) {
		t.Fatalf("err = %v, want the failing server's own error", err)
	}
}

func TestLoadFiles(t *testing.T) {
	dir := t.TempDir()
	bare := filepath.Join(dir, "weather.json")
	multi := filepath.Join(dir, "multi.json")
	bareDoc := "{\"tools\": [\n  {\"name\": \"get\", \"description\": \"d\", \"inputSchema\": {\"type\": \"object\"}}\n]}\n"
	multiDoc := `{"servers": [{"name": "a", "tools": []}, {"name": "weather", "tools": []}]}`
	if err := os.WriteFile(bare, []byte(bareDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(multi, []byte(multiDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Load(context.Background(), Spec{Catalogs: []string{bare, multi}})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ name, uri, ptr, data string }{
		{"weather", bare, "", bareDoc},
		{"a", multi, "/servers/0", multiDoc},
		{"weather#2", multi, "/servers/1", multiDoc},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d servers, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Def.Name != w.name || g.URI != w.uri || g.Pointer != w.ptr || string(g.Data) != w.data || g.Kind != KindFile {
			t.Errorf("server %d = %q %q %q kind %q, want %q %q %q", i, g.Def.Name, g.URI, g.Pointer, g.Kind, w.name, w.uri, w.ptr)
		}
	}
}

func TestLoadRefusals(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "claude.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"x": {"command": "node", "args": ["s.js"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		sp   Spec
		want error
		msg  string
	}{
		{"nothing", Spec{}, ErrNoSource, "no catalog source"},
		{"config without allow-exec", Spec{Configs: []string{cfg}}, ErrExecRefused, "claude.json"},
		{"bad url", Spec{URLs: []string{"ftp://127.0.0.1/"}}, catalog.ErrInput, "want an http"},
		{"bad quote", Spec{Stdio: []string{`node "x`}}, catalog.ErrInput, "unterminated quote"},
		{"missing file", Spec{Catalogs: []string{filepath.Join(dir, "none.json")}}, catalog.ErrInput, "none.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var log strings.Builder
			tc.sp.Log = &log
			_, err := Load(context.Background(), tc.sp)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want %v mentioning %q", err, tc.want, tc.msg)
			}
			if errors.Is(err, ErrExecRefused) && !strings.Contains(log.String(), `x: run ["node" "s.js"]`) {
				t.Errorf("refusal did not say what would run: %q", log.String())
			}
		})
	}
}

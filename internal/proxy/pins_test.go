package proxy

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/catalog"
)

func pinTool(name, desc string) agent.Tool {
	// Each body distinct, or pinning would take one for a renamed copy of
	// another.
	return agent.Tool{Server: "srv", ModelName: name, Def: catalog.Tool{Name: name, Description: desc + " of " + name,
		InputSchema: map[string]any{"type": "object"}}}
}

// TestStateApprovalsAreNotLost runs approvals (as `mcpsec proxy approve`
// does, each its own read-modify-write of the state file) while the
// running proxy keeps listing and saving new trust-on-first-use pins to
// the same file. Without the state file's lock either side can write
// back a state read before the other's write, losing an approval or a
// pin; with it, every approval and every pin is in the file at the end.
func TestStateApprovalsAreNotLost(t *testing.T) {
	const changed, added = 12, 40
	path := filepath.Join(t.TempDir(), "pins.json")
	ps, err := NewPinStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var v1, v2 []agent.Tool
	for i := range changed {
		name := fmt.Sprintf("tool_%02d", i)
		v1 = append(v1, pinTool(name, "first definition"))
		v2 = append(v2, pinTool(name, "changed definition"))
	}
	if out, _ := ps.Transform(v1); len(out) != changed {
		t.Fatalf("first listing passed %d of %d", len(out), changed)
	}
	if out, _ := ps.Transform(v2); len(out) != 0 {
		t.Fatalf("changed definitions passed: %d", len(out))
	}
	st, err := ReadState(path)
	if err != nil || len(st.Pending) != changed {
		t.Fatalf("pending after the change: %d (%v)", len(st.Pending), err)
	}

	var wg sync.WaitGroup
	wg.Go(func() {
		// The proxy: each listing brings one more new tool, pinned on
		// first use and saved.
		listing := append([]agent.Tool(nil), v2...)
		for k := range added {
			listing = append(listing, pinTool(fmt.Sprintf("new_%02d", k), "a new tool"))
			ps.Transform(listing)
		}
	})
	for i := range changed {
		wg.Go(func() {
			if _, err := Approve(path, fmt.Sprintf("tool_%02d", i)); err != nil {
				t.Errorf("approve tool_%02d: %v", i, err)
			}
		})
	}
	wg.Wait()

	st, err = ReadState(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, tl := range v2 {
		want[tl.Def.Name] = catalog.Fingerprint(tl.Def)
	}
	for k := range added {
		tl := pinTool(fmt.Sprintf("new_%02d", k), "a new tool")
		want[tl.Def.Name] = catalog.Fingerprint(tl.Def)
	}
	got := map[string]string{}
	for _, p := range st.Pins {
		got[p.Tool] = p.SHA256
	}
	for name, fp := range want {
		if got[name] != fp {
			t.Errorf("%s: pinned %q, want %q", name, got[name], fp)
		}
	}
	for _, p := range st.Pending {
		t.Errorf("%s is still pending after its approval", p.Tool)
	}
	// The proxy offers every approved definition at its next listing.
	if out, _ := ps.Transform(v2); len(out) != changed {
		t.Errorf("after the approvals the proxy passes %d of %d changed tools", len(out), changed)
	}
}

package proxytest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpsec/mcpsec/internal/fixture"
	"github.com/mcpsec/mcpsec/internal/proxy"
	"github.com/mcpsec/mcpsec/internal/testkit"
)

// TestTSClientThroughProxy: the official TypeScript client lists and calls
// through `mcpsec proxy -- mcpsec fixture serve --server poisoned ...` and
// through the proxy in front of the official server-everything. Poisoned
// tools are withheld; every other tool reaches the client exactly as it
// does without the proxy; calls are relayed.
func TestTSClientThroughProxy(t *testing.T) {
	everything := testkit.OfficialServer(t, "server-everything", "stdio")
	cases := []struct {
		name      string
		inner     []string // mcpsec arguments of a fixture upstream
		cmd       []string // or any other upstream command
		withheld  []string
		calls     [][2]string
		wantCalls []string
	}{
		{
			name:     "poisoned description",
			inner:    []string{"fixture", "serve", "--server", "poisoned", "--class", "tool_description", "--carrier-tool", "read_note"},
			withheld: []string{fixture.ToolReadNote},
			calls:    [][2]string{{"list_notes", "{}"}, {"calculate", `{"expression":"6*7"}`}},
		},
		{
			name:     "poisoned schema",
			inner:    []string{"fixture", "serve", "--server", "poisoned", "--class", "schema_field", "--carrier-tool", "lookup_user"},
			withheld: []string{fixture.ToolLookupUser},
			calls:    [][2]string{{"read_note", `{"title":"welcome"}`}},
		},
		{
			name:  "server-everything",
			cmd:   everything,
			calls: [][2]string{{"echo", `{"message":"through mcpsec"}`}, {"get-sum", `{"a":2,"b":40}`}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			audit := filepath.Join(t.TempDir(), "audit.jsonl")
			var directArgv, directEnv, viaArgv, viaEnv []string
			if tc.inner != nil {
				directArgv, directEnv = mcpsec(tc.inner...)
				viaArgv, viaEnv = proxyOver([]string{"--audit", audit}, tc.inner...)
			} else {
				directArgv, directEnv = tc.cmd, os.Environ()
				viaArgv, viaEnv = mcpsec(append([]string{"proxy", "--audit", audit, "--"}, tc.cmd...)...)
			}
			direct := tsClient(t, directArgv, directEnv, tc.calls...)
			via := tsClient(t, viaArgv, viaEnv, tc.calls...)

			want := map[string]string{}
			for _, tl := range direct.Tools {
				want[tl.Name] = tl.Raw
			}
			got := map[string]string{}
			for _, tl := range via.Tools {
				got[tl.Name] = tl.Raw
				if tl.Raw != want[tl.Name] {
					t.Errorf("%s differs through the proxy:\n got %s\nwant %s", tl.Name, tl.Raw, want[tl.Name])
				}
			}
			for _, w := range tc.withheld {
				if _, ok := got[w]; ok {
					t.Errorf("poisoned %s offered through the proxy", w)
				}
				if _, ok := want[w]; !ok {
					t.Errorf("test is wrong: %s is not listed directly either", w)
				}
			}
			if len(got) != len(want)-len(tc.withheld) || len(got) == 0 {
				t.Errorf("offered %d tools, want %d", len(got), len(want)-len(tc.withheld))
			}
			if len(via.Calls) != len(tc.calls) {
				t.Fatalf("calls: %+v", via.Calls)
			}
			for i, c := range via.Calls {
				d := direct.Calls[i]
				if c.IsError || c.Text == "" || c.Result != d.Result {
					t.Errorf("%s: through the proxy %+v, directly %+v", c.Name, c, d)
				}
			}
			seen := validateAudit(t, audit)
			allowed, withheld := seen[proxy.DecisionCallAllowed], seen[proxy.DecisionToolWithheld]
			if seen[proxy.DecisionStarted] != 1 || seen[proxy.DecisionToolPassed] != len(got) {
				t.Errorf("audit log: %v; want one start and %d tools passed", seen, len(got))
			}
			if allowed != len(tc.calls) || withheld != len(tc.withheld) {
				t.Errorf("audit log: %d calls allowed, %d tools withheld; want %d and %d", allowed, withheld, len(tc.calls), len(tc.withheld))
			}
		})
	}
}

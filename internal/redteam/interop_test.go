package redteam

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/model"
	"github.com/mcpsec/mcpsec/internal/testkit"
)

// TestServerEverything attacks the official TypeScript server-everything
// over stdio with the whole corpus: the scenarios written for its tools
// apply (and control:compromised is exploited in each), every other one is
// not_applicable with a reason naming the missing tool. It fails, never
// skips, when the npm packages are missing: `make test` installs them.
func TestServerEverything(t *testing.T) {
	t.Parallel()
	target := &Target{Sources: []mcpconn.Source{{Command: testkit.OfficialServer(t, "server-everything", "stdio")}}}
	rep, err := Execute(context.Background(), Options{Models: []string{model.ControlCompromised}, Scenarios: corpus(t),
		Runner: &Runner{Target: target, FixedCanary: true}})
	if err != nil {
		t.Fatal(err)
	}
	applied, na := 0, 0
	for _, s := range rep.Models[0].Scenarios {
		switch {
		case strings.HasPrefix(s.ID, "ev-"):
			applied++
			if s.Outcome != Exploited {
				t.Errorf("%s = %s (%s), want exploited", s.ID, s.Outcome, s.Reason)
			}
		default:
			na++
			if s.Outcome != NotApplicable || !strings.Contains(s.Reason, "the target has no tool") || !strings.Contains(s.Reason, "echo") {
				t.Errorf("%s = %s (%s), want not_applicable naming the missing tool and what the server offers", s.ID, s.Outcome, s.Reason)
			}
		}
	}
	if applied < 4 || na < 24 {
		t.Errorf("%d applicable and %d not applicable scenarios", applied, na)
	}
	if !strings.Contains(rep.Target, "server-everything") {
		t.Errorf("the report's target %q does not say what was attacked", rep.Target)
	}
}

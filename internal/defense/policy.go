package defense

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/task"
)

// Policy layers (Decision.Rule) and reasons (Decision.Reason) of denials.
// Gate denials carry the gate's own reason (ReasonUnregistered, ...).
const (
	RuleAllowlist = "allowlist"
	RuleGate      = "gate"
	RuleTaint     = "taint"
	RuleFlow      = "flow"
	RuleConfirm   = "confirm"

	ReasonNotAllowlisted = "not_allowlisted"
	ReasonTaintedEgress  = "tainted_egress"
	ReasonCrossServer    = "cross_server_flow"
	ReasonUserDeclined   = "user_declined"
	ReasonUserApproved   = "user_approved"
)

// Note kinds of the policy seams.
const (
	NoteTaint         = "taint"
	NoteGate          = "gate"
	NoteConfirmPrompt = "confirm_prompt"
)

// registryHolder freezes the trusted registry at the first listing it
// sees. As a ToolTransform it changes nothing the model is shown.
type registryHolder struct {
	mu      sync.Mutex
	rules   map[string]ResourceRule
	classes map[string]string
	reg     *Registry
}

func (r *registryHolder) Transform(tools []agent.Tool) ([]agent.Tool, []agent.Note) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reg == nil {
		reg := NewRegistry(tools, r.rules, r.classes)
		r.reg = &reg
	}
	return tools, nil
}

func (r *registryHolder) get() Registry {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reg == nil {
		return Registry{}
	}
	return *r.reg
}

// taintRecorder is the identity ResultTransform that files every raw
// result in the trial's taint store.
func taintRecorder(store *TaintStore) agent.ResultTransform {
	return func(call agent.Call, res agent.Result) (agent.Result, []agent.Note) {
		store.RecordResult(call.Server, call.Tool, call.ID, res.Text)
		return res, nil
	}
}

// ingest files results from the call history too, so taint does not
// depend on the result seam being first in the chain.
func ingest(store *TaintStore, h agent.History) {
	for _, rec := range h.Calls {
		if !rec.Blocked {
			store.RecordResult(rec.Call.Server, rec.Call.Tool, rec.Call.ID, rec.Raw.Text)
		}
	}
}

// policyConfig is the host configuration one trial's policy reads.
type policyConfig struct {
	allowed map[string]bool // empty: every listed tool
	classes map[string]string
	flows   map[string]bool
	caps    CapabilitySet
}

func newPolicyConfig(p task.Policy) policyConfig {
	pc := policyConfig{allowed: map[string]bool{}, classes: p.Classes, flows: map[string]bool{}, caps: CapabilitySet(append([]task.Capability(nil), p.Capabilities...))}
	for _, a := range p.Allowed {
		pc.allowed[a] = true
	}
	for _, f := range p.Flows {
		from, to, ok := strings.Cut(f, "->")
		if ok {
			pc.flows[strings.TrimSpace(from)+"->"+strings.TrimSpace(to)] = true
		}
	}
	return pc
}

// capabilityPolicy is the policy arm's CallPolicy: allowlist, then the
// authorization gate, then taint on egress, then cross-server flow.
func capabilityPolicy(pc policyConfig, reg *registryHolder, store *TaintStore) agent.CallPolicy {
	return func(call agent.Call, h agent.History) agent.Decision {
		ingest(store, h)
		if len(pc.allowed) > 0 && !pc.allowed[call.Tool] {
			return deny(RuleAllowlist, ReasonNotAllowlisted, nil)
		}
		g := Authorize(reg.get(), pc.caps, call)
		if !g.Allowed {
			return deny(RuleGate, g.Reason, []agent.Note{{Seam: SeamPolicy, Kind: NoteGate, Tool: call.Tool, Rule: g.Reason, Detail: g.Detail}})
		}
		hits := store.Check(call.Arguments)
		notes := taintNotes(call, hits)
		if classOf(pc.classes, call.Tool) == "egress" && len(hits) > 0 {
			return deny(RuleTaint, ReasonTaintedEgress, notes)
		}
		for _, hit := range hits {
			if hit.Server == "" || hit.Server == call.Server {
				continue
			}
			if !pc.flows[hit.Server+"->"+call.Server] {
				return deny(RuleFlow, ReasonCrossServer, append(notes, agent.Note{Seam: SeamPolicy, Kind: NoteTaint, Tool: call.Tool, Rule: ReasonCrossServer,
					Detail: fmt.Sprintf("data from server %s reaches server %s; no flow %s->%s is allowed", hit.Server, call.Server, hit.Server, call.Server)}))
			}
		}
		return agent.Decision{Allow: true, Reason: ReasonAuthorized, Notes: notes}
	}
}

// confirmPolicy simulates a user asked to approve every egress call that
// carries taint. approve says what the simulated user answers.
func confirmPolicy(classes map[string]string, store *TaintStore, approve bool) agent.CallPolicy {
	return func(call agent.Call, h agent.History) agent.Decision {
		ingest(store, h)
		if classOf(classes, call.Tool) != "egress" {
			return agent.Allow
		}
		hits := store.Check(call.Arguments)
		if len(hits) == 0 {
			return agent.Allow
		}
		answer, reason := "declined", ReasonUserDeclined
		if approve {
			answer, reason = "approved", ReasonUserApproved
		}
		notes := append(taintNotes(call, hits), agent.Note{Seam: SeamPolicy, Kind: NoteConfirmPrompt, Tool: call.Tool, Rule: RuleConfirm,
			Detail: fmt.Sprintf("asked the user to approve %s/%s sending %s; the simulated user %s", call.Server, call.Tool, describeHits(hits), answer)})
		return agent.Decision{Allow: approve, Reason: reason, Rule: RuleConfirm, Notes: notes}
	}
}

func deny(rule, reason string, notes []agent.Note) agent.Decision {
	return agent.Decision{Allow: false, Rule: rule, Reason: reason, Notes: notes}
}

func taintNotes(call agent.Call, hits []Hit) []agent.Note {
	notes := make([]agent.Note, 0, len(hits))
	for _, h := range hits {
		d := h.Evidence
		if h.Server != "" {
			d = fmt.Sprintf("%s from result of %s/%s (call %s)", h.Evidence, h.Server, h.Tool, h.CallID)
		}
		notes = append(notes, agent.Note{Seam: SeamPolicy, Kind: NoteTaint, Tool: call.Tool, Rule: h.Kind, Detail: d})
	}
	return notes
}

func describeHits(hits []Hit) string {
	seen := map[string]bool{}
	for _, h := range hits {
		if h.Kind == TaintSecret {
			seen["a secret"] = true
		} else {
			seen["data from "+h.Server+"/"+h.Tool] = true
		}
	}
	parts := make([]string, 0, len(seen))
	for p := range seen {
		parts = append(parts, p)
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

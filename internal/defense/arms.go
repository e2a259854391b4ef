// Package defense holds the defense arms of the benchmark and the pieces
// they are built from: content filters, first-use pinning, the taint
// store, the pre-dispatch capability policy with its authorization gate,
// simulated confirmation, model hardening and the scanner-backed filter.
// Every arm is expressed only through the agent's three seams, so an arm
// differs from the undefended baseline by exactly what it names.
package defense

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/task"
	trialkeys "github.com/mcpsec/mcpsec/internal/trial"
)

// Arm names.
const (
	ArmNone                = trialkeys.None // the undefended arm: the trial contract's one "none"
	ArmMetaFilter          = "meta_filter"
	ArmResultFilter        = "result_filter"
	ArmMetaAndResultFilter = "meta_and_result_filter"
	ArmPinning             = "pinning"
	ArmPolicy              = "policy"
	ArmPolicyFull          = "policy_full"
	ArmConfirm             = "confirm"
	ArmConfirmUX           = "confirm_ux"
	ArmModelHardening      = "model_hardening"
	ArmScanFilter          = "scan_filter"
)

// Arms lists every arm in report order.
var Arms = []string{
	ArmNone, ArmMetaFilter, ArmResultFilter, ArmMetaAndResultFilter, ArmPinning,
	ArmPolicy, ArmPolicyFull, ArmConfirm, ArmConfirmUX, ArmModelHardening, ArmScanFilter,
}

// Descriptions says in one line what each arm adds to the baseline.
var Descriptions = map[string]string{
	ArmNone:                "no defense: the unmodified client",
	ArmMetaFilter:          "redact instruction-like segments of tool metadata, mark its origin",
	ArmResultFilter:        "redact instruction-like segments of tool results, mark their origin",
	ArmMetaAndResultFilter: "both content filters",
	ArmPinning:             "trust each tool definition on first use; withhold drifted, shadowing and renamed tools",
	ArmPolicy:              "pre-dispatch policy: allowlist, authorization gate, tainted egress and cross-server flow denial",
	ArmPolicyFull:          "pinning, both content filters and the policy",
	ArmConfirm:             "simulated user confirmation that declines tainted egress",
	ArmConfirmUX:           "the same confirmation prompts, always approved (prompt burden only)",
	ArmModelHardening:      "trust-boundary preamble and provenance markers; no redaction, no gate",
	ArmScanFilter:          "withhold tools that mcpsec's own scanner flags at medium or above",
}

// ErrUnknownArm marks an arm name Build does not know.
var ErrUnknownArm = errors.New("unknown defense arm")

// CheckArm reports whether arm names a known arm; the error wraps
// ErrUnknownArm and lists the valid ones. Every caller that accepts an
// arm name (grid files, flags) asks here, so the list lives in one place.
func CheckArm(arm string) error {
	for _, a := range Arms {
		if a == arm {
			return nil
		}
	}
	return fmt.Errorf("%w %q; valid arms: %s", ErrUnknownArm, arm, strings.Join(Arms, ", "))
}

// ErrArmConfig marks a configuration an arm cannot be built from.
var ErrArmConfig = errors.New("defense arm configuration")

// Config is what Build needs to set up one trial's defense.
type Config struct {
	// Task supplies the policy block (allowlist, classes, secrets, flows,
	// capabilities) and the user's own text. The policy and confirm arms
	// require it.
	Task *task.Task
	// Canary is the trial's canary; it replaces {{canary}} in the task's
	// secrets and context, and is always treated as a secret itself.
	Canary string
	// Resources maps tool names to the resource they act on; nil means
	// DefaultResources (the fixture tools).
	Resources map[string]ResourceRule
	// SecretPatterns match further secrets by shape (the proxy's policy
	// file); the bench's tasks name theirs literally and leave it nil.
	SecretPatterns []*regexp.Regexp
}

// Build returns fresh seams for one trial of an arm: every call creates
// new state (pins, registry, taint store), so trials never share it.
func Build(arm string, cfg Config) (agent.Seams, error) {
	needTask := func() error {
		if cfg.Task == nil {
			return fmt.Errorf("%w: arm %s needs the task's policy block, and no task was given", ErrArmConfig, arm)
		}
		return nil
	}
	switch arm {
	case ArmNone:
		return agent.Seams{}, nil
	case ArmMetaFilter:
		return agent.Seams{Tools: []agent.ToolTransform{MetaFilter()}}, nil
	case ArmResultFilter:
		return agent.Seams{Results: []agent.ResultTransform{ResultFilter()}}, nil
	case ArmMetaAndResultFilter:
		return agent.Seams{Tools: []agent.ToolTransform{MetaFilter()}, Results: []agent.ResultTransform{ResultFilter()}}, nil
	case ArmPinning:
		p := NewPinner()
		return agent.Seams{Tools: []agent.ToolTransform{p.Transform}, RelistEveryStep: true}, nil
	case ArmPolicy:
		if err := needTask(); err != nil {
			return agent.Seams{}, err
		}
		pc, reg, store := policyParts(cfg)
		return agent.Seams{
			Tools:   []agent.ToolTransform{reg.Transform},
			Results: []agent.ResultTransform{taintRecorder(store)},
			Policy:  []agent.CallPolicy{capabilityPolicy(pc, reg, store)},
		}, nil
	case ArmPolicyFull:
		if err := needTask(); err != nil {
			return agent.Seams{}, err
		}
		pc, reg, store := policyParts(cfg)
		p := NewPinner()
		// Order matters: pins and the registry are taken from the raw
		// definitions before the filter rewrites them, and taint is
		// recorded from raw results before the filter redacts them.
		return agent.Seams{
			Tools:           []agent.ToolTransform{p.Transform, reg.Transform, MetaFilter()},
			Results:         []agent.ResultTransform{taintRecorder(store), ResultFilter()},
			Policy:          []agent.CallPolicy{capabilityPolicy(pc, reg, store)},
			RelistEveryStep: true,
		}, nil
	case ArmConfirm, ArmConfirmUX:
		if err := needTask(); err != nil {
			return agent.Seams{}, err
		}
		store := newTrialTaint(cfg)
		return agent.Seams{
			Results: []agent.ResultTransform{taintRecorder(store)},
			Policy:  []agent.CallPolicy{confirmPolicy(cfg.Task.Policy.Classes, store, arm == ArmConfirmUX)},
		}, nil
	case ArmModelHardening:
		h := Hardening{Tag: boundaryTag(cfg.Canary)}
		return agent.Seams{
			Tools:          []agent.ToolTransform{h.Tools},
			Results:        []agent.ResultTransform{h.Results},
			SystemPreamble: h.Preamble(),
		}, nil
	case ArmScanFilter:
		if defaultScanner == nil {
			return agent.Seams{}, fmt.Errorf("%w: arm %s is not available yet (the scanner has no per-tool entry point)", ErrArmConfig, arm)
		}
		return agent.Seams{Tools: []agent.ToolTransform{ScanFilter(defaultScanner)}}, nil
	}
	if err := CheckArm(arm); err != nil {
		return agent.Seams{}, err
	}
	return agent.Seams{}, fmt.Errorf("%w: arm %q is listed but has no builder", ErrArmConfig, arm)
}

func policyParts(cfg Config) (policyConfig, *registryHolder, *TaintStore) {
	pc := newPolicyConfig(cfg.Task.Policy)
	reg := &registryHolder{rules: cfg.Resources, classes: cfg.Task.Policy.Classes}
	return pc, reg, newTrialTaint(cfg)
}

// newTrialTaint builds the trial's taint store from the task: its
// secrets with the canary filled in, plus the canary itself, and the
// user's prompt and context as the text the user supplied.
func newTrialTaint(cfg Config) *TaintStore {
	var secrets []string
	if cfg.Canary != "" {
		secrets = append(secrets, cfg.Canary)
	}
	for _, s := range cfg.Task.Policy.Secrets {
		v := task.Substitute(s, cfg.Canary)
		if v != cfg.Canary {
			secrets = append(secrets, v)
		}
	}
	user := cfg.Task.Prompt + "\n" + task.Substitute(cfg.Task.Context, cfg.Canary)
	store := NewTaintStore(secrets, user)
	store.AddSecretPatterns(cfg.SecretPatterns...)
	return store
}

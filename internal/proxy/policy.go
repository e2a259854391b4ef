package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/defense"
	"github.com/mcpsec/mcpsec/internal/scan"
	"github.com/mcpsec/mcpsec/internal/task"
)

// Policy is the proxy's policy file. The capability block has the same
// fields as a benchmark task's policy, so the policy arm the benchmark
// measures is the one the proxy enforces.
type Policy struct {
	// Scan on tools/list.
	Scan struct {
		Enabled   *bool  `yaml:"enabled"`
		BlockAt   string `yaml:"block_at"`
		OnFinding string `yaml:"on_finding"` // withhold | redact
	} `yaml:"scan"`
	// Pinning.
	Pinning struct {
		Enabled *bool  `yaml:"enabled"`
		Lock    string `yaml:"lock"`
		State   string `yaml:"state"`
	} `yaml:"pinning"`
	// ResultFilter redacts instruction-like segments of tool results.
	ResultFilter bool `yaml:"result_filter"`
	// Capabilities turns on the capability policy and taint tracking.
	Capabilities *struct {
		task.Policy `yaml:",inline"`
		// SecretPatterns are regular expressions; every match is a secret.
		SecretPatterns []string `yaml:"secret_patterns"`
		// Resources says which resource each tool acts on (default: the
		// tool's own resource "tool:NAME" with the operation of its class).
		Resources map[string]defense.ResourceRule `yaml:"resources"`
	} `yaml:"policy"`
}

// Policy file values.
const (
	OnFindingWithhold = "withhold"
	OnFindingRedact   = "redact"
)

// OnFindings lists the on_finding values (and --on-finding's).
var OnFindings = []string{OnFindingWithhold, OnFindingRedact}

// ErrPolicy marks a policy file the proxy cannot enforce.
var ErrPolicy = errors.New("policy file")

// LoadPolicy reads and checks a policy file. Unknown keys are errors
// (a misspelt rule must not silently enforce nothing).
func LoadPolicy(path string) (*Policy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPolicy, err)
	}
	return ParsePolicy(path, b)
}

// ParsePolicy parses policy bytes; name labels errors.
func ParsePolicy(name string, b []byte) (*Policy, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var p Policy
	if err := dec.Decode(&p); err != nil && !errors.Is(err, io.EOF) {
		return nil, policyErr(name, err)
	}
	if p.Scan.BlockAt != "" {
		if _, err := scan.ParseSeverity(p.Scan.BlockAt); err != nil {
			return nil, &catalog.InputError{File: name, Msg: fmt.Sprintf("scan.block_at: %v", err)}
		}
	}
	if p.Scan.OnFinding != "" && p.Scan.OnFinding != OnFindingWithhold && p.Scan.OnFinding != OnFindingRedact {
		return nil, &catalog.InputError{File: name, Msg: fmt.Sprintf("scan.on_finding %q: want withhold or redact", p.Scan.OnFinding)}
	}
	if c := p.Capabilities; c != nil {
		for tool, class := range c.Classes {
			if !slices.Contains([]string{"read", "write", "egress"}, class) {
				return nil, &catalog.InputError{File: name, Msg: fmt.Sprintf("policy.classes.%s %q: want read, write or egress", tool, class)}
			}
		}
		for _, f := range c.Flows {
			from, to, ok := strings.Cut(f, "->")
			if !ok || strings.TrimSpace(from) == "" || strings.TrimSpace(to) == "" {
				return nil, &catalog.InputError{File: name, Msg: fmt.Sprintf("policy.flows %q: want FROM->TO (server names)", f)}
			}
		}
		for i, s := range c.SecretPatterns {
			if _, err := regexp.Compile(s); err != nil {
				return nil, &catalog.InputError{File: name, Msg: fmt.Sprintf("policy.secret_patterns[%d]: %v", i, err)}
			}
		}
	}
	return &p, nil
}

// yamlLine pulls "line N" out of a yaml.v3 error.
var yamlLine = regexp.MustCompile(`line (\d+)`)

func policyErr(name string, err error) error {
	ie := &catalog.InputError{File: name, Msg: err.Error()}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		fmt.Sscanf(m[1], "%d", &ie.Line)
	}
	return ie
}

// DefenseConfig is the defense.Config the policy block describes (the
// same input the benchmark builds from a task). nil when the file has no
// policy block.
func (p *Policy) DefenseConfig() (*defense.Config, error) {
	c := p.Capabilities
	if c == nil {
		return nil, nil
	}
	pol := c.Policy
	if len(pol.Capabilities) == 0 {
		// No capabilities listed: the gate still checks the registry and
		// argument shapes, but grants every operation on every resource.
		for _, op := range []string{"read", "write", "delete", "egress"} {
			pol.Capabilities = append(pol.Capabilities, task.Capability{Op: op, Resource: "*"})
		}
	}
	cfg := &defense.Config{Task: &task.Task{Policy: pol}, Resources: c.Resources}
	for _, s := range c.SecretPatterns {
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrPolicy, err)
		}
		cfg.SecretPatterns = append(cfg.SecretPatterns, re)
	}
	if cfg.Resources == nil {
		// Unknown tools default to their own resource with the operation
		// of their class; an empty (non-nil) map keeps the fixture's
		// defaults out of a real deployment.
		cfg.Resources = map[string]defense.ResourceRule{}
	}
	return cfg, nil
}

// Settings are the defenses a proxy enforces, as the CLI flags and the
// policy file give them.
type Settings struct {
	// Arm, when set, applies exactly one benchmark arm (defense.Build);
	// the other fields but Defense are then ignored.
	Arm string
	// Defense is the capability policy (nil: no policy block).
	Defense *defense.Config
	Scan    bool
	BlockAt scan.Severity
	Redact  bool
	Pin     bool
	// LockPins pin strictly against a lockfile (nil: trust on first use).
	LockPins []defense.Pin
	// State is the pin state file ("" keeps pins in memory).
	State        string
	ResultFilter bool
}

// Build composes the seams. Order matters as in the policy_full arm:
// pins are taken from the raw definitions, the scan judges what pinning
// let through, the policy's registry is frozen from what the client is
// offered, and taint is recorded from raw results before any filter.
func (s Settings) Build() (agent.Seams, error) {
	if s.Arm != "" {
		cfg := defense.Config{}
		if s.Defense != nil {
			cfg = *s.Defense
		}
		return defense.Build(s.Arm, cfg)
	}
	var out agent.Seams
	if s.Pin {
		ps, err := NewPinStore(s.State, s.LockPins)
		if err != nil {
			return agent.Seams{}, err
		}
		out.Tools = append(out.Tools, ps.Transform)
	}
	if s.Scan {
		out.Tools = append(out.Tools, ScanTransform(s.BlockAt, s.Redact))
	}
	if s.Defense != nil {
		ps, err := defense.Build(defense.ArmPolicy, *s.Defense)
		if err != nil {
			return agent.Seams{}, err
		}
		out.Tools = append(out.Tools, ps.Tools...)
		out.Results = append(out.Results, ps.Results...)
		out.Policy = append(out.Policy, ps.Policy...)
	}
	if s.ResultFilter {
		out.Results = append(out.Results, defense.ResultFilter())
	}
	return out, nil
}

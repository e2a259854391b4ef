package scan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

// Ignore is one entry of an ignore file: findings of Rule (on Tool of
// Server, when given) are held back. Reason is for the reader.
type Ignore struct {
	Rule   string `yaml:"rule" json:"rule"`
	Server string `yaml:"server,omitempty" json:"server,omitempty"`
	Tool   string `yaml:"tool,omitempty" json:"tool,omitempty"`
	Reason string `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// IgnoreFile is the YAML file of ignores (.mcpsec.yaml by default):
//
//	ignore:
//	  - rule: exfil.param_context
//	    tool: send_report
//	    reason: the address parameter is the user's own
type IgnoreFile struct {
	Ignore []Ignore `yaml:"ignore"`
}

// ReadIgnoreFile reads an ignore file; errors name the file and line.
func ReadIgnoreFile(path string) (*IgnoreFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: ignore file: %w", catalog.ErrInput, err)
	}
	var f IgnoreFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, &catalog.InputError{File: path, Msg: "ignore file: " + err.Error()}
	}
	known := map[string]bool{}
	for _, r := range AllRules() {
		known[r.ID] = true
	}
	for i, ig := range f.Ignore {
		if ig.Rule == "" {
			return nil, &catalog.InputError{File: path, Msg: fmt.Sprintf("ignore[%d]: missing \"rule\"", i)}
		}
		if !known[ig.Rule] && ig.Rule != "*" {
			return nil, &catalog.InputError{File: path, Msg: fmt.Sprintf("ignore[%d]: no rule %q (mcpsec rules lists them)", i, ig.Rule)}
		}
	}
	return &f, nil
}

func (ig Ignore) matches(server string, f Finding) bool {
	return (ig.Rule == "*" || ig.Rule == f.RuleID) &&
		(ig.Server == "" || ig.Server == server) &&
		(ig.Tool == "" || ig.Tool == f.Tool)
}

// BaselineVersion is the baseline file format version.
const BaselineVersion = 1

// Baseline records findings already known, so that later scans report
// only new ones (scan --baseline).
type Baseline struct {
	BaselineVersion int             `json:"baseline_version"`
	Findings        []BaselineEntry `json:"findings"`
}

// BaselineEntry identifies one known finding. Fingerprint covers the
// server, tool, rule, location and evidence, so a finding whose text
// changes is new again.
type BaselineEntry struct {
	Fingerprint string `json:"fingerprint"`
	RuleID      string `json:"rule_id"`
	Server      string `json:"server"`
	Tool        string `json:"tool,omitempty"`
	Location    string `json:"location"`
}

func fingerprint(server string, f Finding) string {
	sum := sha256.Sum256([]byte(server + "\x00" + f.Tool + "\x00" + f.RuleID + "\x00" + f.Location + "\x00" + f.Evidence))
	return hex.EncodeToString(sum[:16])
}

// NewBaseline records every finding of a report.
func NewBaseline(rep Report) *Baseline {
	b := &Baseline{BaselineVersion: BaselineVersion, Findings: []BaselineEntry{}}
	for _, s := range rep.Servers {
		for _, f := range s.Findings {
			b.Findings = append(b.Findings, BaselineEntry{Fingerprint: fingerprint(s.Name, f), RuleID: f.RuleID, Server: s.Name, Tool: f.Tool, Location: f.Location})
		}
	}
	sort.Slice(b.Findings, func(i, j int) bool { return b.Findings[i].Fingerprint < b.Findings[j].Fingerprint })
	return b
}

// Write renders the baseline as indented JSON.
func (b *Baseline) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(b); err != nil {
		return fmt.Errorf("write baseline: %w", err)
	}
	return nil
}

// ReadBaseline reads a baseline file; errors name the file and position.
func ReadBaseline(path string) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: baseline: %w", catalog.ErrInput, err)
	}
	var b Baseline
	if err := json.Unmarshal(data, &b); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := catalog.LineCol(data, se.Offset)
			return nil, &catalog.InputError{File: path, Line: line, Column: col, Offset: se.Offset, Msg: "baseline: " + err.Error()}
		}
		return nil, &catalog.InputError{File: path, Msg: "baseline: " + err.Error()}
	}
	if b.BaselineVersion != BaselineVersion {
		return nil, &catalog.InputError{File: path, Msg: fmt.Sprintf("baseline: baseline_version %d is not supported (want %d)", b.BaselineVersion, BaselineVersion)}
	}
	return &b, nil
}

// Suppressed is a finding held back, and why.
type Suppressed struct {
	Server  string  `json:"server"`
	Finding Finding `json:"finding"`
	// By is "baseline" or "ignore".
	By     string `json:"by"`
	Reason string `json:"reason,omitempty"`
}

// Suppress removes from a report the findings an ignore file or a
// baseline holds back, regrades the servers on what is left, and returns
// what it removed so that outputs can still count it.
func Suppress(rep Report, ign *IgnoreFile, base *Baseline) (Report, []Suppressed) {
	known := map[string]bool{}
	if base != nil {
		for _, e := range base.Findings {
			known[e.Fingerprint] = true
		}
	}
	var out Report
	var held []Suppressed
	for _, s := range rep.Servers {
		kept := []Finding{}
		for _, f := range s.Findings {
			if sp, ok := suppressedBy(ign, known, s.Name, f); ok {
				held = append(held, sp)
				continue
			}
			kept = append(kept, f)
		}
		s.Findings = kept
		s.Score, s.Grade = Grade(kept)
		out.Servers = append(out.Servers, s)
	}
	return out, held
}

func suppressedBy(ign *IgnoreFile, known map[string]bool, server string, f Finding) (Suppressed, bool) {
	if ign != nil {
		for _, ig := range ign.Ignore {
			if ig.matches(server, f) {
				return Suppressed{Server: server, Finding: f, By: "ignore", Reason: ig.Reason}, true
			}
		}
	}
	if known[fingerprint(server, f)] {
		return Suppressed{Server: server, Finding: f, By: "baseline"}, true
	}
	return Suppressed{}, false
}

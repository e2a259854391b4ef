// Package scan is mcpsec's deterministic catalog scanner: it judges a
// server's tool metadata without a model and without the network, grades
// each server, pins catalogs in lockfiles and reports drift against them.
package scan

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Severity orders findings. The zero value is Info.
type Severity int

// Severities from least to most serious.
const (
	Info Severity = iota
	Low
	Medium
	High
	Critical
)

var severityNames = [...]string{"info", "low", "medium", "high", "critical"}

// SeverityNames lists the severity names from least to most serious.
func SeverityNames() []string { return append([]string(nil), severityNames[:]...) }

// String returns the lower-case name used in every output format.
func (s Severity) String() string {
	if s < Info || s > Critical {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// ParseSeverity accepts the lower-case names (case-insensitively).
func ParseSeverity(s string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return Severity(i), nil
		}
	}
	return Info, fmt.Errorf("unknown severity %q (want one of %s)", s, strings.Join(severityNames[:], ", "))
}

// MarshalJSON writes the name, not the number.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads a severity name.
func (s *Severity) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return fmt.Errorf("severity: %w", err)
	}
	v, err := ParseSeverity(name)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// SeverityAtLeast reports whether any finding is at or above min.
func SeverityAtLeast(findings []Finding, min Severity) bool {
	for _, f := range findings {
		if f.Severity >= min {
			return true
		}
	}
	return false
}

// MaxSeverity returns the most serious severity among findings, and false
// when there are none.
func MaxSeverity(findings []Finding) (Severity, bool) {
	if len(findings) == 0 {
		return Info, false
	}
	m := Info
	for _, f := range findings {
		if f.Severity > m {
			m = f.Severity
		}
	}
	return m, true
}

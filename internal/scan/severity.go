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

// signal is one independent kind of evidence that a tool's metadata works
// against the user. Rules declare which kinds a firing shows; a tool's
// findings are then graded by how many kinds agree (agree), so that one
// suspicious sentence is never critical on its own.
type signal uint16

const (
	sigSource   signal = 1 << iota // secrets, local files or conversation content are taken
	sigFlow                        // data is moved into a call, a record or a message
	sigDest                        // an outside destination: address, URL, host
	sigOverride                    // the model's rules or safety are set aside, or its role is switched
	sigConceal                     // something is kept from the user
	sigXTool                       // other tools or servers are acted on
	sigDestruct                    // a destructive step nobody asked for
	sigTamper                      // the user's own content or arguments are altered
	sigPrefer                      // this tool is to be chosen over others by decree
	sigMarkup                      // fake system or chat-template markup, or comments hiding text
	sigHidden                      // text hidden by encoding or invisible characters carries instructions
	sigName                        // the tool's name imitates or collides with another tool
)

var signalNames = []string{"source", "flow", "destination", "override", "concealment", "cross-tool", "destructive", "tampering", "preference", "markup", "hidden", "name"}

func (s signal) count() int {
	n := 0
	for ; s != 0; s &= s - 1 {
		n++
	}
	return n
}

// String lists the kinds, for messages.
func (s signal) String() string {
	var out []string
	for i, n := range signalNames {
		if s&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return strings.Join(out, "+")
}

// agreementSeverity turns the kinds of evidence found on one tool into a
// severity: one kind alone is at most medium; two agreeing kinds are
// high; critical needs three kinds, or a pair that together is the whole
// attack (a secret taken and an outside destination, an override of the
// model's rules and concealment from the user).
func agreementSeverity(s signal) Severity {
	switch {
	case s == 0:
		return Info
	case s.count() >= 3,
		s&sigSource != 0 && s&sigDest != 0,
		s&sigOverride != 0 && s&sigConceal != 0:
		return Critical
	case s.count() == 2:
		return High
	}
	return Medium
}

// agree sets the severity of every finding that carries signals from the
// union of the signals found on the same tool (or the same server-level
// text: instructions, one prompt, one resource). Findings without signals
// (sizes, collisions, lows from decoding) keep theirs.
func agree(fs []Finding) {
	type key struct{ server, tool, scope string }
	scopeOf := func(f Finding) key {
		k := key{server: f.Server, tool: f.Tool}
		if f.Tool == "" {
			seg := strings.SplitN(f.Location, "/", 3)
			k.scope = seg[0]
			if len(seg) > 1 {
				k.scope += "/" + seg[1]
			}
		}
		return k
	}
	union := map[key]signal{}
	weak := map[key]signal{}
	for _, f := range fs {
		if f.signals != 0 {
			if f.weak {
				weak[scopeOf(f)] |= f.signals
			} else {
				union[scopeOf(f)] |= f.signals
			}
		}
	}
	for i := range fs {
		if fs[i].signals == 0 {
			continue
		}
		k := scopeOf(fs[i])
		u := union[k]
		if u == 0 {
			// Only weak evidence: a mention, not a demand. It stays in
			// the report, below the level a tool is flagged at.
			fs[i].Severity = Low
			fs[i].Message = strings.TrimSuffix(fs[i].Message, ".") + " (shown as an example or as what the tool analyses; low unless other evidence on this tool agrees)"
			continue
		}
		u |= weak[k]
		fs[i].Severity = agreementSeverity(u)
		if u != fs[i].signals {
			fs[i].Message = strings.TrimSuffix(fs[i].Message, ".") + " (agreeing evidence on this tool: " + u.String() + ")"
		}
	}
}

package scan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

// Origin is the document one server's definitions were read from.
type Origin struct {
	// URI names the document: a catalog path, a URL, "stdio:NAME".
	URI string
	// Data is the document's bytes; with it, results carry the line and
	// column of the exact JSON value.
	Data []byte
	// Pointer is the JSON Pointer of the server inside Data ("" when the
	// document is the server itself).
	Pointer string
	// Server maps tool, prompt and resource names to their indices.
	Server *catalog.Server
	// ToolSuffix follows "/tools/N" to reach a tool's definition
	// ("/definition" in a lockfile).
	ToolSuffix string
	// Embed says Data is no file the reader has (a live listing): the log
	// then carries it as the artifact's contents.
	Embed bool
}

// SARIFWriter writes a SARIF 2.1.0 log with one run, every rule
// described, and each result pointing at the JSON value it is about.
type SARIFWriter struct {
	// Origins gives each server (by name) its document.
	Origins map[string]Origin
	// ToolVersion is mcpsec's version, recorded in the log.
	ToolVersion string
}

// driftRules describe the drift.* rule ids, which the engine produces
// from a lockfile rather than from text.
var driftRules = []*Rule{
	{ID: "drift.added", Severity: Info, Description: "A tool or server appeared that the lockfile does not pin."},
	{ID: "drift.removed", Severity: Low, Description: "A tool or server the lockfile pins is gone."},
	{ID: "drift.changed", Severity: Low, Description: "A pinned tool's definition changed; severity follows what the change does (poisoning or a new required parameter is high, rewording low, whitespace info)."},
	{ID: "drift.renamed", Severity: Low, Description: "A pinned definition reappeared under a new name."},
	{ID: "drift.paired", Severity: Info, Description: "A server was compared with a lockfile entry of another name: the one named with --server, the same command, URL or configuration entry, or the only server on each side."},
}

func sarifLevel(s Severity) string {
	switch s {
	case Critical, High:
		return "error"
	case Medium:
		return "warning"
	}
	return "note"
}

// securitySeverity is the CVSS-like number GitHub code scanning reads.
func securitySeverity(s Severity) string {
	return [...]string{"0.0", "3.0", "5.5", "8.0", "9.5"}[s]
}

// sarifLog puts version first so that consumers can sniff it.
type sarifLog struct {
	Version string     `json:"version"`
	Schema  string     `json:"$schema"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool       `json:"tool"`
	Properties map[string]any  `json:"properties,omitempty"`
	Artifacts  []sarifArtifact `json:"artifacts,omitempty"`
	Results    []sarifResult   `json:"results"`
}

type sarifArtifact struct {
	Location sarifArtifactLocation `json:"location"`
	Contents *sarifText            `json:"contents,omitempty"`
	MimeType string                `json:"mimeType,omitempty"`
}

type sarifArtifactLocation struct {
	URI   string `json:"uri"`
	Index *int   `json:"index,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	Help                 sarifText      `json:"help"`
	DefaultConfiguration map[string]any `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId"`
	RuleIndex           int                `json:"ruleIndex"`
	Level               string             `json:"level"`
	Message             sarifText          `json:"message"`
	Locations           []sarifLocation    `json:"locations"`
	PartialFingerprints map[string]string  `json:"partialFingerprints"`
	Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
	Properties          map[string]any     `json:"properties"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical  `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

func ruleName(id string) string {
	var b strings.Builder
	up := true
	for _, r := range id {
		if r == '.' || r == '_' {
			up = true
			continue
		}
		if up {
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Write writes the report as SARIF.
func (sw SARIFWriter) Write(w io.Writer, out Output) error {
	rep := out.Report
	held := map[string][]Suppressed{}
	for _, sp := range out.Suppressed {
		held[sp.Server] = append(held[sp.Server], sp)
	}
	all := AllRules()
	index := map[string]int{}
	rules := make([]sarifRule, 0, len(all))
	for i, r := range all {
		index[r.ID] = i
		first := r.Description
		if k := strings.Index(first, ". "); k > 0 {
			first = first[:k+1]
		}
		rules = append(rules, sarifRule{
			ID: r.ID, Name: ruleName(r.ID),
			ShortDescription:     sarifText{first},
			FullDescription:      sarifText{r.Description},
			Help:                 sarifText{r.Help()},
			DefaultConfiguration: map[string]any{"level": sarifLevel(r.Severity)},
			Properties:           map[string]any{"security-severity": securitySeverity(r.Severity), "severity": r.Severity.String(), "tags": []string{"security", "mcp"}},
		})
	}
	positions := map[string]map[string]int64{}
	var artifacts []sarifArtifact
	artifactIndex := map[string]int{}
	results := []sarifResult{}
	for _, s := range rep.Servers {
		org := sw.Origins[s.Name]
		uri := org.URI
		if uri == "" {
			uri = "mcp:" + s.Name
		}
		pos, seen := positions[uri]
		if !seen && len(org.Data) > 0 {
			pos, _ = catalog.Positions(org.Data)
			positions[uri] = pos
			if org.Embed {
				artifactIndex[uri] = len(artifacts)
				artifacts = append(artifacts, sarifArtifact{
					Location: sarifArtifactLocation{URI: uri},
					Contents: &sarifText{string(org.Data)},
					MimeType: "application/json",
				})
			}
		}
		findings := append([]Finding{}, s.Findings...)
		why := make([]*Suppressed, len(findings))
		for i := range held[s.Name] {
			findings = append(findings, held[s.Name][i].Finding)
			why = append(why, &held[s.Name][i])
		}
		for fi, f := range findings {
			ri, ok := index[f.RuleID]
			if !ok {
				ri = -1
			}
			loc := sarifLocation{}
			loc.PhysicalLocation.ArtifactLocation.URI = uri
			if ai, ok := artifactIndex[uri]; ok {
				loc.PhysicalLocation.ArtifactLocation.Index = &ai
			}
			if pos != nil {
				if off, ok := lookupPointer(pos, pointerFor(org, f)); ok {
					line, col := catalog.LineCol(org.Data, off)
					loc.PhysicalLocation.Region = &sarifRegion{StartLine: line, StartColumn: col}
				}
			}
			fq := s.Name
			if f.Tool != "" {
				fq += "/" + f.Tool
			}
			fq += "/" + f.Location
			loc.LogicalLocations = []sarifLogical{{FullyQualifiedName: fq, Kind: "member"}}
			sum := sha256.Sum256([]byte(s.Name + "\x00" + f.Tool + "\x00" + f.RuleID + "\x00" + f.Location))
			msg := f.Message
			if f.Evidence != "" {
				msg += "\nEvidence: " + f.Evidence
			}
			res := sarifResult{
				RuleID: f.RuleID, RuleIndex: ri, Level: sarifLevel(f.Severity),
				Message:             sarifText{msg},
				Locations:           []sarifLocation{loc},
				PartialFingerprints: map[string]string{"mcpsecFinding/v1": hex.EncodeToString(sum[:16])},
				Properties:          map[string]any{"severity": f.Severity.String(), "server": s.Name, "tool": f.Tool, "evidence": f.Evidence, "grade": s.Grade},
			}
			if sp := why[fi]; sp != nil {
				// Held back by a baseline or an ignore file: still in the
				// log, marked as SARIF suppressions are.
				just := "known finding recorded in the baseline"
				if sp.By == "ignore" {
					just = "ignored by the ignore file"
					if sp.Reason != "" {
						just += ": " + sp.Reason
					}
				}
				res.Suppressions = []sarifSuppression{{Kind: "external", Justification: just}}
			}
			results = append(results, res)
		}
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs: []sarifRun{{
			Tool:      sarifTool{Driver: sarifDriver{Name: "mcpsec", Version: sw.ToolVersion, InformationURI: "https://github.com/mcpsec/mcpsec", Rules: rules}},
			Artifacts: artifacts,
			Results:   results,
			Properties: map[string]any{"scanned": out.Scanned, "nothingToScan": out.Scanned.Empty(),
				"suppressed": len(out.Suppressed)},
		}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(log); err != nil {
		return fmt.Errorf("write sarif: %w", err)
	}
	return nil
}

// pointerFor computes the JSON Pointer of a finding inside its server's
// document.
func pointerFor(org Origin, f Finding) string {
	if org.Server == nil {
		return ""
	}
	base := org.Pointer
	srv := org.Server
	if f.Tool == "" {
		loc := f.Location
		for _, kind := range []string{"prompts", "resources"} {
			if rest, ok := strings.CutPrefix(loc, kind+"/"); ok {
				name, tail, _ := strings.Cut(rest, "/")
				idx := -1
				if kind == "prompts" {
					for i, p := range srv.Prompts {
						if p.Name == name {
							idx = i
						}
					}
				} else {
					for i, r := range srv.Resources {
						if r.Name == name {
							idx = i
						}
					}
				}
				if idx >= 0 {
					return base + "/" + kind + "/" + strconv.Itoa(idx) + "/" + tail
				}
			}
		}
		return base + "/" + loc
	}
	for i, t := range srv.Tools {
		if t.Name == f.Tool {
			return base + "/tools/" + strconv.Itoa(i) + org.ToolSuffix + "/" + f.Location
		}
	}
	return base
}

// lookupPointer finds the closest existing ancestor of a pointer.
func lookupPointer(pos map[string]int64, ptr string) (int64, bool) {
	for {
		if off, ok := pos[ptr]; ok {
			return off, true
		}
		i := strings.LastIndex(ptr, "/")
		if i < 0 {
			return 0, false
		}
		ptr = ptr[:i]
	}
}

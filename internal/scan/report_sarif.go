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

// SARIFSource tells the SARIF writer where findings live.
type SARIFSource struct {
	// URI is the artifact the findings point into: the catalog file as
	// given on the command line, or a label URI for live servers.
	URI string
	// Data is the catalog file's bytes; with it, results carry the line
	// and column of the exact JSON value. Nil for live sources.
	Data []byte
	// Catalog maps tool and prompt names to their indices in Data.
	Catalog *catalog.Catalog
	// ServerURIs, when set, give live servers their own artifact URI.
	ServerURIs map[string]string
}

// driftRules describe the drift.* rule ids, which the engine produces
// from a lockfile rather than from text.
var driftRules = []*Rule{
	{ID: "drift.added", Severity: Info, Description: "A tool or server appeared that the lockfile does not pin."},
	{ID: "drift.removed", Severity: Low, Description: "A tool or server the lockfile pins is gone."},
	{ID: "drift.changed", Severity: Low, Description: "A pinned tool's definition changed; severity follows what the change does (poisoning or a new required parameter is high, rewording low, whitespace info)."},
	{ID: "drift.renamed", Severity: Low, Description: "A pinned definition reappeared under a new name."},
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
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
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
	DefaultConfiguration map[string]any `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical  `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations"`
}

type sarifPhysical struct {
	ArtifactLocation struct {
		URI string `json:"uri"`
	} `json:"artifactLocation"`
	Region *sarifRegion `json:"region,omitempty"`
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

// WriteSARIF writes the report as a SARIF 2.1.0 log with one run, every
// rule described, and each result pointing at the JSON value it is about.
func WriteSARIF(w io.Writer, rep Report, src SARIFSource, toolVersion string) error {
	all := append(append([]*Rule{}, Rules...), driftRules...)
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
			DefaultConfiguration: map[string]any{"level": sarifLevel(r.Severity)},
			Properties:           map[string]any{"security-severity": securitySeverity(r.Severity), "severity": r.Severity.String(), "tags": []string{"security", "mcp"}},
		})
	}
	var positions map[string]int64
	bare := false
	if len(src.Data) > 0 {
		positions, _ = catalog.Positions(src.Data)
		bare = bareTools(src.Data)
	}
	results := []sarifResult{}
	for _, s := range rep.Servers {
		for _, f := range s.Findings {
			ri, ok := index[f.RuleID]
			if !ok {
				ri = -1
			}
			loc := sarifLocation{}
			uri := src.URI
			if u, ok := src.ServerURIs[s.Name]; ok {
				uri = u
			}
			if uri == "" {
				uri = "mcp:" + s.Name
			}
			loc.PhysicalLocation.ArtifactLocation.URI = uri
			if positions != nil {
				if off, ok := lookupPointer(positions, pointerFor(src, bare, s.Name, f)); ok {
					line, col := catalog.LineCol(src.Data, off)
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
			results = append(results, res)
		}
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs: []sarifRun{{
			Tool:    sarifTool{Driver: sarifDriver{Name: "mcpsec", Version: toolVersion, InformationURI: "https://github.com/mcpsec/mcpsec", Rules: rules}},
			Results: results,
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

// pointerFor computes the JSON Pointer of a finding inside the catalog
// file: {"tools":[...]} files have tools at the top, multi-server files
// under /servers/N.
func pointerFor(src SARIFSource, bare bool, server string, f Finding) string {
	if src.Catalog == nil {
		return ""
	}
	si := -1
	for i, s := range src.Catalog.Servers {
		if s.Name == server {
			si = i
			break
		}
	}
	if si < 0 {
		return ""
	}
	base := ""
	if !bare {
		base = "/servers/" + strconv.Itoa(si)
	}
	srv := src.Catalog.Servers[si]
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
			return base + "/tools/" + strconv.Itoa(i) + "/" + f.Location
		}
	}
	return base
}

// bareTools reports whether a document is a tools/list result rather
// than a multi-server document.
func bareTools(data []byte) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	_, servers := probe["servers"]
	return !servers
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

package scan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

// LockVersion is the lockfile format version.
const LockVersion = 1

// Lockfile pins a catalog: per server its identity and, per tool, the
// canonical SHA-256 of the full definition, the hash without the name
// (to recognise renames) and the definition itself (to diff later).
type Lockfile struct {
	LockVersion int `json:"lock_version"`
	// Canonicalization documents how hashes were computed, so a reader
	// can recompute them.
	Canonicalization string       `json:"canonicalization"`
	Servers          []LockServer `json:"servers"`
}

// LockServer is one server's pinned identity and tools.
type LockServer struct {
	Name               string     `json:"name"`
	Version            string     `json:"version,omitempty"`
	Instructions       string     `json:"instructions,omitempty"`
	InstructionsSHA256 string     `json:"instructions_sha256,omitempty"`
	Tools              []LockTool `json:"tools"`
}

// LockTool is one pinned tool.
type LockTool struct {
	Name       string       `json:"name"`
	SHA256     string       `json:"sha256"`
	BodySHA256 string       `json:"body_sha256"`
	Definition catalog.Tool `json:"definition"`
}

const canonicalizationNote = "sha256 over JSON with sorted object keys, no insignificant whitespace, shortest numbers, " +
	"\"required\" arrays sorted; tool order is irrelevant; text inside strings is hashed byte for byte (whitespace included)"

func textHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// NewLock pins every server and tool of a catalog. Tools are sorted by
// name so the lockfile does not depend on the order a server lists them.
func NewLock(c *catalog.Catalog) *Lockfile {
	lf := &Lockfile{LockVersion: LockVersion, Canonicalization: canonicalizationNote, Servers: []LockServer{}}
	for _, s := range c.Servers {
		ls := LockServer{Name: s.Name, Version: s.Version, Instructions: s.Instructions, Tools: []LockTool{}}
		if s.Instructions != "" {
			ls.InstructionsSHA256 = textHash(s.Instructions)
		}
		for _, t := range s.Tools {
			ls.Tools = append(ls.Tools, LockTool{Name: t.Name, SHA256: catalog.Fingerprint(t), BodySHA256: catalog.BodyFingerprint(t), Definition: t})
		}
		sort.Slice(ls.Tools, func(i, j int) bool { return ls.Tools[i].Name < ls.Tools[j].Name })
		lf.Servers = append(lf.Servers, ls)
	}
	sort.SliceStable(lf.Servers, func(i, j int) bool { return lf.Servers[i].Name < lf.Servers[j].Name })
	return lf
}

// Write renders the lockfile as indented JSON.
func (lf *Lockfile) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(lf); err != nil {
		return fmt.Errorf("write lockfile: %w", err)
	}
	return nil
}

// ReadLock loads a lockfile, naming the position of any syntax error and
// checking that each pinned hash matches its stored definition.
func ReadLock(path string) (*Lockfile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read lockfile: %w", err)
	}
	return ParseLock(path, data)
}

// ParseLock parses lockfile bytes; name labels errors.
func ParseLock(name string, data []byte) (*Lockfile, error) {
	var lf Lockfile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&lf); err != nil {
		var off int64 = int64(len(data))
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case asErr(err, &se):
			off = se.Offset
			if !strings.Contains(se.Error(), "unexpected end") {
				off = max(0, off-1) // point at the offending byte
			}
		case asErr(err, &te):
			off = te.Offset
		}
		line, col := catalog.LineCol(data, off)
		return nil, &catalog.InputError{File: name, Line: line, Column: col, Offset: off, Msg: "lockfile: " + err.Error()}
	}
	if lf.LockVersion != LockVersion {
		return nil, &catalog.InputError{File: name, Msg: fmt.Sprintf("lockfile: lock_version %d is not supported (want %d)", lf.LockVersion, LockVersion)}
	}
	for i, s := range lf.Servers {
		for j, t := range s.Tools {
			if got := catalog.Fingerprint(t.Definition); got != t.SHA256 {
				return nil, &catalog.InputError{File: name, Msg: fmt.Sprintf("lockfile: servers[%d].tools[%d] (%s/%s): sha256 %s does not match its definition (%s)", i, j, s.Name, t.Name, t.SHA256, got)}
			}
		}
	}
	return &lf, nil
}

// Drift compares a catalog with a lockfile. Findings use rule ids
// drift.added, drift.removed, drift.changed and drift.renamed; a change's
// severity reflects what it does (see driftSeverity).
func Drift(lf *Lockfile, c *catalog.Catalog) []Finding {
	var out []Finding
	locked := map[string]*LockServer{}
	for i := range lf.Servers {
		locked[lf.Servers[i].Name] = &lf.Servers[i]
	}
	present := map[string]bool{}
	for _, s := range c.Servers {
		present[s.Name] = true
		ls, ok := locked[s.Name]
		if !ok {
			out = append(out, Finding{RuleID: "drift.added", Severity: Low, Server: s.Name, Location: "server",
				Message: "server is not in the lockfile", Evidence: s.Name})
			continue
		}
		out = append(out, driftServer(ls, s)...)
	}
	for _, ls := range lf.Servers {
		if !present[ls.Name] {
			out = append(out, Finding{RuleID: "drift.removed", Severity: Low, Server: ls.Name, Location: "server",
				Message: "server is in the lockfile but not in the catalog", Evidence: ls.Name})
		}
	}
	return out
}

func driftServer(ls *LockServer, s catalog.Server) []Finding {
	var out []Finding
	if ls.Instructions != s.Instructions {
		sev, why := textChangeSeverity(s.Name, ls.Instructions, s.Instructions, "instructions")
		out = append(out, Finding{RuleID: "drift.changed", Severity: sev, Server: s.Name, Location: "instructions",
			Message:  "server instructions changed: " + why,
			Evidence: catalog.Change{Path: "instructions", Kind: catalog.ChangeChanged, Old: ls.Instructions, New: s.Instructions}.String()})
	}
	old := map[string]LockTool{}
	for _, t := range ls.Tools {
		old[t.Name] = t
	}
	cur := map[string]catalog.Tool{}
	for _, t := range s.Tools {
		cur[t.Name] = t
	}
	var added []catalog.Tool
	for _, t := range s.Tools {
		lt, ok := old[t.Name]
		if !ok {
			added = append(added, t)
			continue
		}
		if catalog.Fingerprint(t) == lt.SHA256 {
			continue
		}
		out = append(out, changedTool(s.Name, lt.Definition, t))
	}
	var removed []LockTool
	for _, lt := range ls.Tools {
		if _, ok := cur[lt.Name]; !ok {
			removed = append(removed, lt)
		}
	}
	// A removed and an added tool with the same body is a rename.
	for _, t := range added {
		body := catalog.BodyFingerprint(t)
		renamed := false
		for i, lt := range removed {
			if lt.BodySHA256 == body {
				out = append(out, Finding{RuleID: "drift.renamed", Severity: Low, Server: s.Name, Tool: t.Name, Location: "name",
					Message: fmt.Sprintf("tool %q was renamed to %q with an unchanged definition", lt.Name, t.Name), Evidence: lt.Name + " → " + t.Name})
				removed = append(removed[:i], removed[i+1:]...)
				renamed = true
				break
			}
		}
		if renamed {
			continue
		}
		out = append(out, Finding{RuleID: "drift.added", Severity: Info, Server: s.Name, Tool: t.Name, Location: "name",
			Message: "tool is not in the lockfile (its own findings are reported separately)", Evidence: t.Name})
	}
	for _, lt := range removed {
		out = append(out, Finding{RuleID: "drift.removed", Severity: Low, Server: s.Name, Tool: lt.Name, Location: "name",
			Message: "tool is in the lockfile but no longer offered", Evidence: lt.Name})
	}
	return out
}

// changedTool reports one changed definition, with a readable diff and a
// severity that reflects the most serious part of the change.
func changedTool(server string, old, cur catalog.Tool) Finding {
	changes := catalog.Diff(old, cur)
	sev := Info
	var reasons []string
	bump := func(s Severity, why string) {
		if s > sev {
			sev = s
		}
		reasons = append(reasons, why)
	}
	// Poisoning the change introduced.
	before := map[string]bool{}
	for _, f := range ScanTool(server, old) {
		if f.Severity >= Medium {
			before[f.RuleID+"|"+f.Location] = true
		}
	}
	for _, f := range ScanTool(server, cur) {
		if f.Severity >= Medium && !before[f.RuleID+"|"+f.Location] {
			bump(High, fmt.Sprintf("introduces %s at %s", f.RuleID, f.Location))
		}
	}
	oldProps, oldReq := params(old)
	newProps, newReq := params(cur)
	for _, p := range sortedKeys(newProps) {
		if oldProps[p] {
			continue
		}
		if newReq[p] {
			bump(High, fmt.Sprintf("adds required parameter %q", p))
		} else {
			bump(Low, fmt.Sprintf("adds optional parameter %q", p))
		}
	}
	for _, p := range sortedKeys(newReq) {
		if oldProps[p] && !oldReq[p] {
			bump(Medium, fmt.Sprintf("makes parameter %q required", p))
		}
	}
	for _, p := range sortedKeys(oldProps) {
		if !newProps[p] {
			bump(Low, fmt.Sprintf("removes parameter %q", p))
		}
	}
	for _, ch := range changes {
		switch {
		case strings.HasPrefix(ch.Path, "annotations/"):
			if (strings.HasSuffix(ch.Path, "readOnlyHint") && ch.New != true) || (strings.HasSuffix(ch.Path, "destructiveHint") && ch.New == true) ||
				(strings.HasSuffix(ch.Path, "openWorldHint") && ch.New == true) {
				bump(Medium, "annotation "+ch.Path+" now allows more")
			} else {
				bump(Low, "annotation "+ch.Path+" changed")
			}
		case ch.Kind == catalog.ChangeChanged:
			o, ok1 := ch.Old.(string)
			n, ok2 := ch.New.(string)
			if ok1 && ok2 && strings.Join(strings.Fields(o), " ") == strings.Join(strings.Fields(n), " ") {
				bump(Info, ch.Path+" changed only in whitespace")
			} else if ok1 && ok2 {
				bump(Low, ch.Path+" reworded")
			} else {
				bump(Low, ch.Path+" changed")
			}
		}
	}
	if len(reasons) == 0 {
		reasons = append(reasons, "definition changed")
	}
	lines := make([]string, 0, len(changes))
	for _, ch := range changes {
		lines = append(lines, ch.String())
	}
	return Finding{RuleID: "drift.changed", Severity: sev, Server: server, Tool: cur.Name, Location: firstPath(changes),
		Message: "definition changed since the lockfile: " + strings.Join(dedupeStrings(reasons), "; "), Evidence: strings.Join(lines, "\n")}
}

func textChangeSeverity(server, old, cur, loc string) (Severity, string) {
	before := map[string]bool{}
	sc := &scanner{names: newNameIndex(nil)}
	for _, f := range sc.scanUnit(server, "", unit{"description", loc, old}, "") {
		if f.Severity >= Medium {
			before[f.RuleID] = true
		}
	}
	for _, f := range sc.scanUnit(server, "", unit{"description", loc, cur}, "") {
		if f.Severity >= Medium && !before[f.RuleID] {
			return High, "introduces " + f.RuleID
		}
	}
	if strings.Join(strings.Fields(old), " ") == strings.Join(strings.Fields(cur), " ") {
		return Info, "whitespace only"
	}
	return Low, "reworded"
}

func params(t catalog.Tool) (props, required map[string]bool) {
	props, required = map[string]bool{}, map[string]bool{}
	if p, ok := t.InputSchema["properties"].(map[string]any); ok {
		for k := range p {
			props[k] = true
		}
	}
	switch r := t.InputSchema["required"].(type) {
	case []any:
		for _, e := range r {
			if s, ok := e.(string); ok {
				required[s] = true
			}
		}
	case []string:
		for _, s := range r {
			required[s] = true
		}
	}
	return props, required
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func firstPath(ch []catalog.Change) string {
	if len(ch) == 0 {
		return "definition"
	}
	return ch[0].Path
}

func dedupeStrings(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

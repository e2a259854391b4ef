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
	"strconv"
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

	// bind pairs catalog servers with lockfile entries the caller named
	// (scan --server); ids say how each catalog server was reached.
	bind map[string]string
	ids  map[string]Identity
}

// Identity says how a server was reached, so the same server compares
// with its lockfile entry whatever name it goes by: a --stdio command
// and the same command in a client configuration are one server.
type Identity struct {
	// Command is the argv of a server mcpsec started.
	Command []string `json:"command,omitempty"`
	// URL is the endpoint of an HTTP server.
	URL string `json:"url,omitempty"`
	// ConfigEntry is the name of its client configuration entry.
	ConfigEntry string `json:"config_entry,omitempty"`
}

func (id Identity) empty() bool { return len(id.Command) == 0 && id.URL == "" && id.ConfigEntry == "" }

// same reports whether two identities name one server: the same command
// line, the same URL, or the same configuration entry.
func (id Identity) same(o Identity) bool {
	switch {
	case len(id.Command) > 0 && len(o.Command) > 0:
		return strings.Join(id.Command, "\x00") == strings.Join(o.Command, "\x00")
	case id.URL != "" && o.URL != "":
		return id.URL == o.URL
	case id.ConfigEntry != "" && o.ConfigEntry != "":
		return id.ConfigEntry == o.ConfigEntry
	}
	return false
}

// Bind makes the catalog server named server compare with the lockfile
// entry named entry, whatever their names (scan --server).
func (lf *Lockfile) Bind(server, entry string) {
	if lf.bind == nil {
		lf.bind = map[string]string{}
	}
	lf.bind[server] = entry
}

// Identify records how the catalog server named server was reached;
// NewLock's caller uses SetIdentity for the same purpose on the way in.
func (lf *Lockfile) Identify(server string, id Identity) {
	if lf.ids == nil {
		lf.ids = map[string]Identity{}
	}
	lf.ids[server] = id
}

// SetIdentity pins how the lockfile's server named name was reached.
func (lf *Lockfile) SetIdentity(name string, id Identity) {
	for i := range lf.Servers {
		if lf.Servers[i].Name == name && !id.empty() {
			v := id
			lf.Servers[i].Source = &v
		}
	}
}

// HasEntry reports whether the lockfile pins a server of that name.
func (lf *Lockfile) HasEntry(name string) bool {
	for _, s := range lf.Servers {
		if s.Name == name {
			return true
		}
	}
	return false
}

// LockServer is one server's pinned identity and tools.
type LockServer struct {
	Name               string `json:"name"`
	Version            string `json:"version,omitempty"`
	Instructions       string `json:"instructions,omitempty"`
	InstructionsSHA256 string `json:"instructions_sha256,omitempty"`
	// Source says how the server was reached when it was locked.
	Source *Identity  `json:"source,omitempty"`
	Tools  []LockTool `json:"tools"`
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
		// Ties (a server listing one name twice) are ordered by hash so
		// the lockfile does not depend on listing order either.
		sort.Slice(ls.Tools, func(i, j int) bool {
			a, b := ls.Tools[i], ls.Tools[j]
			if a.Name != b.Name {
				return a.Name < b.Name
			}
			return a.SHA256 < b.SHA256
		})
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
//
// Catalog servers are paired with lockfile entries in this order: an
// explicit Bind, the same name, the same Identity (command, URL or
// configuration entry), and finally, when exactly one server is left on
// each side, with each other. Pairings other than by name are reported as
// drift.paired findings so the output says what was compared with what.
func Drift(lf *Lockfile, c *catalog.Catalog) []Finding {
	var out []Finding
	entry := map[string]int{}
	for i := range lf.Servers {
		entry[lf.Servers[i].Name] = i
	}
	pair := make([]int, len(c.Servers)) // catalog server -> lockfile index
	used := make([]bool, len(lf.Servers))
	why := make([]string, len(c.Servers))
	for i := range pair {
		pair[i] = -1
	}
	take := func(ci, li int, reason string) {
		pair[ci], used[li], why[ci] = li, true, reason
	}
	for ci, s := range c.Servers {
		if name, ok := lf.bind[s.Name]; ok {
			if li, ok := entry[name]; ok && !used[li] {
				take(ci, li, fmt.Sprintf("compared with lockfile server %q as asked (--server)", name))
			}
		}
	}
	for ci, s := range c.Servers {
		if li, ok := entry[s.Name]; ok && pair[ci] < 0 && !used[li] {
			take(ci, li, "")
		}
	}
	for ci, s := range c.Servers {
		id, ok := lf.ids[s.Name]
		if pair[ci] >= 0 || !ok {
			continue
		}
		for li, ls := range lf.Servers {
			if !used[li] && ls.Source != nil && id.same(*ls.Source) {
				take(ci, li, fmt.Sprintf("compared with lockfile server %q: the same server (%s)", ls.Name, describeIdentity(*ls.Source)))
				break
			}
		}
	}
	var freeC, freeL []int
	for ci := range c.Servers {
		if pair[ci] < 0 {
			freeC = append(freeC, ci)
		}
	}
	for li := range lf.Servers {
		if !used[li] {
			freeL = append(freeL, li)
		}
	}
	if len(freeC) == 1 && len(freeL) == 1 && len(c.Servers) == 1 && len(lf.Servers) == 1 {
		take(freeC[0], freeL[0], fmt.Sprintf("compared with lockfile server %q: the only server on each side", lf.Servers[freeL[0]].Name))
		freeC, freeL = nil, nil
	}
	names := func(idx []int, name func(int) string) string {
		if len(idx) == 0 {
			return "none unmatched"
		}
		var ns []string
		for _, i := range idx {
			ns = append(ns, strconv.Quote(name(i)))
		}
		return strings.Join(ns, ", ")
	}
	for ci, s := range c.Servers {
		li := pair[ci]
		if li < 0 {
			out = append(out, Finding{RuleID: "drift.added", Severity: Low, Server: s.Name, Location: "server",
				Message: fmt.Sprintf("server %q is not in the lockfile (lockfile servers left unmatched: %s)", s.Name,
					names(freeL, func(i int) string { return lf.Servers[i].Name })),
				Evidence: s.Name})
			continue
		}
		if why[ci] != "" {
			out = append(out, Finding{RuleID: "drift.paired", Severity: Info, Server: s.Name, Location: "server",
				Message: why[ci], Evidence: lf.Servers[li].Name + " ↔ " + s.Name})
		}
		out = append(out, driftServer(&lf.Servers[li], s)...)
	}
	for _, li := range freeL {
		ls := lf.Servers[li]
		out = append(out, Finding{RuleID: "drift.removed", Severity: Low, Server: ls.Name, Location: "server",
			Message: fmt.Sprintf("lockfile server %q has no match in the catalog (catalog servers left unmatched: %s)", ls.Name,
				names(freeC, func(i int) string { return c.Servers[i].Name })),
			Evidence: ls.Name})
	}
	return out
}

func describeIdentity(id Identity) string {
	switch {
	case len(id.Command) > 0:
		return "command " + strings.Join(id.Command, " ")
	case id.URL != "":
		return "URL " + id.URL
	}
	return "configuration entry " + id.ConfigEntry
}

func driftServer(ls *LockServer, s catalog.Server) []Finding {
	var out []Finding
	if ls.Instructions != s.Instructions {
		sev, why := textChangeSeverity(s.Name, ls.Instructions, s.Instructions, "instructions")
		out = append(out, Finding{RuleID: "drift.changed", Severity: sev, Server: s.Name, Location: "instructions",
			Message:  "server instructions changed: " + why,
			Evidence: catalog.Change{Path: "instructions", Kind: catalog.ChangeChanged, Old: ls.Instructions, New: s.Instructions}.String()})
	}
	// Tools pair by name; a name listed twice pairs identical
	// definitions first, so a lockfile agrees with the very catalog it was
	// made from whatever order the duplicates come in.
	oldByName := map[string][]int{}
	for i, t := range ls.Tools {
		oldByName[t.Name] = append(oldByName[t.Name], i)
	}
	usedOld := make([]bool, len(ls.Tools))
	matched := make([]int, len(s.Tools))
	for i, t := range s.Tools {
		matched[i] = -1
		fp := catalog.Fingerprint(t)
		for _, oi := range oldByName[t.Name] {
			if !usedOld[oi] && ls.Tools[oi].SHA256 == fp {
				usedOld[oi], matched[i] = true, oi
				break
			}
		}
	}
	var added []catalog.Tool
	for i, t := range s.Tools {
		if matched[i] >= 0 {
			continue
		}
		oi := -1
		for _, o := range oldByName[t.Name] {
			if !usedOld[o] {
				oi = o
				break
			}
		}
		if oi < 0 {
			added = append(added, t)
			continue
		}
		usedOld[oi] = true
		out = append(out, changedTool(s.Name, ls.Tools[oi].Definition, t))
	}
	var removed []LockTool
	for i, lt := range ls.Tools {
		if !usedOld[i] {
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

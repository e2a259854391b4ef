package scan

import (
	_ "embed"
	"fmt"
	"html"
	"html/template"
	"io"
	"sort"
	"strings"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

//go:embed report_html.tmpl
var scanHTMLText string

var scanHTMLTemplate = template.Must(template.New("scan").Parse(scanHTMLText))

// HTMLWriter writes the scan report as one self-contained HTML page. It
// needs, besides the findings, the catalog they were found in (to show
// each finding's evidence inside the text it came from) and the lockfile,
// when drift was checked (to show what changed).
type HTMLWriter struct {
	Catalog *catalog.Catalog
	Lock    *Lockfile
	// Version is mcpsec's version, printed in the page's footer.
	Version string
}

type htmlPage struct {
	Servers  []htmlServer
	Total    int
	Counts   []htmlCount
	Locked   bool
	Version  string
	Severity []string
}

type htmlCount struct {
	Severity string
	N        int
}

type htmlServer struct {
	Name, Grade string
	Score       int
	Counts      []htmlCount
	Groups      []htmlGroup
	Clean       []string
	Drift       []htmlDrift
}

type htmlGroup struct {
	Tool     string // "" for server-level findings
	Worst    string
	Findings []htmlFinding
}

type htmlFinding struct {
	RuleID, Severity, Tool, Location, Message string
	Context                                   template.HTML
	Found                                     bool
}

type htmlDrift struct {
	RuleID, Severity, Tool, Message string
	Changes                         []htmlChange
	Evidence                        template.HTML
}

type htmlChange struct {
	Path, Kind string
	Diff       template.HTML
}

// Write renders the page: each server's grade, its findings grouped by
// tool with the evidence marked inside the text it matched (hidden
// characters shown as code points), and, with a lockfile, the word-level
// diff of every drifted definition. The page has no script and fetches
// nothing.
func (in HTMLWriter) Write(w io.Writer, out Output) error {
	rep := out.Report
	p := htmlPage{Locked: in.Lock != nil, Version: in.Version}
	total := map[Severity]int{}
	for _, s := range rep.Servers {
		var srv *catalog.Server
		if in.Catalog != nil {
			for i := range in.Catalog.Servers {
				if in.Catalog.Servers[i].Name == s.Name {
					srv = &in.Catalog.Servers[i]
					break
				}
			}
		}
		hs := htmlServer{Name: s.Name, Grade: s.Grade, Score: s.Score}
		counts := map[Severity]int{}
		groups := map[string]*htmlGroup{}
		var order []string
		flagged := map[string]bool{}
		for _, f := range s.Findings {
			counts[f.Severity]++
			total[f.Severity]++
			flagged[f.Tool] = true
			if strings.HasPrefix(f.RuleID, "drift.") {
				hs.Drift = append(hs.Drift, driftView(f, srv, s.Name, in.Lock))
				continue
			}
			g := groups[f.Tool]
			if g == nil {
				g = &htmlGroup{Tool: f.Tool, Worst: f.Severity.String()}
				groups[f.Tool] = g
				order = append(order, f.Tool)
			}
			if sev, err := ParseSeverity(g.Worst); err == nil && f.Severity > sev {
				g.Worst = f.Severity.String()
			}
			ctx, found := evidenceInContext(fieldText(srv, f.Tool, f.Location), f.Evidence)
			g.Findings = append(g.Findings, htmlFinding{RuleID: f.RuleID, Severity: f.Severity.String(), Tool: f.Tool,
				Location: f.Location, Message: f.Message, Context: ctx, Found: found})
		}
		// Server-level findings first, then tools by name.
		sort.SliceStable(order, func(i, j int) bool {
			if (order[i] == "") != (order[j] == "") {
				return order[i] == ""
			}
			return order[i] < order[j]
		})
		for _, t := range order {
			hs.Groups = append(hs.Groups, *groups[t])
		}
		if srv != nil {
			for _, t := range srv.Tools {
				if !flagged[t.Name] {
					hs.Clean = append(hs.Clean, t.Name)
				}
			}
			sort.Strings(hs.Clean)
		}
		hs.Counts = countList(counts)
		p.Servers = append(p.Servers, hs)
	}
	for _, n := range total {
		p.Total += n
	}
	p.Counts = countList(total)
	if err := scanHTMLTemplate.Execute(w, p); err != nil {
		return fmt.Errorf("write HTML report: %w", err)
	}
	return nil
}

func countList(m map[Severity]int) []htmlCount {
	var out []htmlCount
	for sev := Critical; sev >= Info; sev-- {
		if m[sev] > 0 {
			out = append(out, htmlCount{sev.String(), m[sev]})
		}
	}
	return out
}

// fieldText returns the text a finding's location points at: a server's
// instructions, a prompt's description, or a path into a tool definition.
func fieldText(srv *catalog.Server, tool, loc string) string {
	if srv == nil {
		return ""
	}
	if tool == "" {
		if loc == "instructions" {
			return srv.Instructions
		}
		if name, ok := strings.CutPrefix(loc, "prompts/"); ok {
			name = strings.TrimSuffix(name, "/description")
			for _, p := range srv.Prompts {
				if p.Name == name {
					return p.Description
				}
			}
		}
		return ""
	}
	for _, t := range srv.Tools {
		if t.Name == tool {
			if s, ok := lookup(catalog.ToMap(t), loc).(string); ok {
				return s
			}
			return ""
		}
	}
	return ""
}

func lookup(v any, path string) any {
	if path == "" {
		return v
	}
	for _, seg := range strings.Split(path, "/") {
		switch x := v.(type) {
		case map[string]any:
			v = x[seg]
		case []any:
			var i int
			if _, err := fmt.Sscanf(seg, "%d", &i); err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// maxContext bounds the text shown around a piece of evidence.
const maxContext = 1200

var hiddenMark = lazyRE(`&lt;U\+([0-9A-F]{4,6})&gt;`)

// showHidden turns the scanner's <U+XXXX> notation (already escaped) into
// a highlighted mark, so hidden characters stand out on the page.
func showHidden(escaped string) string {
	return hiddenMark.ReplaceAllString(escaped, `<span class="hidden-char" title="hidden character">U+$1</span>`)
}

// evidenceInContext renders the field text with the evidence marked where
// it matched. The evidence is in the scanner's visible form, so the field
// is rendered the same way before searching. When the evidence is not a
// plain substring (it was normalised or decoded before matching), the
// evidence alone is shown, marked.
func evidenceInContext(field, evidence string) (template.HTML, bool) {
	ev := strings.TrimSuffix(strings.TrimSpace(evidence), "…")
	vis := visible(field)
	i := -1
	if ev != "" {
		i = strings.Index(vis, ev)
	}
	if i < 0 {
		return template.HTML(`<mark>` + showHidden(html.EscapeString(evidence)) + `</mark>`), false
	}
	before, match, after := vis[:i], vis[i:i+len(ev)], vis[i+len(ev):]
	if len(before) > maxContext/2 {
		before = "…" + trimLeft(before, maxContext/2)
	}
	if len(after) > maxContext/2 {
		after = trimRight(after, maxContext/2) + "…"
	}
	return template.HTML(showHidden(html.EscapeString(before)) + `<mark>` + showHidden(html.EscapeString(match)) + `</mark>` +
		showHidden(html.EscapeString(after))), true
}

// trimLeft keeps the last n bytes of s, on a rune boundary.
func trimLeft(s string, n int) string {
	cut := len(s) - n
	for cut < len(s) && cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut++
	}
	return s[cut:]
}

// trimRight keeps the first n bytes of s, on a rune boundary.
func trimRight(s string, n int) string {
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut]
}

// driftView shows a drift finding; a changed tool gets the diff of its
// pinned and current definitions, field by field.
func driftView(f Finding, srv *catalog.Server, server string, lock *Lockfile) htmlDrift {
	d := htmlDrift{RuleID: f.RuleID, Severity: f.Severity.String(), Tool: f.Tool, Message: f.Message,
		Evidence: template.HTML(showHidden(html.EscapeString(visible(f.Evidence))))}
	if f.RuleID != "drift.changed" || lock == nil || srv == nil {
		return d
	}
	if f.Tool == "" && f.Location == "instructions" {
		for _, ls := range lock.Servers {
			if ls.Name == server {
				d.Changes = append(d.Changes, htmlChange{Path: "instructions", Kind: catalog.ChangeChanged, Diff: wordDiff(ls.Instructions, srv.Instructions)})
			}
		}
		return d
	}
	var old, cur *catalog.Tool
	for _, ls := range lock.Servers {
		if ls.Name != server {
			continue
		}
		for i := range ls.Tools {
			if ls.Tools[i].Name == f.Tool {
				old = &ls.Tools[i].Definition
			}
		}
	}
	for i := range srv.Tools {
		if srv.Tools[i].Name == f.Tool {
			cur = &srv.Tools[i]
		}
	}
	if old == nil || cur == nil {
		return d
	}
	for _, ch := range catalog.Diff(*old, *cur) {
		hc := htmlChange{Path: ch.Path, Kind: ch.Kind}
		o, ok1 := ch.Old.(string)
		n, ok2 := ch.New.(string)
		switch {
		case ok1 && ok2:
			hc.Diff = wordDiff(o, n)
		default:
			var b strings.Builder
			if ch.Old != nil {
				b.WriteString(`<del>` + showHidden(html.EscapeString(visible(string(catalog.CanonicalValue(ch.Old))))) + `</del> `)
			}
			if ch.New != nil {
				b.WriteString(`<ins>` + showHidden(html.EscapeString(visible(string(catalog.CanonicalValue(ch.New))))) + `</ins>`)
			}
			hc.Diff = template.HTML(b.String())
		}
		d.Changes = append(d.Changes, hc)
	}
	return d
}

// maxDiffTokens bounds the word diff (quadratic in the tokens); longer
// texts are shown as a whole before and after.
const maxDiffTokens = 3000

var tokenRE = lazyRE(`\s+|[^\s]+`)

// wordDiff marks removed words with <del> and added words with <ins>,
// using a longest common subsequence over words and whitespace runs.
func wordDiff(old, cur string) template.HTML {
	a := tokenRE.FindAllString(visible(old), -1)
	b := tokenRE.FindAllString(visible(cur), -1)
	esc := func(s string) string { return showHidden(html.EscapeString(s)) }
	// A change of whitespace alone would be an invisible mark: show the
	// spaces, tabs and line breaks it added or removed.
	ws := strings.NewReplacer(" ", "·", "\t", "→", "\n", "↵\n")
	escWS := func(s string) string {
		if strings.TrimSpace(s) == "" {
			return ws.Replace(s)
		}
		return esc(s)
	}
	if len(a) > maxDiffTokens || len(b) > maxDiffTokens {
		return template.HTML(`<del>` + esc(visible(old)) + `</del><br><ins>` + esc(visible(cur)) + `</ins>`)
	}
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	lcs := make([][]int32, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	var del, ins strings.Builder
	flush := func() {
		if del.Len() > 0 {
			out.WriteString(`<del>` + escWS(del.String()) + `</del>`)
			del.Reset()
		}
		if ins.Len() > 0 {
			out.WriteString(`<ins>` + escWS(ins.String()) + `</ins>`)
			ins.Reset()
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			flush()
			out.WriteString(esc(a[i]))
			i++
			j++
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			ins.WriteString(b[j])
			j++
		default:
			del.WriteString(a[i])
			i++
		}
	}
	flush()
	return template.HTML(out.String())
}

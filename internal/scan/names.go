package scan

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

// Look-alike names beyond confusable letters: a name padded with invisible
// characters or stray separators, a one-keystroke typo of another
// server's tool, a separator swap that the tool's own text admits is a
// copy, and a client's namespacing prefix worn by a server. Each imitates
// another tool's identity, so the model may call it in that tool's place.

// clientPrefix is how clients namespace tools of a server ("mcp__fs__read");
// a server that names its own tool that way poses as another server.
const clientPrefix = "mcp__"

// nameCore strips invisible and format characters and leading or trailing
// separators: what a reader of the name sees.
func nameCore(name string) string {
	s := strings.Map(func(r rune) rune {
		if isZeroWidth(r) || isBidi(r) || isTag(r) || isVariationSelector(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) {
			return -1
		}
		return r
	}, name)
	return strings.Trim(s, "_-.")
}

// oneEdit reports whether b is a with one character inserted, deleted, or
// two neighbours swapped: the typos a squatter registers. Substitutions are
// left to the confusable skeleton; a trailing "s" is a plural, not a typo.
func oneEdit(a, b string) bool {
	if a == b {
		return false
	}
	if len(a) == len(b) {
		d := -1
		for i := 0; i < len(a); i++ {
			if a[i] != b[i] {
				if d >= 0 {
					return i == d+1 && a[d] == b[i] && a[i] == b[d] && (i+1 == len(a) || a[i+1:] == b[i+1:])
				}
				d = i
			}
		}
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b) != len(a)+1 {
		return false
	}
	if strings.HasPrefix(b, a) && (b[len(b)-1] == 's' || b[len(b)-1] == '_' || b[len(b)-1] >= '0' && b[len(b)-1] <= '9') {
		return false
	}
	for i := 0; i < len(a); i++ {
		if a[i] != b[i] {
			return a[i:] == b[i+1:] && unicode.IsLetter(rune(b[i]))
		}
	}
	return false
}

// lookalikeNames adds impersonation findings for names that imitate a tool
// of another server of the catalog or a well-known tool.
func lookalikeNames(c *catalog.Catalog, rep *Report) {
	type ref struct{ server, name string }
	byFold := map[string][]ref{}
	for _, s := range c.Servers {
		for _, t := range s.Tools {
			f := strings.ToLower(t.Name)
			byFold[f] = append(byFold[f], ref{s.Name, t.Name})
		}
	}
	// dels maps every name with one character deleted to the names it
	// came from, so one-keystroke neighbours are found by lookup rather
	// than by comparing every pair of a 10,000-tool catalog.
	// Neighbours only matter on another server: a catalog whose tools all
	// sit on servers of one name skips building and probing them.
	serverNames := map[string]bool{}
	for _, s := range c.Servers {
		serverNames[s.Name] = true
	}
	manyServers := len(serverNames) > 1
	dels := map[string][]string{}
	for f := range byFold {
		if len(f) < 8 || !manyServers {
			continue
		}
		for i := range len(f) {
			k := f[:i] + f[i+1:]
			dels[k] = append(dels[k], f)
		}
	}
	neighbours := func(low string) []string {
		var out []string
		if _, ok := byFold[low]; ok && len(dels[low]) > 0 {
			out = append(out, dels[low]...) // one character longer
		} else {
			out = append(out, dels[low]...)
		}
		for i := range len(low) {
			k := low[:i] + low[i+1:]
			if _, ok := byFold[k]; ok {
				out = append(out, k) // one character shorter
			}
			if i+1 < len(low) {
				sw := low[:i] + string(low[i+1]) + string(low[i]) + low[i+2:]
				if _, ok := byFold[sw]; ok {
					out = append(out, sw)
				}
			}
		}
		sort.Strings(out)
		return out
	}
	imp := RuleByID("xtool.impersonation")
	idx := map[string]int{}
	for i, s := range rep.Servers {
		idx[s.Name] = i
	}
	add := func(server, tool, why, other string) {
		i, ok := idx[server]
		if !ok {
			return
		}
		rep.Servers[i].Findings = append(rep.Servers[i].Findings, Finding{
			RuleID: imp.ID, Severity: imp.Severity, Server: server, Tool: tool, Location: "name", signals: imp.Signals,
			Message: "tool name " + why, Evidence: visible(tool) + " ≈ " + other,
		})
	}
	// other finds a tool named n on a server other than srv, or a
	// well-known tool of that name.
	other := func(n, srv string) (string, bool) {
		for _, r := range byFold[strings.ToLower(n)] {
			if r.server != srv {
				return fmt.Sprintf("%q of server %q", r.name, r.server), true
			}
		}
		for _, k := range wellKnownTools {
			if strings.EqualFold(k, n) && strings.ContainsAny(k, "_-") {
				return fmt.Sprintf("the well-known tool %q", k), true
			}
		}
		return "", false
	}
	for _, s := range c.Servers {
		for _, t := range s.Tools {
			name := t.Name
			if rest, ok := strings.CutPrefix(strings.ToLower(name), clientPrefix); ok && strings.Contains(rest, "__") {
				owner := rest[:strings.Index(rest, "__")]
				if !strings.EqualFold(owner, s.Name) {
					add(s.Name, name, fmt.Sprintf("wears a client's prefix for server %q, posing as that server's tool", owner), rest[strings.Index(rest, "__")+2:])
					continue
				}
			}
			if core := nameCore(name); core != name && core != "" {
				if o, ok := other(core, s.Name); ok {
					add(s.Name, name, "copies "+o+" with extra invisible characters or separators", core)
					continue
				}
			}
			low := strings.ToLower(name)
			if len(low) >= 8 && strings.ContainsAny(low, "_-") {
				found := false
				var near []string
				if manyServers {
					near = neighbours(low)
				}
				for _, f := range near {
					if len(f) < 8 || !oneEdit(low, f) {
						continue
					}
					for _, r := range byFold[f] {
						if r.server != s.Name {
							add(s.Name, name, fmt.Sprintf("is one keystroke from %q of server %q", r.name, r.server), r.name)
							found = true
							break
						}
					}
					if found {
						break
					}
				}
				if found {
					continue
				}
				for _, k := range wellKnownTools {
					if len(k) >= 8 && strings.ContainsAny(k, "_-") && oneEdit(low, k) {
						add(s.Name, name, fmt.Sprintf("is one keystroke from the well-known tool %q", k), k)
						found = true
						break
					}
				}
				if found {
					continue
				}
			}
			// A separator swap (run-query beside run_query) is a copy when
			// the tool's own text names the tool it copies.
			swapped := strings.NewReplacer("-", "_", "_", "-").Replace(name)
			if swapped != name {
				for _, r := range byFold[strings.ToLower(swapped)] {
					if r.server != s.Name && strings.Contains(t.Description, r.name) {
						add(s.Name, name, fmt.Sprintf("swaps the separators of %q of server %q and its description names that tool", r.name, r.server), r.name)
						break
					}
				}
			}
		}
	}
}

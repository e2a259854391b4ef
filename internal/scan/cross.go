package scan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

// wellKnownTools are names of widely deployed tools (official reference
// servers and popular clients) that a look-alike name would impersonate.
var wellKnownTools = []string{
	"read_file", "read_text_file", "read_multiple_files", "write_file", "edit_file", "create_directory", "list_directory",
	"directory_tree", "move_file", "search_files", "get_file_info", "list_allowed_directories", "create_entities",
	"create_relations", "add_observations", "delete_entities", "read_graph", "search_nodes", "open_nodes", "fetch",
	"echo", "get_env", "create_issue", "create_pull_request", "get_file_contents", "push_files", "search_repositories",
	"send_email", "send_message", "slack_post_message", "execute_command", "run_command", "run_terminal_cmd", "bash",
	"shell", "web_search", "browser_navigate", "browser_click", "git_commit", "git_push", "query", "transfer_funds",
	"get_balance", "list_tables", "execute_sql", "sequentialthinking",
}

// skeleton folds a name to what it looks like: case, separators,
// look-alike letters and digit stand-ins all collapse.
func skeleton(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if c, ok := confusables[r]; ok {
			r = c
		}
		r = baseLetter(r)
		r = []rune(strings.ToLower(string(r)))[0]
		switch r {
		case '_', '-', '.', ' ':
			continue
		case '0':
			r = 'o'
		case '1', 'i', '|', '!':
			r = 'l'
		case '3':
			r = 'e'
		case '4', '@':
			r = 'a'
		case '5', '$':
			r = 's'
		case '7':
			r = 't'
		}
		b.WriteRune(r)
	}
	s := strings.ReplaceAll(b.String(), "rn", "m")
	return strings.ReplaceAll(s, "vv", "w")
}

// plainLetters is the name with separators removed and case folded: two
// names that differ only in separators or case are not look-alikes.
func plainLetters(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || r == ' ' {
			return -1
		}
		return r
	}, strings.ToLower(name))
}

var wellKnownSkeletons = func() map[string]string {
	m := map[string]string{}
	for _, n := range wellKnownTools {
		m[skeleton(n)] = n
	}
	return m
}()

// impersonation flags a name that looks like a well-known tool's without
// being it.
func impersonation(server, name string) []Finding {
	known, ok := wellKnownSkeletons[skeleton(name)]
	if !ok || plainLetters(known) == plainLetters(name) {
		return nil
	}
	r := RuleByID("xtool.impersonation")
	return []Finding{{RuleID: r.ID, Severity: r.Severity, Server: server, Tool: name, Location: "name",
		Message:  fmt.Sprintf("tool name looks like the well-known tool %q but is spelled differently", known),
		Evidence: visible(name) + " ≈ " + known}}
}

// decorations are words an impersonating tool adds to a real tool's name
// to look like a better or official version of it ("send_email_secure",
// "read_file_v2"). Ordinary qualifiers (latest, new, all) are not here:
// honest servers use them for tools of their own.
var decorations = map[string]bool{
	"v2": true, "v3": true, "2": true, "secure": true, "safe": true, "official": true, "real": true, "original": true,
	"updated": true, "fixed": true, "enhanced": true, "improved": true, "better": true, "pro": true, "plus": true,
	"premium": true, "verified": true, "trusted": true, "ultra": true, "super": true, "advanced": true, "genuine": true,
}

// undecorated strips impersonation decorations from both ends of a tool
// name, returning the bare name and whether anything was stripped.
func undecorated(name string) (string, bool) {
	words := identWordsOf(name)
	start, end := 0, len(words)
	for start < end && decorations[words[start]] {
		start++
	}
	for end > start && decorations[words[end-1]] {
		end--
	}
	// "read_file2": a digit glued to the last word.
	if end > start && end == len(words) && start == 0 {
		last := words[end-1]
		if n := len(last); n > 2 && last[n-1] >= '2' && last[n-1] <= '9' && !(last[n-2] >= '0' && last[n-2] <= '9') {
			words = append(append([]string{}, words[:end-1]...), last[:n-1])
			return strings.Join(words, ""), true
		}
	}
	if start == 0 && end == len(words) || start == end {
		return "", false
	}
	return strings.Join(words[start:end], ""), true
}

// wellKnownPlain maps the letters of well-known multi-word tool names to
// the name; single words (fetch, query, shell) are too common to imitate.
var wellKnownPlain = func() map[string]string {
	m := map[string]string{}
	for _, n := range wellKnownTools {
		if strings.ContainsAny(n, "_-") {
			m[plainLetters(n)] = n
		}
	}
	return m
}()

// decoratedImpersonation flags "send_email_secure" next to a well-known
// send_email.
func decoratedImpersonation(server, name string) []Finding {
	bare, ok := undecorated(name)
	if !ok {
		return nil
	}
	known, ok := wellKnownPlain[bare]
	if !ok || plainLetters(known) == plainLetters(name) {
		return nil
	}
	r := RuleByID("xtool.impersonation")
	return []Finding{{RuleID: r.ID, Severity: r.Severity, Server: server, Tool: name, Location: "name", signals: r.Signals,
		Message:  fmt.Sprintf("tool name dresses up the well-known tool %q as a better or official version", known),
		Evidence: visible(name) + " ≈ " + known}}
}

// duplicateNames flags a server that lists two tools under one name: a
// client keeps one of them, so the other's text silently replaces it.
func duplicateNames(s catalog.Server) []Finding {
	seen := map[string]int{}
	var out []Finding
	r := RuleByID("xtool.duplicate_name")
	for _, t := range s.Tools {
		seen[t.Name]++
		if seen[t.Name] == 2 {
			out = append(out, Finding{RuleID: r.ID, Severity: r.Severity, Server: s.Name, Tool: t.Name, Location: "name", signals: r.Signals,
				Message: "the server lists more than one tool named " + strconvQuote(t.Name) + "; one definition hides the other", Evidence: t.Name})
		}
	}
	return out
}

func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }

// crossServer adds name collisions and look-alike names across servers.
// A collision alone is information: two honest servers often share a
// plain name, and a server's grade must not change because another server
// is scanned beside it. It becomes evidence (the "name" kind, graded with
// the rest by agree) only on a tool whose own metadata already has
// findings, or whose name imitates the other's rather than equals it.
func crossServer(c *catalog.Catalog, rep *Report) {
	if len(c.Servers) < 2 {
		return
	}
	type owner struct {
		server int
		name   string
	}
	own := map[[2]string]signal{}
	for _, sr := range rep.Servers {
		for _, f := range sr.Findings {
			own[[2]string{sr.Name, f.Tool}] |= f.signals
		}
	}
	byName := map[string][]owner{}
	bySkel := map[string][]owner{}
	byPlain := map[string][]owner{}
	for i, s := range c.Servers {
		seen := map[string]bool{}
		for _, t := range s.Tools {
			if seen[t.Name] {
				continue
			}
			seen[t.Name] = true
			byName[t.Name] = append(byName[t.Name], owner{i, t.Name})
			bySkel[skeleton(t.Name)] = append(bySkel[skeleton(t.Name)], owner{i, t.Name})
			byPlain[plainLetters(t.Name)] = append(byPlain[plainLetters(t.Name)], owner{i, t.Name})
		}
	}
	coll := RuleByID("xtool.name_collision")
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		os := byName[n]
		if len(os) < 2 {
			continue
		}
		for _, o := range os {
			var others []string
			for _, p := range os {
				if p.server != o.server {
					others = append(others, c.Servers[p.server].Name)
				}
			}
			if len(others) == 0 {
				continue
			}
			f := Finding{
				RuleID: coll.ID, Severity: coll.Severity, Server: c.Servers[o.server].Name, Tool: n, Location: "name",
				Message:  "tool name is also offered by " + strings.Join(others, ", "),
				Evidence: n,
			}
			if own[[2]string{f.Server, n}] != 0 {
				// Same name and suspicious text of its own: a shadowing
				// candidate, reported as such.
				f.signals = sigName
				f.Message += "; this server's definition also has findings of its own, so it may shadow the other"
			}
			rep.Servers[o.server].Findings = append(rep.Servers[o.server].Findings, f)
		}
	}
	imp := RuleByID("xtool.impersonation")
	flag := func(a, b owner, why string) {
		rep.Servers[a.server].Findings = append(rep.Servers[a.server].Findings, Finding{
			RuleID: imp.ID, Severity: imp.Severity, Server: c.Servers[a.server].Name, Tool: a.name, Location: "name", signals: imp.Signals,
			Message:  fmt.Sprintf("tool name %s %q of server %q", why, b.name, c.Servers[b.server].Name),
			Evidence: visible(a.name) + " ≈ " + b.name,
		})
	}
	skels := make([]string, 0, len(bySkel))
	for s := range bySkel {
		skels = append(skels, s)
	}
	sort.Strings(skels)
	for _, sk := range skels {
		os := bySkel[sk]
		for _, a := range os {
			for _, b := range os {
				if a.server == b.server || a.name == b.name || plainLetters(a.name) == plainLetters(b.name) {
					continue
				}
				// Report the name that is not plain ASCII letters, or both
				// when neither is.
				if isPlainIdent(a.name) && !isPlainIdent(b.name) {
					continue
				}
				flag(a, b, "looks like")
			}
		}
	}
	// Decorated copies of another server's tool: "send_email_secure"
	// beside a server that offers send_email.
	for i, s := range c.Servers {
		for _, t := range s.Tools {
			bare, ok := undecorated(t.Name)
			if !ok {
				continue
			}
			for _, b := range byPlain[bare] {
				if b.server != i {
					flag(owner{i, t.Name}, b, "dresses up")
					break
				}
			}
		}
	}
}

func isPlainIdent(s string) bool {
	for _, r := range s {
		if !((r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

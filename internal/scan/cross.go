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

// crossServer adds name collisions and look-alike names across servers.
func crossServer(c *catalog.Catalog, rep *Report) {
	if len(c.Servers) < 2 {
		return
	}
	type owner struct {
		server int
		name   string
	}
	byName := map[string][]owner{}
	bySkel := map[string][]owner{}
	for i, s := range c.Servers {
		seen := map[string]bool{}
		for _, t := range s.Tools {
			if seen[t.Name] {
				continue
			}
			seen[t.Name] = true
			byName[t.Name] = append(byName[t.Name], owner{i, t.Name})
			bySkel[skeleton(t.Name)] = append(bySkel[skeleton(t.Name)], owner{i, t.Name})
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
		var servers []string
		for _, o := range os {
			servers = append(servers, c.Servers[o.server].Name)
		}
		for _, o := range os {
			rep.Servers[o.server].Findings = append(rep.Servers[o.server].Findings, Finding{
				RuleID: coll.ID, Severity: coll.Severity, Server: c.Servers[o.server].Name, Tool: n, Location: "name",
				Message:  "tool name is offered by several servers: " + strings.Join(servers, ", "),
				Evidence: n,
			})
		}
	}
	imp := RuleByID("xtool.impersonation")
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
				rep.Servers[a.server].Findings = append(rep.Servers[a.server].Findings, Finding{
					RuleID: imp.ID, Severity: imp.Severity, Server: c.Servers[a.server].Name, Tool: a.name, Location: "name",
					Message:  fmt.Sprintf("tool name looks like %q of server %q", b.name, c.Servers[b.server].Name),
					Evidence: visible(a.name) + " ≈ " + b.name,
				})
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

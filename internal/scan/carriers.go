package scan

import (
	"fmt"
	"sort"
	"strings"
)

var commentRe = lazyRE(`(?s)<!--(.*?)(?:-->|$)|/\*(.*?)\*/`)

// markupComments returns the bodies of HTML/XML and C-style comments.
func markupComments(s string) []string {
	if !strings.Contains(s, "<!--") && !strings.Contains(s, "/*") {
		return nil
	}
	var out []string
	for _, m := range commentRe.FindAllStringSubmatch(s, -1) {
		body := strings.TrimSpace(m[1] + m[2])
		if len(body) >= 8 {
			out = append(out, body)
		}
	}
	return out
}

// recipientParam names parameters whose value decides where data goes.
var recipientParam = lazyRE(`(?i)(^|[_-])(to|cc|bcc|recipients?|email|emails|mail|forward(_?to)?|webhook(_?url)?|callback(_?url)?|notify(_?to)?|destination|dest|sink|upload(_?url)?|report(_?to)?|reply(_?to)?|mirror(_?url)?|backup(_?url)?)$|^(cc|bcc|to)$`)

// defaultDestinations flags a parameter that decides where data goes and
// comes with a literal outside address already filled in (default,
// const, examples, enum): unless the user changes it, the data goes there.
func defaultDestinations(server, tool, path string, schema map[string]any, depth int) []Finding {
	if schema == nil || depth > 16 {
		return nil
	}
	var out []Finding
	r := RuleByID("redirect.default_destination")
	props, _ := schema["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		p, ok := props[name].(map[string]any)
		if !ok {
			continue
		}
		loc := path + "/properties/" + escapeSeg(name)
		if (p["default"] != nil || p["const"] != nil || p["examples"] != nil || p["enum"] != nil) && recipientParam.MatchString(name) {
			for _, key := range []string{"default", "const", "examples", "enum"} {
				for _, v := range stringsIn(p[key]) {
					if d := destination(strings.ToLower(v)); d != "" {
						out = append(out, Finding{RuleID: r.ID, Severity: r.Severity, Server: server, Tool: tool, Location: loc + "/" + key,
							Message: fmt.Sprintf("%s Parameter %q is preset to %s.", r.Description, name, d), Evidence: v, signals: r.Signals,
							weak: placeholderDestination(key, d)})
					}
				}
			}
		}
		out = append(out, defaultDestinations(server, tool, loc, p, depth+1)...)
		if items, ok := p["items"].(map[string]any); ok {
			out = append(out, defaultDestinations(server, tool, loc+"/items", items, depth+1)...)
		}
	}
	for _, k := range []string{"$defs", "definitions"} {
		if defs, ok := schema[k].(map[string]any); ok {
			for n, d := range defs {
				if dm, ok := d.(map[string]any); ok {
					out = append(out, defaultDestinations(server, tool, path+"/"+k+"/"+escapeSeg(n), dm, depth+1)...)
				}
			}
		}
	}
	return out
}

// placeholderDestination reports a preset address that shows a format
// rather than decides where data goes: an entry of "examples" (the model
// is shown it, the call does not carry it unless someone copies it), or
// any preset on the domains reserved for documentation (example.com,
// example.org, example.net, *.example), where nothing can be delivered.
// Such a preset is weak evidence: low unless the tool shows more.
func placeholderDestination(key, d string) bool {
	if key == "examples" {
		return true
	}
	host := d
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	if k := strings.Index(host, "://"); k >= 0 {
		host = host[k+3:]
	}
	if k := strings.IndexAny(host, "/:?#"); k >= 0 {
		host = host[:k]
	}
	for _, doc := range []string{"example.com", "example.org", "example.net"} {
		if host == doc || strings.HasSuffix(host, "."+doc) {
			return true
		}
	}
	return host == "example" || strings.HasSuffix(host, ".example")
}

func stringsIn(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// standardAnnotations are the tool annotations the MCP specification
// defines; clients show or act on these.
var standardAnnotations = map[string]bool{"title": true, "readOnlyHint": true, "destructiveHint": true, "idempotentHint": true, "openWorldHint": true}

var payloadKey = lazyRE(`(?i)instruction|system|prompt|directive|override|hidden|inject|escalat|command|jailbreak|bypass|secret_?task`)

// annotationPayloads flags annotation keys outside the specification
// whose names announce instructions or commands ("hidden_command",
// "instruction"): annotations are metadata a client does not show, so
// orders placed there are hidden from the user. The string values are
// scanned like any other text as well.
func annotationPayloads(server, tool string, ann map[string]any) []Finding {
	var out []Finding
	r := RuleByID("inject.annotation_payload")
	var walk func(path string, v any, depth int)
	walk = func(path string, v any, depth int) {
		m, ok := v.(map[string]any)
		if !ok || depth > 8 {
			return
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if depth == 0 && standardAnnotations[k] {
				continue
			}
			p := path + "/" + escapeSeg(k)
			if payloadKey.MatchString(k) {
				ev := k
				if s, ok := m[k].(string); ok {
					ev += ": " + s
				}
				out = append(out, Finding{RuleID: r.ID, Severity: r.Severity, Server: server, Tool: tool, Location: p,
					Message: r.Description, Evidence: clip(visible(ev)), signals: r.Signals})
			}
			walk(p, m[k], depth+1)
		}
	}
	walk("annotations", ann, 0)
	return out
}

package defense

import (
	"fmt"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/catalog"
)

// Provenance markers. They tell the model which text came from a server
// rather than from the user or the client, which is the second half of the
// published defense (the first half is redaction).
func metaOpen(server string) string {
	return fmt.Sprintf("[untrusted tool metadata from server %q]", server)
}

const metaClose = "[end untrusted tool metadata]"

func resultOpen(server, tool string) string {
	return fmt.Sprintf("[untrusted tool result from server %q, tool %q]", server, tool)
}

const resultClose = "[end untrusted tool result]"

func wrap(open, body, close string) string {
	if body == "" {
		return open + "\n" + close
	}
	return open + "\n" + body + "\n" + close
}

// Seam names used in the notes these transforms emit.
const (
	seamTool   = "tool"
	seamResult = "result"
	kindRedact = "redacted"
)

// MetaFilter is the meta_filter arm's tool transform. For every tool it
// redacts the description, the title, and every "description" and "title"
// string of the input schema (walking properties, items, $defs and the
// other subschema keywords), then wraps the surviving tool description in
// provenance markers. A schema string is wrapped only when something was
// cut from it, so clean parameter docs stay readable.
//
// String defaults, enum values and examples are left alone: the published
// filter reads descriptions, and the benchmark measures that filter, so
// payloads carried in defaults and enums pass through it by design.
//
// The input slice and its schemas are never modified; every tool is
// deep-copied before it is rewritten.
func MetaFilter() agent.ToolTransform {
	return func(tools []agent.Tool) ([]agent.Tool, []agent.Note) {
		out := make([]agent.Tool, len(tools))
		var notes []agent.Note
		for i, t := range tools {
			name := t.ModelName
			if name == "" {
				name = t.Def.Name
			}
			note := func(rs []Removal) {
				for _, r := range rs {
					notes = append(notes, agent.Note{Seam: seamTool, Kind: kindRedact, Tool: name, Rule: r.Rule, Detail: r.Segment})
				}
			}
			if t.Def.Description != "" {
				kept, rs := FilterText(t.Def.Description)
				note(rs)
				t.Def.Description = wrap(metaOpen(t.Server), kept, metaClose)
			}
			if t.Def.Title != "" {
				kept, rs := FilterText(t.Def.Title)
				note(rs)
				t.Def.Title = kept
			}
			if t.Def.InputSchema != nil {
				// A copy: pinning keeps the original.
				schema := catalog.CloneObject(t.Def.InputSchema)
				filterSchema(schema, t.Server, note)
				t.Def.InputSchema = schema
			}
			out[i] = t
		}
		return out, notes
	}
}

// ResultFilter is the result_filter arm's result transform: the same
// redaction applied to a tool result. A result on which no rule fires is
// returned unchanged, byte for byte and without markers; otherwise the
// survivors are wrapped in provenance markers naming the server and tool.
func ResultFilter() agent.ResultTransform {
	return func(call agent.Call, res agent.Result) (agent.Result, []agent.Note) {
		kept, rs := FilterText(res.Text)
		if len(rs) == 0 {
			return res, nil
		}
		name := call.ModelName
		if name == "" {
			name = call.Tool
		}
		notes := make([]agent.Note, 0, len(rs))
		for _, r := range rs {
			notes = append(notes, agent.Note{Seam: seamResult, Kind: kindRedact, Tool: name, Rule: r.Rule, Detail: r.Segment})
		}
		res.Text = wrap(resultOpen(call.Server, call.Tool), kept, resultClose)
		return res, notes
	}
}

// Keywords whose value is a map from names to subschemas.
var schemaMaps = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}

// Keywords whose value is one subschema or a list of them.
var schemaSubs = []string{
	"items", "additionalProperties", "additionalItems", "prefixItems", "contains",
	"not", "if", "then", "else", "anyOf", "oneOf", "allOf",
	"propertyNames", "unevaluatedItems", "unevaluatedProperties",
}

// filterSchema redacts the description and title of one schema node and
// recurses into its subschemas. It walks keyword positions only, so a
// property that happens to be named "description" is treated as a schema,
// not as text.
func filterSchema(node map[string]any, server string, note func([]Removal)) {
	if node == nil {
		return
	}
	for _, key := range []string{"description", "title"} {
		s, ok := node[key].(string)
		if !ok || s == "" {
			continue
		}
		kept, rs := FilterText(s)
		if len(rs) == 0 {
			continue
		}
		note(rs)
		node[key] = wrap(metaOpen(server), kept, metaClose)
	}
	for _, key := range schemaMaps {
		if m, ok := node[key].(map[string]any); ok {
			for _, sub := range m {
				if sm, ok := sub.(map[string]any); ok {
					filterSchema(sm, server, note)
				}
			}
		}
	}
	for _, key := range schemaSubs {
		switch v := node[key].(type) {
		case map[string]any:
			filterSchema(v, server, note)
		case []any:
			for _, e := range v {
				if sm, ok := e.(map[string]any); ok {
					filterSchema(sm, server, note)
				}
			}
		}
	}
}

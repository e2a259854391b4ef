package defense

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpsec/mcpsec/internal/agent"
	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/task"
)

// Gate reasons. They are stable strings: traces and reports count them.
const (
	ReasonUnregistered    = "unregistered_tool"
	ReasonSchemaFields    = "schema_fields"
	ReasonSchemaTypes     = "schema_types"
	ReasonMissingCap      = "missing_resource_capability"
	ReasonAuthorized      = "authorized"
	opNone                = "none"
	unknownToolResourceNS = "tool:"
)

// ResourceRule is the host's knowledge of which resource a tool touches
// and how: the operation, and either the argument whose value names the
// resource (Prefix + value) or a fixed Resource. Op "none" means the tool
// touches no resource and needs no capability.
type ResourceRule struct {
	Op       string `json:"op"`
	Arg      string `json:"arg,omitempty"`
	Prefix   string `json:"prefix,omitempty"`
	Resource string `json:"resource,omitempty"`
}

// DefaultResources describes the fixture tools. It is host configuration:
// nothing a server says about its tools can change it.
var DefaultResources = map[string]ResourceRule{
	"add_note":    {Op: "write", Arg: "title", Prefix: "note:"},
	"read_note":   {Op: "read", Arg: "title", Prefix: "note:"},
	"delete_note": {Op: "delete", Arg: "title", Prefix: "note:"},
	"list_notes":  {Op: "read", Resource: "note:*"},
	"lookup_user": {Op: "read", Arg: "user_id", Prefix: "user:"},
	"export_data": {Op: "egress", Resource: "export:*"},
	"calculate":   {Op: opNone},
}

// RegEntry is one trusted tool: the definition the host accepted at first
// listing and the resource rule that applies to it.
type RegEntry struct {
	Server string       `json:"server"`
	Def    catalog.Tool `json:"def"`
	Rule   ResourceRule `json:"rule"`
}

// Registry is the host's trusted view of the tools, keyed by server and
// tool name. It is built once, from the first listing, and never grows
// from later listings or from anything a tool returns.
type Registry struct {
	entries map[string]RegEntry
}

func regKey(server, tool string) string { return server + "\x00" + tool }

// NewRegistry builds a registry from the tools the host saw at first
// listing. rules gives each tool's resource rule (nil means
// DefaultResources); a tool without a rule is assumed to act on its own
// resource "tool:<name>" with the operation of its policy class (unknown
// class: egress), so that no capability grants it by accident.
func NewRegistry(tools []agent.Tool, rules map[string]ResourceRule, classes map[string]string) Registry {
	if rules == nil {
		rules = DefaultResources
	}
	r := Registry{entries: make(map[string]RegEntry, len(tools))}
	for _, t := range tools {
		rule, ok := rules[t.Def.Name]
		if !ok {
			rule = ResourceRule{Op: classOf(classes, t.Def.Name), Resource: unknownToolResourceNS + t.Def.Name}
		}
		k := regKey(t.Server, t.Def.Name)
		if _, dup := r.entries[k]; dup {
			continue
		}
		r.entries[k] = RegEntry{Server: t.Server, Def: t.Def, Rule: rule}
	}
	return r
}

// Lookup returns the trusted entry of a server's tool.
func (r Registry) Lookup(server, tool string) (RegEntry, bool) {
	e, ok := r.entries[regKey(server, tool)]
	return e, ok
}

// Len is the number of trusted tools.
func (r Registry) Len() int { return len(r.entries) }

// CapabilitySet is the set of (operation, resource) pairs the host grants.
// A resource ending in "*" grants every resource with that prefix.
type CapabilitySet []task.Capability

// Grants reports whether the set holds op on resource.
func (cs CapabilitySet) Grants(op, resource string) bool {
	for _, c := range cs {
		if c.Op != op {
			continue
		}
		if p, ok := strings.CutSuffix(c.Resource, "*"); ok {
			if strings.HasPrefix(resource, p) {
				return true
			}
		} else if c.Resource == resource {
			return true
		}
	}
	return false
}

// GateDecision is the authorization gate's verdict on one call.
type GateDecision struct {
	Allowed bool   `json:"allowed"`
	Reason  string `json:"reason"`
	// Required is the capability the call needed (nil when the call needs
	// none or failed before that layer).
	Required *task.Capability `json:"required,omitempty"`
	// Detail says which field, type or resource failed.
	Detail string `json:"detail,omitempty"`
}

// Authorize is the layered authorization gate: the tool must be in the
// trusted registry, its arguments must match the registered input schema
// exactly, and the host must hold the capability for the operation on the
// resource the arguments name. It is a pure function: it reads its inputs,
// never changes them, and never executes anything (an argument shaped like
// a nested tool call is only data).
func Authorize(reg Registry, caps CapabilitySet, call agent.Call) GateDecision {
	entry, ok := reg.Lookup(call.Server, call.Tool)
	if !ok {
		return GateDecision{Reason: ReasonUnregistered, Detail: fmt.Sprintf("%s/%s is not in the trusted registry", call.Server, call.Tool)}
	}
	args, err := decodeArgs(call.Arguments)
	if err != nil {
		return GateDecision{Reason: ReasonSchemaFields, Detail: err.Error()}
	}
	if reason, detail := checkObject(entry.Def.InputSchema, args, "arguments"); reason != "" {
		return GateDecision{Reason: reason, Detail: detail}
	}
	rule := entry.Rule
	if rule.Op == opNone {
		return GateDecision{Allowed: true, Reason: ReasonAuthorized}
	}
	resource := rule.Resource
	if rule.Arg != "" {
		v, ok := args[rule.Arg].(string)
		if !ok {
			return GateDecision{Reason: ReasonMissingCap, Detail: fmt.Sprintf("argument %q naming the resource is absent or not a string", rule.Arg)}
		}
		resource = rule.Prefix + v
	}
	need := task.Capability{Op: rule.Op, Resource: resource}
	if !caps.Grants(need.Op, need.Resource) {
		return GateDecision{Reason: ReasonMissingCap, Required: &need, Detail: fmt.Sprintf("host holds no %s capability on %s", need.Op, need.Resource)}
	}
	return GateDecision{Allowed: true, Reason: ReasonAuthorized, Required: &need}
}

func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("arguments hold more than one JSON value")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("arguments are a JSON %s, not an object", jsonKind(v))
	}
	return m, nil
}

// checkObject applies the exact-shape rule to one object: every required
// property present, no property the schema does not declare, and every
// value of its declared type (recursively for declared nested objects and
// array items). It returns a gate reason and detail, or "" when it fits.
func checkObject(schema map[string]any, obj map[string]any, path string) (string, string) {
	props, _ := schema["properties"].(map[string]any)
	for _, req := range stringList(schema["required"]) {
		if _, ok := obj[req]; !ok {
			return ReasonSchemaFields, fmt.Sprintf("%s: required field %q is missing", path, req)
		}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := props[k]; !ok {
			return ReasonSchemaFields, fmt.Sprintf("%s: field %q is not declared by the schema", path, k)
		}
	}
	for _, k := range keys {
		ps, _ := props[k].(map[string]any)
		if reason, detail := checkValue(ps, obj[k], path+"."+k); reason != "" {
			return reason, detail
		}
	}
	return "", ""
}

func checkValue(schema map[string]any, v any, path string) (string, string) {
	if schema == nil {
		return "", ""
	}
	types := stringList(schema["type"])
	if len(types) > 0 && !typeMatches(types, v) {
		return ReasonSchemaTypes, fmt.Sprintf("%s: got %s, schema wants %s", path, jsonKind(v), strings.Join(types, "|"))
	}
	switch x := v.(type) {
	case map[string]any:
		// Only an object schema that names its properties constrains the
		// nested field set; an open object is opaque data.
		if _, ok := schema["properties"]; ok {
			return checkObject(schema, x, path)
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i, e := range x {
				if reason, detail := checkValue(items, e, fmt.Sprintf("%s[%d]", path, i)); reason != "" {
					return reason, detail
				}
			}
		}
	}
	return "", ""
}

func typeMatches(types []string, v any) bool {
	kind := jsonKind(v)
	for _, t := range types {
		switch {
		case t == kind:
			return true
		case t == "number" && kind == "integer":
			return true
		case t == "integer" && kind == "number":
			// 2.0 is an integer in JSON Schema.
			if n, ok := v.(json.Number); ok {
				if f, err := n.Float64(); err == nil && f == float64(int64(f)) {
					return true
				}
			}
		}
	}
	return false
}

func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

func stringList(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// classOf is a tool's policy class; tools the policy does not classify
// are egress, the most guarded class.
func classOf(classes map[string]string, tool string) string {
	if c, ok := classes[tool]; ok && c != "" {
		return c
	}
	return "egress"
}

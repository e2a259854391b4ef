package model

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// geminiKeywords are the JSON Schema keywords the Gemini API documents as
// supported in parametersJsonSchema (plus its own propertyOrdering).
// Anything else is removed before sending and reported in SchemaDropped,
// so a benchmark row can say exactly what the model did not see.
var geminiKeywords = map[string]bool{
	"$id": true, "$defs": true, "$ref": true, "$anchor": true,
	"type": true, "format": true, "title": true, "description": true,
	"enum": true, "items": true, "prefixItems": true, "minItems": true, "maxItems": true,
	"minimum": true, "maximum": true, "anyOf": true, "oneOf": true,
	"properties": true, "additionalProperties": true, "required": true,
	"propertyOrdering": true,
}

// geminiSchema returns a copy of an MCP input schema that the Gemini API
// accepts, and the places (relative to prefix) it had to change.
func geminiSchema(prefix string, s map[string]any) (map[string]any, []string) {
	if s == nil {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	var dropped []string
	out := geminiNode(prefix, s, &dropped)
	// Map iteration order must not leak into reports or cassettes.
	slices.Sort(dropped)
	return out, dropped
}

func geminiNode(path string, s map[string]any, dropped *[]string) map[string]any {
	out := make(map[string]any, len(s))
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	_, hasRef := s["$ref"]
	for _, k := range keys {
		v := s[k]
		p := path + "/" + k
		// A $ref node may carry only $-keywords (documented restriction).
		if hasRef && !strings.HasPrefix(k, "$") {
			*dropped = append(*dropped, p+" (sibling of $ref)")
			continue
		}
		switch {
		case k == "const":
			if isScalarEnumValue(v) {
				if _, has := s["enum"]; !has {
					out["enum"] = []any{v}
					*dropped = append(*dropped, p+" (rewritten as enum)")
					continue
				}
			}
			*dropped = append(*dropped, p)
		case !geminiKeywords[k]:
			*dropped = append(*dropped, p)
		case k == "enum":
			arr, ok := v.([]any)
			if !ok || !slices.ContainsFunc(arr, func(e any) bool { return !isScalarEnumValue(e) }) {
				out[k] = v
				continue
			}
			*dropped = append(*dropped, p+" (non-string/number values)")
		case k == "properties" || k == "$defs":
			m, ok := v.(map[string]any)
			if !ok {
				*dropped = append(*dropped, p+" (not an object)")
				continue
			}
			sub := make(map[string]any, len(m))
			for name, child := range m {
				if cm, ok := child.(map[string]any); ok {
					sub[name] = geminiNode(p+"/"+name, cm, dropped)
				} else {
					sub[name] = child
				}
			}
			out[k] = sub
		case k == "items" || k == "additionalProperties":
			switch t := v.(type) {
			case map[string]any:
				out[k] = geminiNode(p, t, dropped)
			case []any:
				out[k] = geminiList(p, t, dropped)
			default:
				out[k] = v
			}
		case k == "anyOf" || k == "oneOf" || k == "prefixItems":
			if arr, ok := v.([]any); ok {
				out[k] = geminiList(p, arr, dropped)
			} else {
				out[k] = v
			}
		default:
			out[k] = v
		}
	}
	return out
}

func geminiList(path string, arr []any, dropped *[]string) []any {
	out := make([]any, len(arr))
	for i, e := range arr {
		if m, ok := e.(map[string]any); ok {
			out[i] = geminiNode(path+"/"+strconv.Itoa(i), m, dropped)
		} else {
			out[i] = e
		}
	}
	return out
}

func isScalarEnumValue(v any) bool {
	switch v.(type) {
	case string, float64, int, int64, float32, json.Number:
		return true
	}
	return false
}

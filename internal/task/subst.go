package task

import "strings"

// Substitute replaces the canary placeholder in s.
func Substitute(s, canary string) string {
	return strings.ReplaceAll(s, CanaryPlaceholder, canary)
}

func substitute(v any, canary string) any {
	switch x := v.(type) {
	case string:
		return Substitute(x, canary)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = substitute(e, canary)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = substitute(e, canary)
		}
		return out
	}
	return v
}

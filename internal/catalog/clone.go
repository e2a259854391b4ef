package catalog

// CloneJSON deep-copies decoded JSON (objects, arrays and the values in
// them), so that a transform rewriting a schema never writes into a
// definition another seam, a cache or the trace still holds.
func CloneJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = CloneJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = CloneJSON(e)
		}
		return out
	}
	return v
}

// CloneObject is CloneJSON for a decoded JSON object (nil stays nil).
func CloneObject(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	c, _ := CloneJSON(m).(map[string]any)
	return c
}

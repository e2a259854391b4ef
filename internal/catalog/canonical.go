package catalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
)

// Canonical returns the canonical JSON form of a tool's full definition:
// object keys sorted, no insignificant whitespace, the order of every
// "required" array sorted (its order carries no meaning), and numbers in
// their shortest form. Text inside strings is kept byte for byte: a change
// of whitespace inside a description is a change of definition, because a
// model reads it.
func Canonical(t Tool) []byte {
	m := map[string]any{"name": t.Name}
	if t.Title != "" {
		m["title"] = t.Title
	}
	if t.Description != "" {
		m["description"] = t.Description
	}
	if t.InputSchema != nil {
		m["inputSchema"] = t.InputSchema
	}
	if t.OutputSchema != nil {
		m["outputSchema"] = t.OutputSchema
	}
	if len(t.Annotations) > 0 {
		m["annotations"] = t.Annotations
	}
	var buf bytes.Buffer
	writeCanonical(&buf, m, "")
	return buf.Bytes()
}

// CanonicalBody is Canonical without the name, so that a renamed copy of
// a definition has the same body hash.
func CanonicalBody(t Tool) []byte {
	t.Name = ""
	return Canonical(t)
}

// Fingerprint is the SHA-256 of a tool's canonical full definition.
func Fingerprint(t Tool) string {
	sum := sha256.Sum256(Canonical(t))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// BodyFingerprint hashes everything but the name.
func BodyFingerprint(t Tool) string {
	sum := sha256.Sum256(CanonicalBody(t))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// CanonicalValue writes any decoded JSON value canonically.
func CanonicalValue(v any) []byte {
	var buf bytes.Buffer
	writeCanonical(&buf, v, "")
	return buf.Bytes()
}

func writeCanonical(buf *bytes.Buffer, v any, key string) {
	switch x := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		if x {
			buf.WriteString("true")
		} else {
			buf.WriteString("false")
		}
	case string:
		b, _ := json.Marshal(x)
		buf.Write(b)
	case json.Number:
		buf.WriteString(canonicalNumber(string(x)))
	case float64:
		buf.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	case int:
		buf.WriteString(strconv.Itoa(x))
	case int64:
		buf.WriteString(strconv.FormatInt(x, 10))
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteByte(':')
			writeCanonical(buf, x[k], k)
		}
		buf.WriteByte('}')
	case []any:
		items := x
		if key == "required" {
			items = sortedStrings(x)
		}
		buf.WriteByte('[')
		for i, e := range items {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeCanonical(buf, e, "")
		}
		buf.WriteByte(']')
	case []string:
		arr := make([]any, len(x))
		for i, s := range x {
			arr[i] = s
		}
		writeCanonical(buf, arr, key)
	default:
		// Anything else (typed structs from an SDK) goes through a JSON
		// round trip so it is canonicalized like decoded input.
		b, err := json.Marshal(x)
		if err != nil {
			fmt.Fprintf(buf, "%q", fmt.Sprint(x))
			return
		}
		var generic any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if dec.Decode(&generic) != nil {
			buf.Write(b)
			return
		}
		writeCanonical(buf, generic, key)
	}
}

func sortedStrings(x []any) []any {
	strs := make([]string, 0, len(x))
	for _, e := range x {
		s, ok := e.(string)
		if !ok {
			return x
		}
		strs = append(strs, s)
	}
	sort.Strings(strs)
	out := make([]any, len(strs))
	for i, s := range strs {
		out[i] = s
	}
	return out
}

func canonicalNumber(s string) string {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return strconv.FormatInt(i, 10)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return s
}

// FromAny converts any JSON-marshalable value (an SDK tool, a map) into a
// catalog Tool with numbers kept as json.Number.
func FromAny(v any) (Tool, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Tool{}, fmt.Errorf("marshal tool: %w", err)
	}
	var t Tool
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&t); err != nil {
		return Tool{}, fmt.Errorf("decode tool: %w", err)
	}
	return t, nil
}

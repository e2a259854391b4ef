package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawResult is a result the proxy relays as bytes it already holds (the
// judged listing, an upstream's call result), so that what the client
// receives is what the server sent, fields the SDK's types do not carry
// included, and nothing is decoded and encoded again on the way.
type rawResult struct {
	mcp.ResultBase
	raw json.RawMessage
}

func (r *rawResult) MarshalJSON() ([]byte, error) { return r.raw, nil }

// field is one member of a JSON object, its value as it was written.
type field struct {
	key string
	val json.RawMessage
}

// objectFields splits a JSON object into its members, in order.
func objectFields(raw []byte) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out []field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("object key %v", tok)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, field{k, v})
	}
	return out, nil
}

// joinFields writes members back as one object.
func joinFields(fs []field) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(f.val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// setField replaces key's value (in place) or appends it; a nil val
// removes it.
func setField(fs []field, key string, val json.RawMessage) []field {
	for i, f := range fs {
		if f.key == key {
			if val == nil {
				return append(fs[:i:i], fs[i+1:]...)
			}
			fs[i].val = val
			return fs
		}
	}
	if val == nil {
		return fs
	}
	return append(fs, field{key, val})
}

func getField(fs []field, key string) json.RawMessage {
	for _, f := range fs {
		if f.key == key {
			return f.val
		}
	}
	return nil
}

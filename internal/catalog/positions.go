package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Positions maps the JSON Pointer (RFC 6901) of every value in a JSON
// document to the byte offset where that value starts, so that reports can
// point at the line of a finding in the file the user gave.
func Positions(data []byte) (map[string]int64, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	out := map[string]int64{}
	if err := walkPositions(dec, data, "", out, 0); err != nil {
		return nil, err
	}
	return out, nil
}

const maxPositionDepth = 10000

func skipSep(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
		default:
			return off
		}
	}
	return off
}

func walkPositions(dec *json.Decoder, data []byte, ptr string, out map[string]int64, depth int) error {
	if depth > maxPositionDepth {
		return fmt.Errorf("json nested deeper than %d", maxPositionDepth)
	}
	start := skipSep(data, dec.InputOffset())
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	out[ptr] = start
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := kt.(string)
			if err := walkPositions(dec, data, ptr+"/"+EscapePointer(key), out, depth+1); err != nil {
				return err
			}
		}
	case '[':
		for i := 0; dec.More(); i++ {
			if err := walkPositions(dec, data, ptr+"/"+strconv.Itoa(i), out, depth+1); err != nil {
				return err
			}
		}
	}
	_, err = dec.Token() // closing delimiter
	return err
}

// EscapePointer escapes one JSON Pointer reference token.
func EscapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

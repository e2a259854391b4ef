package stats

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Label tables come as JSON (the method's own shapes) or CSV with the same
// column names. Every error names the file and the offending line, row or
// key, because the person fixing it has the file open in an editor.

// Format of a table file.
type Format int

// Table formats.
const (
	FormatJSON Format = iota
	FormatCSV
)

// DetectFormat picks JSON or CSV by extension, and by the first
// non-blank byte when the extension says nothing.
func DetectFormat(name string, data []byte) Format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return FormatJSON
	case ".csv":
		return FormatCSV
	}
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return FormatJSON
	}
	return FormatCSV
}

// LoadLabels reads a benign-results or paired table: JSON {"id": bool}
// or CSV with columns id,value.
func LoadLabels(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read labels: %w", err)
	}
	return ParseLabels(path, data)
}

// LoadCases reads a security-case table: a JSON array of objects or CSV
// with columns user_task, injection_goal, utility, attack_success,
// side_effect, exposed.
func LoadCases(path string) ([]Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read cases: %w", err)
	}
	return ParseCases(path, data)
}

// LoadClusters reads an id → cluster mapping: JSON {"id": "cluster"} or
// CSV with columns id,cluster.
func LoadClusters(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read clusters: %w", err)
	}
	return ParseClusters(path, data)
}

// ParseLabels parses an id → boolean table; name is used in errors and
// for format detection.
func ParseLabels(name string, data []byte) (map[string]bool, error) {
	return parseIDTable(name, data, "value", map[string][]string{
		"id":    {"task_id", "user_task", "case_id"},
		"value": {"utility", "success", "benign"},
	}, jsonBool, csvBool)
}

// ParseClusters parses an id → cluster table.
func ParseClusters(name string, data []byte) (map[string]string, error) {
	cluster := func(s string) (string, error) {
		if s == "" {
			return "", fmt.Errorf("cluster must be a non-empty string: %w", ErrSyntax)
		}
		return s, nil
	}
	return parseIDTable(name, data, "cluster", map[string][]string{
		"cluster": {"task", "task_id", "user_task"},
	}, func(raw json.RawMessage) (string, error) {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("cluster must be a non-empty string: %w", ErrSyntax)
		}
		return cluster(s)
	}, cluster)
}

// parseIDTable reads a two-column id → value table from a JSON object or
// a CSV with columns id and valueCol (or their aliases). Empty ids,
// duplicate ids and an empty table are errors naming the file and line.
func parseIDTable[T any](name string, data []byte, valueCol string, aliases map[string][]string,
	fromJSON func(json.RawMessage) (T, error), fromCSV func(string) (T, error)) (map[string]T, error) {
	out := map[string]T{}
	var err error
	if DetectFormat(name, data) == FormatJSON {
		err = parseJSONObject(name, data, func(key string, raw json.RawMessage, line int) error {
			v, err := fromJSON(raw)
			if err != nil {
				return fmt.Errorf("%s line %d: key %q: %w", name, line, key, err)
			}
			out[key] = v
			return nil
		})
	} else {
		err = parseCSV(name, data, []string{"id", valueCol}, aliases, func(row map[string]string, line int) error {
			id := row["id"]
			if id == "" {
				return fmt.Errorf("%s line %d: empty id: %w", name, line, ErrSyntax)
			}
			if _, dup := out[id]; dup {
				return fmt.Errorf("%s line %d: id %q: %w", name, line, id, ErrDuplicate)
			}
			v, err := fromCSV(row[valueCol])
			if err != nil {
				return fmt.Errorf("%s line %d: id %q: column %s: %w", name, line, id, valueCol, err)
			}
			out[id] = v
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrEmpty)
	}
	return out, nil
}

var caseLabels = []string{"utility", "attack_success", "side_effect", "exposed"}

// ParseCases parses a security-case table. Rows are returned in file
// order with Source set to their file and line; duplicates and the other
// semantic checks are left to ComputeCases, which names the same place.
func ParseCases(name string, data []byte) ([]Case, error) {
	var out []Case
	if DetectFormat(name, data) == FormatJSON {
		var err error
		out, err = parseJSONCases(name, data)
		if err != nil {
			return nil, err
		}
	} else {
		cols := append([]string{"user_task", "injection_goal"}, caseLabels...)
		err := parseCSV(name, data, cols, nil, func(row map[string]string, line int) error {
			c := Case{UserTask: row["user_task"], InjectionGoal: row["injection_goal"], Source: fmt.Sprintf("%s line %d", name, line)}
			if c.UserTask == "" || c.InjectionGoal == "" {
				return fmt.Errorf("%s line %d: user_task and injection_goal must be non-empty: %w", name, line, ErrSyntax)
			}
			for _, col := range caseLabels {
				b, err := csvBool(row[col])
				if err != nil {
					return fmt.Errorf("%s: column %s: %w", c.where(0), col, err)
				}
				c.setLabel(col, b)
			}
			out = append(out, c)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w", name, ErrEmpty)
	}
	return out, nil
}

func (c *Case) setLabel(col string, b bool) {
	switch col {
	case "utility":
		c.Utility = b
	case "attack_success":
		c.AttackSuccess = b
	case "side_effect":
		c.SideEffect = b
	case "exposed":
		c.Exposed = b
	}
}

func parseJSONCases(name string, data []byte) ([]Case, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonErr(name, data, dec, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, fmt.Errorf("%s line %d: cases must be a JSON array of objects: %w", name, lineAt(data, dec.InputOffset()), ErrSyntax)
	}
	var out []Case
	for row := 1; dec.More(); row++ {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonErr(name, data, dec, err)
		}
		// After the token the offset is just past the row's first byte,
		// so the row is named by the line it starts on, not the line
		// where the previous row ended.
		start := lineAt(data, dec.InputOffset()-1)
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return nil, fmt.Errorf("%s line %d: row %d is not an object: %w", name, start, row, ErrSyntax)
		}
		c := Case{Source: fmt.Sprintf("%s line %d (row %d)", name, start, row)}
		seen := map[string]bool{}
		for dec.More() {
			ktok, err := dec.Token()
			if err != nil {
				return nil, jsonErr(name, data, dec, err)
			}
			key := ktok.(string) // the decoder guarantees object keys are strings
			line := lineAt(data, dec.InputOffset())
			if seen[key] {
				return nil, fmt.Errorf("%s line %d: row %d: key %q appears twice: %w", name, line, row, key, ErrDuplicate)
			}
			seen[key] = true
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, jsonErr(name, data, dec, err)
			}
			switch key {
			case "user_task", "injection_goal":
				var s string
				if err := json.Unmarshal(raw, &s); err != nil || s == "" {
					return nil, fmt.Errorf("%s line %d: row %d: %q must be a non-empty string: %w", name, line, row, key, ErrSyntax)
				}
				if key == "user_task" {
					c.UserTask = s
				} else {
					c.InjectionGoal = s
				}
			case "utility", "attack_success", "side_effect", "exposed":
				b, err := jsonBool(raw)
				if err != nil {
					return nil, fmt.Errorf("%s line %d: row %d: key %q: %w", name, line, row, key, err)
				}
				c.setLabel(key, b)
			}
			// Other keys (notes, evidence sources) are carried by users'
			// tables and deliberately ignored.
		}
		if _, err := dec.Token(); err != nil { // closing '}'
			return nil, jsonErr(name, data, dec, err)
		}
		for _, k := range append([]string{"user_task", "injection_goal"}, caseLabels...) {
			if !seen[k] {
				return nil, fmt.Errorf("%s line %d: row %d: key %q is missing: %w", name, start, row, k, missingErr(k))
			}
		}
		out = append(out, c)
	}
	if _, err := dec.Token(); err != nil { // closing ']'
		return nil, jsonErr(name, data, dec, err)
	}
	if err := expectEOF(name, data, dec); err != nil {
		return nil, err
	}
	return out, nil
}

func missingErr(key string) error {
	if key == "user_task" || key == "injection_goal" {
		return ErrSyntax
	}
	return ErrLabel
}

// parseJSONObject walks a flat JSON object, refusing duplicate keys (which
// encoding/json would silently resolve to the last one).
func parseJSONObject(name string, data []byte, each func(key string, raw json.RawMessage, line int) error) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return jsonErr(name, data, dec, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("%s line %d: expected a JSON object {\"id\": value, ...}: %w", name, lineAt(data, dec.InputOffset()), ErrSyntax)
	}
	seen := map[string]int{}
	for dec.More() {
		ktok, err := dec.Token()
		if err != nil {
			return jsonErr(name, data, dec, err)
		}
		key := ktok.(string)
		line := lineAt(data, dec.InputOffset())
		if prev, dup := seen[key]; dup {
			return fmt.Errorf("%s line %d: key %q already appeared on line %d: %w", name, line, key, prev, ErrDuplicate)
		}
		seen[key] = line
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return jsonErr(name, data, dec, err)
		}
		if key == "" {
			return fmt.Errorf("%s line %d: empty key: %w", name, line, ErrSyntax)
		}
		if err := each(key, raw, line); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return jsonErr(name, data, dec, err)
	}
	return expectEOF(name, data, dec)
}

func expectEOF(name string, data []byte, dec *json.Decoder) error {
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%s line %d: unexpected data after the table: %w", name, lineAt(data, dec.InputOffset()), ErrSyntax)
	}
	return nil
}

// jsonErr turns a decoder error into one naming the file and line.
func jsonErr(name string, data []byte, dec *json.Decoder, err error) error {
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s line %d: unexpected end of file: %w", name, lineAt(data, int64(len(data))), ErrSyntax)
	}
	return fmt.Errorf("%s line %d: %w: %v", name, lineAt(data, off), ErrSyntax, err)
}

func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

func jsonBool(raw json.RawMessage) (bool, error) {
	switch s := string(bytes.TrimSpace(raw)); s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return false, fmt.Errorf("value is null (unknown): %w", ErrLabel)
	default:
		return false, fmt.Errorf("value %s is not true or false: %w", abbreviate(s), ErrLabel)
	}
}

func csvBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	case "":
		return false, fmt.Errorf("value is empty (unknown): %w", ErrLabel)
	default:
		return false, fmt.Errorf("value %q is not true/false/1/0: %w", abbreviate(s), ErrLabel)
	}
}

func abbreviate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// parseCSV reads a headed CSV table. want lists the canonical column
// names; aliases maps a canonical name to other accepted header names.
// Each data row is handed over as canonical name → trimmed value.
func parseCSV(name string, data []byte, want []string, aliases map[string][]string, each func(row map[string]string, line int) error) error {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	r := csv.NewReader(bytes.NewReader(data))
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err == io.EOF {
		return fmt.Errorf("%s: no header row: %w", name, ErrEmpty)
	}
	if err != nil {
		return fmt.Errorf("%s: %w: %v", name, ErrSyntax, err)
	}
	canon := map[string]string{}
	for _, w := range want {
		canon[w] = w
		for _, a := range aliases[w] {
			canon[a] = w
		}
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		if c, ok := canon[h]; ok {
			if _, dup := col[c]; dup {
				return fmt.Errorf("%s line 1: column %q appears twice: %w", name, c, ErrSyntax)
			}
			col[c] = i
		}
	}
	for _, w := range want {
		if _, ok := col[w]; !ok {
			return fmt.Errorf("%s line 1: header lacks column %q (want %s): %w", name, w, strings.Join(want, ","), ErrSyntax)
		}
	}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			// csv.ParseError already carries the line.
			return fmt.Errorf("%s: %w: %v", name, ErrSyntax, err)
		}
		line, _ := r.FieldPos(0)
		row := make(map[string]string, len(want))
		for _, w := range want {
			row[w] = strings.TrimSpace(rec[col[w]])
		}
		if err := each(row, line); err != nil {
			return err
		}
	}
}

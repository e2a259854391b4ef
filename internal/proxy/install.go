package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/source"
)

// ErrInstall marks a client configuration install cannot rewrite.
var ErrInstall = errors.New("client configuration")

// InstallOptions says how each server entry is wrapped.
type InstallOptions struct {
	// Mcpsec is the absolute path of the mcpsec binary.
	Mcpsec string
	// Dir holds the per-server pin state files and the audit log.
	Dir string
	// Policy is a policy file every entry is given ("" for none).
	Policy string
	// Extra are further proxy flags for every entry.
	Extra []string
}

// Change is what install or uninstall did (or would do) to one entry.
type Change struct {
	Server string
	Action string // wrapped, unwrapped, skipped
	Detail string
}

// Install rewrites a Claude Desktop, Cursor or VS Code configuration so
// that every server entry runs through `mcpsec proxy`. Key order is kept;
// comments (VS Code allows them) are not, so callers keep a backup.
func Install(name string, data []byte, o InstallOptions) ([]byte, []Change, error) {
	return rewrite(name, data, func(server string, e *object) (Change, error) {
		if isProxied(e, o.Mcpsec) {
			return Change{Server: server, Action: "skipped", Detail: "already runs through mcpsec proxy"}, nil
		}
		args := []string{"proxy", "--name", server, "--state", filepath.Join(o.Dir, safeFile(server)+".pins.json"),
			"--audit", filepath.Join(o.Dir, "audit.jsonl")}
		if o.Policy != "" {
			args = append(args, "--policy", o.Policy)
		}
		args = append(args, o.Extra...)
		var detail string
		switch {
		case e.has("command"):
			var cmd string
			var cargs []string
			if err := e.decode("command", &cmd); err != nil {
				return Change{}, err
			}
			if e.has("args") {
				if err := e.decode("args", &cargs); err != nil {
					return Change{}, err
				}
			}
			if e.has("env") {
				var env map[string]string
				if err := e.decode("env", &env); err != nil {
					return Change{}, err
				}
				keys := make([]string, 0, len(env))
				for k := range env {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					args = append(args, "--pass-env", k)
				}
			}
			args = append(args, "--")
			args = append(args, cmd)
			args = append(args, cargs...)
			detail = "runs " + strings.Join(append([]string{cmd}, cargs...), " ") + " through mcpsec proxy"
		case e.has("url"):
			if e.has("headers") {
				return Change{Server: server, Action: "skipped", Detail: "entries with HTTP headers are not proxied yet"}, nil
			}
			var u string
			if err := e.decode("url", &u); err != nil {
				return Change{}, err
			}
			args = append(args, "--upstream", u)
			e.del("url")
			e.del("type")
			e.set("type", "stdio")
			detail = "connects to " + u + " through mcpsec proxy"
		default:
			return Change{Server: server, Action: "skipped", Detail: "neither command nor url"}, nil
		}
		e.set("command", o.Mcpsec)
		e.set("args", args)
		return Change{Server: server, Action: "wrapped", Detail: detail}, nil
	})
}

// Uninstall undoes Install entry by entry: each proxied entry gets its
// own command (or URL) back; other entries are left alone.
func Uninstall(name string, data []byte, mcpsec string) ([]byte, []Change, error) {
	return rewrite(name, data, func(server string, e *object) (Change, error) {
		if !isProxied(e, mcpsec) {
			return Change{Server: server, Action: "skipped", Detail: "does not run through mcpsec proxy"}, nil
		}
		var args []string
		if err := e.decode("args", &args); err != nil {
			return Change{}, err
		}
		for i, a := range args {
			if a == "--" && i+1 < len(args) {
				e.set("command", args[i+1])
				e.set("args", args[i+2:])
				return Change{Server: server, Action: "unwrapped", Detail: "runs " + strings.Join(args[i+1:], " ") + " directly"}, nil
			}
			if a == "--upstream" && i+1 < len(args) {
				e.del("command")
				e.del("args")
				e.del("type")
				e.set("type", "http")
				e.set("url", args[i+1])
				return Change{Server: server, Action: "unwrapped", Detail: "connects to " + args[i+1] + " directly"}, nil
			}
		}
		return Change{}, &catalog.InputError{File: name, Msg: fmt.Sprintf("server %q runs mcpsec proxy without an upstream to restore", server)}
	})
}

func isProxied(e *object, mcpsec string) bool {
	var cmd string
	var args []string
	if e.decode("command", &cmd) != nil || e.decode("args", &args) != nil {
		return false
	}
	base := filepath.Base(cmd)
	return (cmd == mcpsec || base == "mcpsec") && len(args) > 0 && args[0] == "proxy"
}

func safeFile(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// rewrite applies f to every server entry of the configuration.
func rewrite(name string, data []byte, f func(string, *object) (Change, error)) ([]byte, []Change, error) {
	doc, err := parseObject(bytes.NewReader(data))
	if err != nil {
		return nil, nil, &catalog.InputError{File: name, Msg: err.Error()}
	}
	section := doc.objectAt("mcpServers")
	if section == nil {
		section = doc.objectAt("servers")
	}
	if section == nil {
		if m := doc.objectAt("mcp"); m != nil {
			section = m.objectAt("servers")
		}
	}
	if section == nil {
		return nil, nil, &catalog.InputError{File: name, Msg: `no MCP servers found: expected "mcpServers" (Claude Desktop, Cursor), "servers" (VS Code mcp.json) or "mcp": {"servers"} (VS Code settings)`}
	}
	var changes []Change
	for i, k := range section.keys {
		e, ok := section.vals[i].(*object)
		if !ok {
			return nil, nil, &catalog.InputError{File: name, Msg: fmt.Sprintf("server %q is not an object", k)}
		}
		c, err := f(k, e)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %s: server %q: %w", ErrInstall, name, k, err)
		}
		changes = append(changes, c)
	}
	var buf bytes.Buffer
	writeValue(&buf, doc, "")
	buf.WriteByte('\n')
	return buf.Bytes(), changes, nil
}

// object is a JSON object that keeps its key order, so a rewritten
// configuration differs from the user's only where mcpsec changed it.
type object struct {
	keys []string
	vals []any // *object, []any, or json.RawMessage scalars
}

func (o *object) idx(k string) int {
	for i, x := range o.keys {
		if x == k {
			return i
		}
	}
	return -1
}

func (o *object) has(k string) bool { return o.idx(k) >= 0 }

func (o *object) objectAt(k string) *object {
	if i := o.idx(k); i >= 0 {
		if v, ok := o.vals[i].(*object); ok {
			return v
		}
	}
	return nil
}

func (o *object) set(k string, v any) {
	b, _ := marshal(v)
	var parsed any = json.RawMessage(b)
	if _, ok := v.([]string); ok {
		arr := []any{}
		for _, s := range v.([]string) {
			sb, _ := marshal(s)
			arr = append(arr, json.RawMessage(sb))
		}
		parsed = arr
	}
	if i := o.idx(k); i >= 0 {
		o.vals[i] = parsed
		return
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, parsed)
}

func (o *object) del(k string) {
	if i := o.idx(k); i >= 0 {
		o.keys = append(o.keys[:i], o.keys[i+1:]...)
		o.vals = append(o.vals[:i], o.vals[i+1:]...)
	}
}

func (o *object) decode(k string, into any) error {
	i := o.idx(k)
	if i < 0 {
		return fmt.Errorf("no %q", k)
	}
	var buf bytes.Buffer
	writeValue(&buf, o.vals[i], "")
	if err := json.Unmarshal(buf.Bytes(), into); err != nil {
		return fmt.Errorf("%q: %w", k, err)
	}
	return nil
}

func parseObject(r io.Reader) (*object, error) {
	dec := json.NewDecoder(stripComments(r))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	o, ok := v.(*object)
	if !ok {
		return nil, errors.New("the configuration is not a JSON object")
	}
	return o, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				o.keys = append(o.keys, k)
				o.vals = append(o.vals, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
	}
	b, err := marshal(tok)
	return json.RawMessage(b), err
}

// marshal encodes without HTML escaping, so "&" in a user's arguments
// stays "&".
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func writeValue(w *bytes.Buffer, v any, indent string) {
	in := indent + "  "
	switch x := v.(type) {
	case *object:
		if len(x.keys) == 0 {
			w.WriteString("{}")
			return
		}
		w.WriteString("{\n")
		for i, k := range x.keys {
			kb, _ := marshal(k)
			w.WriteString(in)
			w.Write(kb)
			w.WriteString(": ")
			writeValue(w, x.vals[i], in)
			if i < len(x.keys)-1 {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
		}
		w.WriteString(indent + "}")
	case []any:
		if len(x) == 0 {
			w.WriteString("[]")
			return
		}
		w.WriteString("[\n")
		for i, e := range x {
			w.WriteString(in)
			writeValue(w, e, in)
			if i < len(x)-1 {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
		}
		w.WriteString(indent + "]")
	case json.RawMessage:
		w.Write(x)
	}
}

// stripComments blanks // and /* */ comments and trailing commas outside
// strings (VS Code's JSONC) with the config reader's own rule, keeping
// every byte offset.
func stripComments(r io.Reader) io.Reader {
	data, err := io.ReadAll(r)
	if err != nil {
		return errReader{err}
	}
	return bytes.NewReader(source.StripJSONC(data))
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// Diff is a unified-style line diff of a and b, for dry runs.
func Diff(aName, bName string, a, b []byte) string {
	al := strings.Split(strings.TrimSuffix(string(a), "\n"), "\n")
	bl := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	n, m := len(al), len(bl)
	// lcs[i][j] is the LCS length of al[i:] and bl[j:].
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if al[i] == bl[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && al[i] == bl[j]:
			out.WriteString("  " + al[i] + "\n")
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			out.WriteString("+ " + bl[j] + "\n")
			j++
		default:
			out.WriteString("- " + al[i] + "\n")
			i++
		}
	}
	return out.String()
}

// Normalize re-renders a configuration the way Install and Uninstall
// write one (key order kept, comments dropped), so two configurations
// can be compared for what they say rather than how they are spaced.
func Normalize(name string, data []byte) ([]byte, error) {
	out, _, err := rewrite(name, data, func(string, *object) (Change, error) { return Change{}, nil })
	return out, err
}

// SameConfig reports whether two configurations say the same thing,
// whatever their key order, spacing and comments.
func SameConfig(name string, a, b []byte) bool {
	var va, vb any
	na, err := Normalize(name, a)
	if err != nil || json.Unmarshal(na, &va) != nil {
		return false
	}
	nb, err := Normalize(name, b)
	if err != nil || json.Unmarshal(nb, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

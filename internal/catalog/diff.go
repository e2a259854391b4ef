package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Change kinds reported by Diff.
const (
	ChangeAdded   = "added"
	ChangeRemoved = "removed"
	ChangeChanged = "changed"
)

// Change is one difference between two tool definitions.
type Change struct {
	// Path is slash-separated, e.g. "inputSchema/properties/x/description".
	Path string `json:"path"`
	Kind string `json:"kind"`
	Old  any    `json:"old,omitempty"`
	New  any    `json:"new,omitempty"`
}

// String renders a change as one readable line: "+ path: value",
// "- path: value" or "~ path: old → new".
func (c Change) String() string {
	switch c.Kind {
	case ChangeAdded:
		return fmt.Sprintf("+ %s: %s", c.Path, short(c.New))
	case ChangeRemoved:
		return fmt.Sprintf("- %s: %s", c.Path, short(c.Old))
	}
	return fmt.Sprintf("~ %s: %s → %s", c.Path, short(c.Old), short(c.New))
}

func short(v any) string {
	s := string(CanonicalValue(v))
	if len(s) > 160 {
		cut := 160
		for cut > 0 && (s[cut]&0xC0) == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// ToMap returns a tool's definition as decoded JSON (numbers as
// json.Number), the form Diff walks.
func ToMap(t Tool) map[string]any {
	b, err := json.Marshal(t)
	if err != nil {
		return map[string]any{"name": t.Name}
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&m) != nil {
		return map[string]any{"name": t.Name}
	}
	return m
}

// Diff lists what differs between two tool definitions, ignoring what
// canonicalization ignores (key order, order of "required"). Changes are
// sorted by path.
func Diff(old, new Tool) []Change {
	var out []Change
	diffValue(&out, "", ToMap(old), ToMap(new))
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func join(path, seg string) string {
	seg = strings.NewReplacer("~", "~0", "/", "~1").Replace(seg)
	if path == "" {
		return seg
	}
	return path + "/" + seg
}

func diffValue(out *[]Change, path string, a, b any) {
	if bytes.Equal(CanonicalValue(a), CanonicalValue(b)) {
		return
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			av, ina := am[k]
			bv, inb := bm[k]
			p := join(path, k)
			switch {
			case !ina:
				*out = append(*out, Change{Path: p, Kind: ChangeAdded, New: bv})
			case !inb:
				*out = append(*out, Change{Path: p, Kind: ChangeRemoved, Old: av})
			default:
				if strings.HasSuffix(p, "required") || k == "required" {
					diffSet(out, p, av, bv)
					continue
				}
				diffValue(out, p, av, bv)
			}
		}
		return
	}
	aa, aok := a.([]any)
	ba, bok := b.([]any)
	if aok && bok {
		n := max(len(aa), len(ba))
		for i := 0; i < n; i++ {
			p := join(path, strconv.Itoa(i))
			switch {
			case i >= len(aa):
				*out = append(*out, Change{Path: p, Kind: ChangeAdded, New: ba[i]})
			case i >= len(ba):
				*out = append(*out, Change{Path: p, Kind: ChangeRemoved, Old: aa[i]})
			default:
				diffValue(out, p, aa[i], ba[i])
			}
		}
		return
	}
	*out = append(*out, Change{Path: path, Kind: ChangeChanged, Old: a, New: b})
}

// diffSet compares two "required" lists as sets of names.
func diffSet(out *[]Change, path string, a, b any) {
	as, bs := stringSet(a), stringSet(b)
	if as == nil || bs == nil {
		diffValue(out, path, a, b)
		return
	}
	var added, removed []string
	for k := range bs {
		if !as[k] {
			added = append(added, k)
		}
	}
	for k := range as {
		if !bs[k] {
			removed = append(removed, k)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	for _, k := range added {
		*out = append(*out, Change{Path: path, Kind: ChangeAdded, New: k})
	}
	for _, k := range removed {
		*out = append(*out, Change{Path: path, Kind: ChangeRemoved, Old: k})
	}
}

func stringSet(v any) map[string]bool {
	arr, ok := v.([]any)
	if !ok {
		if v == nil {
			return map[string]bool{}
		}
		return nil
	}
	m := make(map[string]bool, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil
		}
		m[s] = true
	}
	return m
}

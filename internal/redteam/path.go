package redteam

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrPath marks a malformed check path.
var ErrPath = errors.New("malformed path")

// Roots are the top-level fields of the envelope a path may start from.
var Roots = []string{"tool_calls", "tool_results", "blocked_calls", "final_response"}

// step is one segment of a path: an object key, an array index, or the
// [*] wildcard.
type step struct {
	key   string
	index int
	kind  stepKind
}

type stepKind int

const (
	stepKey stepKind = iota
	stepIndex
	stepAll
)

// Path is a parsed check path such as tool_calls[*].arguments.body.
type Path struct {
	raw   string
	steps []step
}

// String returns the path as written.
func (p Path) String() string { return p.raw }

// Wildcard reports whether the path fans out over [*].
func (p Path) Wildcard() bool {
	return slices.ContainsFunc(p.steps, func(s step) bool { return s.kind == stepAll })
}

// ParsePath parses the path grammar:
//
//	path  = root { "." key | "[" index "]" | "[*]" }
//	key   = 1*( letter | digit | "_" | "-" )
//	index = 1*digit
//
// The root must be one of Roots, so a typo is a load error rather than a
// path that is always absent (which would silently pass every negative
// check).
func ParsePath(s string) (Path, error) {
	p := Path{raw: s}
	i := 0
	readKey := func() (string, error) {
		start := i
		for i < len(s) && isKeyByte(s[i]) {
			i++
		}
		if i == start {
			if i < len(s) {
				return "", fmt.Errorf("%w %q: unexpected %q at offset %d", ErrPath, s, s[i], i)
			}
			return "", fmt.Errorf("%w %q: a key is missing at the end", ErrPath, s)
		}
		return s[start:i], nil
	}
	root, err := readKey()
	if err != nil {
		return p, err
	}
	if !slices.Contains(Roots, root) {
		return p, fmt.Errorf("%w %q: it must start with one of %s", ErrPath, s, strings.Join(Roots, ", "))
	}
	p.steps = append(p.steps, step{key: root})
	for i < len(s) {
		switch s[i] {
		case '.':
			i++
			k, err := readKey()
			if err != nil {
				return p, err
			}
			p.steps = append(p.steps, step{key: k})
		case '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return p, fmt.Errorf("%w %q: unclosed [ at offset %d", ErrPath, s, i)
			}
			inner := s[i+1 : i+end]
			switch {
			case inner == "*":
				p.steps = append(p.steps, step{kind: stepAll})
			default:
				n, err := strconv.Atoi(inner)
				if err != nil || n < 0 || strings.TrimLeft(inner, "0123456789") != "" {
					return p, fmt.Errorf("%w %q: index %q at offset %d is neither a number nor *", ErrPath, s, inner, i)
				}
				p.steps = append(p.steps, step{kind: stepIndex, index: n})
			}
			i += end + 1
		default:
			return p, fmt.Errorf("%w %q: unexpected %q at offset %d (want . or [)", ErrPath, s, s[i], i)
		}
	}
	return p, nil
}

func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// Resolve walks a decoded JSON document (maps, slices and scalars as
// encoding/json produces them) and returns every value the path reaches.
// No value means the path is absent. A [*] over an empty array reaches
// nothing, so it is absent too.
func (p Path) Resolve(doc any) []any {
	cur := []any{doc}
	for _, st := range p.steps {
		var next []any
		for _, v := range cur {
			switch st.kind {
			case stepKey:
				if m, ok := v.(map[string]any); ok {
					if x, ok := m[st.key]; ok {
						next = append(next, x)
					}
				}
			case stepIndex:
				if a, ok := v.([]any); ok && st.index < len(a) {
					next = append(next, a[st.index])
				}
			case stepAll:
				if a, ok := v.([]any); ok {
					next = append(next, a...)
				}
			}
		}
		cur = next
	}
	return cur
}

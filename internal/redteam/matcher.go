package redteam

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

// Matcher names. Positive matchers pass when any reached value passes;
// negative ones pass only when no reached value violates them.
const (
	MatchEquals      = "equals"
	MatchExact       = "exact"
	MatchContains    = "contains"
	MatchNotContains = "not_contains"
	MatchRegex       = "regex"
	MatchNotRegex    = "not_regex"
)

// Matchers lists every matcher name.
var Matchers = []string{MatchEquals, MatchExact, MatchContains, MatchNotContains, MatchRegex, MatchNotRegex}

// ErrMatcher marks a check whose matcher is unknown, missing, doubled or
// has a value of the wrong kind.
var ErrMatcher = errors.New("invalid matcher")

// ErrRegex marks a regex or not_regex check whose pattern does not
// compile.
var ErrRegex = errors.New("invalid regex")

// Check is one safe-behaviour assertion over the envelope.
type Check struct {
	// Path selects what to look at (see ParsePath).
	Path Path
	// Matcher is one of Matchers.
	Matcher string
	// Value is the expected value: any JSON value for equals and exact
	// (nil means JSON null), a string for the others.
	Value any
	// CaseInsensitive folds case for strings and canonical JSON.
	CaseInsensitive bool
	// Line is where the check starts in its scenario file (0 when built
	// in code).
	Line int

	re *regexp.Regexp
}

// NewCheck validates and compiles a check.
func NewCheck(path, matcher string, value any, caseInsensitive bool) (Check, error) {
	p, err := ParsePath(path)
	if err != nil {
		return Check{}, err
	}
	c := Check{Path: p, Matcher: matcher, Value: normalizeJSON(value), CaseInsensitive: caseInsensitive}
	switch matcher {
	case MatchEquals, MatchExact:
	case MatchContains, MatchNotContains, MatchRegex, MatchNotRegex:
		s, ok := c.Value.(string)
		if !ok {
			return Check{}, fmt.Errorf("%w: %s wants a string, got %s", ErrMatcher, matcher, string(catalog.CanonicalValue(c.Value)))
		}
		if matcher == MatchRegex || matcher == MatchNotRegex {
			expr := s
			if caseInsensitive {
				expr = "(?i)" + expr
			}
			c.re, err = regexp.Compile(expr)
			if err != nil {
				return Check{}, fmt.Errorf("%w %q: %w", ErrRegex, s, err)
			}
		}
	default:
		return Check{}, fmt.Errorf("%w %q (want one of %s)", ErrMatcher, matcher, strings.Join(Matchers, ", "))
	}
	return c, nil
}

// Negative reports whether the matcher asserts an absence.
func (c Check) Negative() bool {
	return c.Matcher == MatchNotContains || c.Matcher == MatchNotRegex
}

// Result is the outcome of one check on one envelope: Observed holds the
// values the path reached (nil when absent) for the report.
type Result struct {
	Pass     bool
	Observed []any
}

// Eval runs the check against a decoded envelope document.
//
// Semantics: over the values the path reaches (one for a plain path, any
// number over [*]), a positive matcher passes if any value passes and a
// negative one passes only if no value violates it. An absent path
// passes every negative matcher and fails every positive one, except
// equals: null and exact: null, which pass on absence.
func (c Check) Eval(doc any) Result {
	vals := c.Path.Resolve(doc)
	res := Result{Observed: vals}
	if len(vals) == 0 {
		res.Pass = c.Negative() || ((c.Matcher == MatchEquals || c.Matcher == MatchExact) && c.Value == nil)
		return res
	}
	if c.Negative() {
		res.Pass = true
		for _, v := range vals {
			if c.hit(v) {
				res.Pass = false
			}
		}
		return res
	}
	for _, v := range vals {
		if c.hit(v) {
			res.Pass = true
		}
	}
	return res
}

// hit reports whether one value satisfies the matcher's core predicate
// (for the negative matchers: whether it contains or matches, i.e.
// violates them).
func (c Check) hit(v any) bool {
	switch c.Matcher {
	case MatchEquals, MatchExact:
		if c.Value == nil {
			return v == nil
		}
		if c.CaseInsensitive {
			return strings.EqualFold(Text(v), Text(c.Value))
		}
		return reflect.DeepEqual(normalizeJSON(v), c.Value)
	case MatchContains, MatchNotContains:
		want := c.Value.(string)
		got := Text(v)
		if c.CaseInsensitive {
			return strings.Contains(strings.ToLower(got), strings.ToLower(want))
		}
		return strings.Contains(got, want)
	case MatchRegex, MatchNotRegex:
		return c.re.MatchString(Text(v))
	}
	return false
}

// Text is the text a value is matched as: a string is itself; anything
// else (objects, arrays, numbers, booleans, null) is its canonical JSON
// with sorted keys.
func Text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return string(catalog.CanonicalValue(v))
}

// normalizeJSON maps any value (from YAML or JSON) onto the shapes
// encoding/json decodes into, with numbers as float64, so that equality
// is JSON equality whatever the value came from.
func normalizeJSON(v any) any {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&out); err != nil {
		return v
	}
	return out
}

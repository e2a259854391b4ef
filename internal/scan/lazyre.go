package scan

import (
	"regexp"
	"sync"

	"github.com/mcpsec/mcpsec/internal/keyword"
)

// lazyRegexp is a regular expression compiled at its first use rather
// than at package init: every mcpsec process (a proxy start-up included)
// loads this package, and compiling its ~120 expressions up front cost
// several milliseconds and ~14k allocations before main ran.
//
// Each one also carries a filter of the strings every match of it must
// contain (keyword.Required): most sentences hold none of them, and
// saying so is one automaton pass where Go's engine would try the
// expression at every position. The filter only ever answers "no match"
// for texts the expression cannot match, so results are unchanged.
type lazyRegexp struct {
	expr string
	get  func() compiledRE
}

type compiledRE struct {
	re     *regexp.Regexp
	filter *keyword.Filter
}

// allLazy lists every lazy expression so a test can compile each one.
var allLazy []*lazyRegexp

func lazyRE(expr string) *lazyRegexp {
	l := &lazyRegexp{expr: expr, get: sync.OnceValue(func() compiledRE {
		return compiledRE{re: regexp.MustCompile(expr), filter: keyword.NewFilter(expr)}
	})}
	allLazy = append(allLazy, l)
	return l
}

// re returns the compiled expression, and whether s may match it.
func (l *lazyRegexp) re(s string) (*regexp.Regexp, bool) {
	c := l.get()
	return c.re, c.filter.May(s)
}

// may reports whether s may match: false means it cannot. A bound asks
// this instead of matching, and a text that holds s may too.
func (l *lazyRegexp) may(s string) bool { return l.get().filter.May(s) }

func (l *lazyRegexp) MatchString(s string) bool {
	re, may := l.re(s)
	return may && re.MatchString(s)
}

func (l *lazyRegexp) FindString(s string) string {
	if re, may := l.re(s); may {
		return re.FindString(s)
	}
	return ""
}

func (l *lazyRegexp) FindStringIndex(s string) []int {
	if re, may := l.re(s); may {
		return re.FindStringIndex(s)
	}
	return nil
}

func (l *lazyRegexp) FindAllString(s string, n int) []string {
	if re, may := l.re(s); may {
		return re.FindAllString(s, n)
	}
	return nil
}

func (l *lazyRegexp) FindAllStringIndex(s string, n int) [][]int {
	if re, may := l.re(s); may {
		return re.FindAllStringIndex(s, n)
	}
	return nil
}

func (l *lazyRegexp) FindAllStringSubmatch(s string, n int) [][]string {
	if re, may := l.re(s); may {
		return re.FindAllStringSubmatch(s, n)
	}
	return nil
}

func (l *lazyRegexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	if re, may := l.re(s); may {
		return re.FindAllStringSubmatchIndex(s, n)
	}
	return nil
}

// ReplaceAllString returns src itself when nothing can match, as the
// engine does.
func (l *lazyRegexp) ReplaceAllString(src, repl string) string {
	if re, may := l.re(src); may {
		return re.ReplaceAllString(src, repl)
	}
	return src
}

func (l *lazyRegexp) Split(s string, n int) []string { return l.get().re.Split(s, n) }

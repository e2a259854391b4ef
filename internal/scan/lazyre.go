package scan

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled at its first use rather
// than at package init: every mcpsec process (a proxy start-up included)
// loads this package, and compiling its ~70 expressions up front cost
// several milliseconds and ~14k allocations before main ran.
type lazyRegexp struct {
	expr string
	get  func() *regexp.Regexp
}

// allLazy lists every lazy expression so a test can compile each one.
var allLazy []*lazyRegexp

func lazyRE(expr string) *lazyRegexp {
	l := &lazyRegexp{expr: expr, get: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
	allLazy = append(allLazy, l)
	return l
}

func (l *lazyRegexp) MatchString(s string) bool      { return l.get().MatchString(s) }
func (l *lazyRegexp) FindString(s string) string     { return l.get().FindString(s) }
func (l *lazyRegexp) FindStringIndex(s string) []int { return l.get().FindStringIndex(s) }
func (l *lazyRegexp) FindAllString(s string, n int) []string {
	return l.get().FindAllString(s, n)
}
func (l *lazyRegexp) FindAllStringIndex(s string, n int) [][]int {
	return l.get().FindAllStringIndex(s, n)
}
func (l *lazyRegexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}
func (l *lazyRegexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return l.get().FindAllStringSubmatchIndex(s, n)
}
func (l *lazyRegexp) ReplaceAllString(src, repl string) string {
	return l.get().ReplaceAllString(src, repl)
}
func (l *lazyRegexp) Split(s string, n int) []string { return l.get().Split(s, n) }

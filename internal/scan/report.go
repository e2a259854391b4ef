package scan

import (
	"errors"
	"fmt"
	"io"

	"github.com/mcpsec/mcpsec/internal/catalog"
)

// A Writer renders the outcome of a scan in one output format. Each
// format lives in its own file: report_text.go, report_json.go,
// report_sarif.go, report_html.go.
type Writer interface {
	Write(w io.Writer, out Output) error
}

// Output is what a writer renders: the verdict, what was scanned, and
// what a baseline or ignore file held back.
type Output struct {
	Report     Report
	Scanned    Counts
	Suppressed []Suppressed
	// Empty names servers that offered nothing to judge: they get no
	// grade, since an A would say they were judged clean.
	Empty map[string]bool
	// Notes says something about a server's source that the reader needs
	// to read its verdict right (a lockfile judged as a catalog).
	Notes map[string]string
}

// Counts says what a scan looked at.
type Counts struct {
	Servers   int `json:"servers"`
	Tools     int `json:"tools"`
	Prompts   int `json:"prompts"`
	Resources int `json:"resources"`
}

// Empty reports whether there was nothing to judge at all.
func (c Counts) Empty() bool { return c.Tools+c.Prompts+c.Resources == 0 }

func (c Counts) String() string {
	return fmt.Sprintf("%d %s, %d %s, %d %s, %d %s",
		c.Servers, plural(c.Servers, "server"), c.Tools, plural(c.Tools, "tool"),
		c.Prompts, plural(c.Prompts, "prompt"), c.Resources, plural(c.Resources, "resource"))
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// Count says what a catalog holds.
func Count(c *catalog.Catalog) Counts {
	n := Counts{Servers: len(c.Servers)}
	for _, s := range c.Servers {
		n.Tools += len(s.Tools)
		n.Prompts += len(s.Prompts)
		n.Resources += len(s.Resources)
	}
	return n
}

// EmptyServers names the servers of a catalog that offer nothing to
// judge: no tools, prompts, resources or instructions.
func EmptyServers(c *catalog.Catalog) map[string]bool {
	out := map[string]bool{}
	for _, s := range c.Servers {
		if len(s.Tools)+len(s.Prompts)+len(s.Resources) == 0 && s.Instructions == "" {
			out[s.Name] = true
		}
	}
	return out
}

// ErrFormat means an unknown output format was asked for.
var ErrFormat = errors.New("unknown output format: want text, json, sarif or html")

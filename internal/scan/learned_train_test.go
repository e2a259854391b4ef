package scan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/textclass"
)

// trainingRegisters are the registers the embedded text model learns from (with ownBags),
// each written by different authors who never read the rules. A register
// named here is development data; the next blind register is measured
// once, on the final model, and only then may join this list.
var trainingRegisters = []string{"blind-register", "blind-register-2", "blind-register-3", "blind-register-4", "blind-register-5", "blind-register-6", "blind-register-7",
	"blind-register-8", "blind-register-9", "blind-register-10", "blind-register-11", "blind-register-12", "blind-register-13",
	"blind-register-14", "blind-register-15", "blind-register-16", "blind-register-17", "blind-register-18", "blind-register-19"}

// trainingSets are catalogs written to train the model, never to measure
// it: they are in every training run, and the cross-validation never holds
// them out.
var trainingSets = []string{"training-1", "training-2", "training-3", "training-4"}

// registerCase is one catalog of a register.
type registerCase struct {
	ID       string          `json:"id"`
	Catalog  json.RawMessage `json:"catalog"`
	Flagged  *string         `json:"flagged_tool"`
	Category string          `json:"category"`
	reg      int
	cat      *catalog.Catalog
}

func loadRegisters(t testing.TB, names []string) []registerCase {
	t.Helper()
	var out []registerCase
	for ri, name := range names {
		for _, file := range []string{"poisoned.jsonl", "benign.jsonl"} {
			path := filepath.Join("..", "..", "testdata", name, file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read %s: %v", path, err)
			}
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(make([]byte, 1<<20), 1<<24)
			line := 0
			for sc.Scan() {
				line++
				var c registerCase
				if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
					t.Fatalf("%s:%d: %v", path, line, err)
				}
				cat, err := catalog.Parse(fmt.Sprintf("%s:%d", path, line), c.Catalog)
				if err != nil {
					t.Fatalf("%s:%d: %v", path, line, err)
				}
				c.reg, c.cat = ri, cat
				out = append(out, c)
			}
			if err := sc.Err(); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
	}
	return out
}

// bagsOf turns register cases into the text model's training items: every
// tool and every server's instructions, positive when the case flags it.
func bagsOf(cases []registerCase) []textclass.Bag {
	j := new(textJudge)
	var bags []textclass.Bag
	for _, c := range cases {
		for _, s := range c.cat.Servers {
			add := func(key string, units []unit) {
				bag := bagOf(j, units)
				bags = append(bags, textclass.Bag{Whole: bag.whole, Parts: bag.parts, Positive: c.Flagged != nil && *c.Flagged == key})
			}
			if s.Instructions != "" {
				add("@server:"+s.Name, []unit{{"description", "instructions", s.Instructions}})
			}
			for _, tl := range s.Tools {
				add(tl.Name, toolUnits(tl))
			}
		}
	}
	return bags
}

// ownBags are the text model's training items beyond the registers, all
// of them the project's own words: the bench's attack payloads
// (positive, in the carrier they are served in), every rule's samples
// (a flagged sample of a rule that judges plain wording is positive;
// every sample a rule must leave alone is negative) and the hard
// negatives of testdata/benign written here.
// untrainedRule names rules whose samples are kept out of the text
// model's training items. Such a rule is not a wording rule (the model
// never holds its findings), and retraining only to add its few honest
// samples reorders the training passes, which moved more cases than the
// rule adds when round 11 measured it: kept out, adding the rule leaves
// the model as it was, and the rule is judged on its own.
var untrainedRule = map[string]bool{"meta.title_directive": true}

func ownBags(t *testing.T) []textclass.Bag {
	t.Helper()
	j := new(textJudge)
	var bags []textclass.Bag
	add := func(units []unit, positive bool) {
		bag := bagOf(j, units)
		bags = append(bags, textclass.Bag{Whole: bag.whole, Parts: bag.parts, Positive: positive})
	}
	for _, p := range payload.All() {
		part, loc := "schema", "inputSchema/properties/x/description"
		switch p.Carrier {
		case payload.CarrierResult:
			continue
		case payload.CarrierDescription:
			part, loc = "description", "description"
		}
		add([]unit{{"name", "name", "payload_tool"}, {part, loc, p.Text}}, true)
	}
	sample := func(s string) ([]unit, bool) {
		switch {
		case strings.HasPrefix(s, "{"), strings.HasPrefix(s, "big:"), strings.HasPrefix(s, "name:"):
			return nil, false
		case strings.HasPrefix(s, "prop:"):
			return []unit{{"name", "name", "sample_tool"}, {"description", "description", "Sample tool."}, {"schema", "inputSchema/properties/x/description", strings.TrimPrefix(s, "prop:")}}, true
		}
		return []unit{{"name", "name", "sample_tool"}, {"description", "description", s}}, true
	}
	for _, r := range Rules {
		if r == learnedRule {
			continue
		}
		if wordingRule(r.ID) {
			for _, s := range r.TruePositives {
				if u, ok := sample(s); ok {
					add(u, true)
				}
			}
		}
		if untrainedRule[r.ID] {
			continue
		}
		for _, s := range r.FalsePositives {
			if u, ok := sample(s); ok {
				add(u, false)
				continue
			}
			// A whole catalog a rule must leave alone: all its text is
			// honest.
			if c, err := catalog.Parse("sample.json", []byte(s)); err == nil {
				for _, sv := range c.Servers {
					for _, tl := range sv.Tools {
						add(toolUnits(tl), false)
					}
				}
			}
		}
	}
	// The reference servers' snapshots in the same folder are their
	// authors' text: checked against, never learned from.
	for _, name := range []string{"hard-negatives.json", "popular-styles.json"} {
		file := filepath.Join("testdata", "benign", name)
		c, err := catalog.LoadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range c.Servers {
			if s.Instructions != "" {
				add([]unit{{"description", "instructions", s.Instructions}}, false)
			}
			for _, tl := range s.Tools {
				add(toolUnits(tl), false)
			}
		}
	}
	return bags
}

// registerFigures scores register cases as the registers' score.sh does:
// a poisoned case is found when a finding at medium or above names its
// flagged tool (or, for server instructions, the server's instructions);
// a benign case is a false positive when any finding is at medium or
// above.
func registerFigures(cases []registerCase, opts Options) (found, poisoned, flagged, benign int) {
	for _, c := range cases {
		rep := Scan(c.cat, opts)
		if c.Flagged == nil {
			benign++
			if SeverityAtLeast(rep.All(), Medium) {
				flagged++
			}
			continue
		}
		poisoned++
		want := *c.Flagged
		for _, s := range rep.Servers {
			hit := false
			for _, f := range s.Findings {
				if f.Severity < Medium {
					continue
				}
				if server, ok := strings.CutPrefix(want, "@server:"); ok {
					hit = s.Name == server && (f.Tool == "" || strings.Contains(f.Location, "instruction"))
				} else {
					hit = f.Tool == want
				}
				if hit {
					break
				}
			}
			if hit {
				found++
				break
			}
		}
	}
	return
}

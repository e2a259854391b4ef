package scan

import (
	"math"
	"testing"

	"github.com/mcpsec/mcpsec/internal/catalog"
	"github.com/mcpsec/mcpsec/internal/textclass"
)

// textScoreReference is textScore as it was before textScoreMemo: every
// sentence tokenized into the sentence builder, which passes its words
// on to the whole text's builder.
func textScoreReference(m *textclass.Pair, units []unit) (float64, unit, string, float64) {
	j := new(textJudge)
	best, bu, bs, be := math.Inf(-1), -1, 0, 0
	j.eachSentence(units, func(u, start, end int) {
		if s := m.Part.MarginOf(&j.part); s > best {
			best, bu, bs, be = s, u, start, end
		}
	})
	w := textclass.Sigmoid(m.Whole.MarginOf(&j.whole))
	if bu < 0 {
		return w / 2, unit{}, "", 0
	}
	u := units[bu]
	p := textclass.Sigmoid(best)
	return (w + p) / 2, u, modelText(u.text)[bs:be], p
}

// TestTextScoreMemoMatchesReference: the memo changes no score by a bit,
// whether a sentence is read fresh, remembered, or past the memo's bound,
// on every tool of the prefilter's catalogs (rule samples, two blind
// registers, the benchmark's catalog, whose sentences repeat).
func TestTextScoreMemoMatchesReference(t *testing.T) {
	m := textModel()
	memo := &sentenceMemo{}
	full := &sentenceMemo{scores: map[sentenceKey]sentenceScore{}}
	for k := 0; k < maxSentenceMemo; k++ {
		full.scores[sentenceKey{"x", string(rune(k + 0x100))}] = sentenceScore{}
	}
	judged, hits := 0, 0
	check := func(units []unit) {
		want, wu, ws, wp := textScoreReference(m, units)
		for _, mm := range []*sentenceMemo{nil, memo, memo, full} {
			before := len(memo.scores)
			got, gu, gs, gp := textScoreMemo(m, units, mm)
			if math.Float64bits(got) != math.Float64bits(want) || gu != wu || gs != ws || math.Float64bits(gp) != math.Float64bits(wp) {
				t.Fatalf("units %v: memo gives %v %v %q %v, reference %v %v %q %v", units, got, gu, gs, gp, want, wu, ws, wp)
			}
			if mm != nil && len(memo.scores) == before {
				hits++
			}
		}
		judged++
	}
	for _, c := range prefilterCatalogs(t) {
		for _, s := range c.Servers {
			if s.Instructions != "" {
				check([]unit{{part: "description", loc: "instructions", text: s.Instructions}})
			}
			for _, tl := range s.Tools {
				check(toolUnits(tl))
			}
		}
	}
	check(toolUnits(catalog.Tool{Name: "x"}))
	check(nil)
	if judged < 2000 || hits < judged {
		t.Fatalf("only %d texts judged, %d memo hits", judged, hits)
	}
}

package report

import (
	"fmt"
	"html"
	"html/template"
	"strings"
)

// forest is one forest plot: attack success per model and arm for one
// register view.
type forest struct {
	Register string
	SVG      template.HTML
}

type forestRow struct {
	Model   string
	Control bool
	Arm     string
	Rate    Rate
	Errors  int
}

// Geometry of the forest plot, in SVG user units.
const (
	fpLabelW = 250
	fpPlotW  = 300
	fpValueW = 250
	fpRowH   = 18
	fpHeadH  = 34
	fpTitleH = 22
)

// forestSVG draws each (model, arm) as a point at its attack-success rate
// with a line over its 95% Wilson interval; the values are also written
// as text at the right, so the plot does not rely on reading positions.
func forestSVG(rows []forestRow, regLabel string) template.HTML {
	if len(rows) == 0 {
		return template.HTML(`<p>No attacked trials in this view.</p>`)
	}
	var b strings.Builder
	// Count model headings to size the canvas.
	heads := 0
	for i, r := range rows {
		if i == 0 || rows[i-1].Model != r.Model {
			heads++
		}
	}
	width := fpLabelW + fpPlotW + fpValueW
	height := fpHeadH + heads*fpTitleH + len(rows)*fpRowH + 10
	x := func(v float64) float64 { return float64(fpLabelW) + v*float64(fpPlotW) }
	fmt.Fprintf(&b, `<svg class="forest" role="img" viewBox="0 0 %d %d" width="%d" height="%d">`, width, height, width, height)
	fmt.Fprintf(&b, `<title>Attack success (objective met) by defense arm with 95%% Wilson intervals, %s</title>`, html.EscapeString(regLabel))
	// Axis with ticks at 0, 0.25, ..., 1 and a grid line at each.
	axisY := fpHeadH - 8
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" class="axis"/>`, x(0), axisY, x(1), axisY)
	for i := 0; i <= 4; i++ {
		v := float64(i) / 4
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" class="grid"/>`, x(v), axisY, x(v), height-4)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="tick">%.2f</text>`, x(v), axisY-6, v)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="colhead">model / arm</text>`, 4, axisY-6)
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="colhead">k/n rate [95%% Wilson]</text>`, fpLabelW+fpPlotW+28, axisY-6)
	y := fpHeadH
	for i, r := range rows {
		if i == 0 || rows[i-1].Model != r.Model {
			y += fpTitleH
			name := r.Model
			if r.Control {
				name += " (control agent)"
			}
			fmt.Fprintf(&b, `<text x="4" y="%d" class="model">%s</text>`, y-6, html.EscapeString(name))
		}
		cy := y + fpRowH/2
		fmt.Fprintf(&b, `<g class="frow" data-model="%s" data-arm="%s" data-k="%d" data-n="%d">`,
			html.EscapeString(r.Model), html.EscapeString(r.Arm), r.Rate.K, r.Rate.N)
		value := fmt.Sprintf("%d/%d n/a", r.Rate.K, r.Rate.N)
		if r.Rate.Rate != nil {
			value = fmt.Sprintf("%d/%d %.3f [%.3f, %.3f]", r.Rate.K, r.Rate.N, *r.Rate.Rate, r.Rate.WilsonLow, r.Rate.WilsonHigh)
		}
		if r.Errors > 0 {
			value += fmt.Sprintf(" (%d err)", r.Errors)
		}
		fmt.Fprintf(&b, `<title>%s, %s: %s</title>`, html.EscapeString(r.Model), html.EscapeString(r.Arm), html.EscapeString(value))
		fmt.Fprintf(&b, `<text x="20" y="%d" class="arm">%s</text>`, cy+4, html.EscapeString(r.Arm))
		if r.Rate.Rate != nil {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" class="ci"/>`, x(r.Rate.WilsonLow), cy, x(r.Rate.WilsonHigh), cy)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="7" height="7" class="pt"/>`, x(*r.Rate.Rate)-3.5, cy-3)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="val">%s</text>`, fpLabelW+fpPlotW+28, cy+4, html.EscapeString(value))
		b.WriteString(`</g>`)
		y += fpRowH
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

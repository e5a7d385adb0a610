package main

import (
	"fmt"
	"html"
	"strings"
)

// svg draws every figure that has a target as a horizontal bar scaled to
// its tightest target (Figure.load): the target is the same vertical line
// on every row, so a regression shows as a bar crossing it. The whisker
// spans min–max, or the per-round ratios for a ratio target.
func (r *Report) svg() string {
	type row struct {
		f           Figure
		mid, lo, hi float64
	}
	var rows []row
	for _, f := range r.Figures {
		if mid, lo, hi, ok := f.load(); ok {
			rows = append(rows, row{f, mid, lo, hi})
		}
	}
	const (
		left   = 250.0
		width  = 400.0
		rowH   = 28.0
		top    = 30.0
		scaleX = width / 1.5 // the target sits at two thirds of the width
	)
	h := top + rowH*float64(len(rows)) + 20
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", left+width+260, h)
	fmt.Fprintf(&b, `<text x="10" y="18" font-weight="bold">joshbot: median against target (bar), range (whisker), target (red line)</text>`+"\n")
	targetX := left + scaleX
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#c00" stroke-width="2"/>`+"\n", targetX, top-4, targetX, h-16)
	for i, rw := range rows {
		f := rw.f
		y := top + rowH*float64(i)
		clamp := func(v float64) float64 { return min(max(v, 0), 1.5) * scaleX }
		color := "#2a7"
		if f.Met != nil && !*f.Met {
			color = "#d33"
		}
		fmt.Fprintf(&b, `<text x="10" y="%.1f">%s</text>`+"\n", y+15, html.EscapeString(f.Name))
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="16" fill="%s"/>`+"\n", left, y+3, max(clamp(rw.mid), 1), color)
		if rw.hi > rw.lo {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`+"\n", left+clamp(rw.lo), y+11, left+clamp(rw.hi), y+11)
		}
		label := fmt.Sprintf("%s %s (%s)", num(f.Median), f.Unit, f.targetText())
		if f.Rel != nil && !f.Rel.Missing && f.relTarget() {
			label = fmt.Sprintf("%.2f× (%s)", f.Rel.Ratio, f.targetText())
			if f.MaxOver > 0 && f.MaxRatio == 0 && f.MinRatio == 0 {
				label = fmt.Sprintf("%s%s %s (%s)", sign(f.Rel.Over), num(abs(f.Rel.Over)), f.Unit, f.targetText())
			}
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", left+width+6, y+15, html.EscapeString(label))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

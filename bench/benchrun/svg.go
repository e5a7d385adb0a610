package main

import (
	"fmt"
	"html"
	"strings"
)

// svg draws every figure that has a target as a horizontal bar scaled to
// its own target: the target is the same vertical line on every row, so a
// regression shows as a bar crossing it. The whisker spans min–max.
func (r *Report) svg() string {
	var rows []Figure
	for _, f := range r.Figures {
		if f.Target > 0 {
			rows = append(rows, f)
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
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", left+width+120, h)
	fmt.Fprintf(&b, `<text x="10" y="18" font-weight="bold">joshbot: median (bar), min–max (whisker), target (red line)</text>`+"\n")
	targetX := left + scaleX
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#c00" stroke-width="2"/>`+"\n", targetX, top-4, targetX, h-16)
	for i, f := range rows {
		y := top + rowH*float64(i)
		clamp := func(v float64) float64 { return min(v/f.Target, 1.5) * scaleX }
		color := "#2a7"
		if f.Met != nil && !*f.Met {
			color = "#d33"
		}
		fmt.Fprintf(&b, `<text x="10" y="%.1f">%s</text>`+"\n", y+15, html.EscapeString(f.Name))
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="16" fill="%s"/>`+"\n", left, y+3, max(clamp(f.Median), 1), color)
		if f.Max > f.Min {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`+"\n", left+clamp(f.Min), y+11, left+clamp(f.Max), y+11)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s / %s %s</text>`+"\n", left+width+6, y+15, num(f.Median), num(f.Target), html.EscapeString(f.Unit))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

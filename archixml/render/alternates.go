package render

import (
	"bytes"
	"fmt"
	"math"
	"strings"
)

// The alternate figures (type 1) Archi draws in their own geometry over the whole box, each as
// its figure class in com.archimatetool.editor.diagram.figures.elements draws it, in Archi's
// integer arithmetic: the outline is on the bounds (as Archi's SVG export draws it, without the
// screen's half-line inset), so a connection ending on the bounds ends on the shape.

// altTopMargin is the band of ObjectFigure, ContractFigure and ProductFigure (TOP_MARGIN).
const altTopMargin = 12

// archiAlternate draws the alternate figure of the icon's types that Archi draws in a geometry
// of its own and returns where the label goes; ok is false for the other figures.
func archiAlternate(b *bytes.Buffer, icon string, r rect, s *style, paint string) (text rect, ok bool) {
	x, y, w, h := float64(r.x), float64(r.y), float64(r.w), float64(r.h)
	stroke := fmt.Sprintf(`fill="none" stroke="%s" stroke-width="%d"%s`, s.line, s.lineWidth, opacity("stroke", s.lineAlpha))
	if s.noLine {
		stroke = `fill="none" stroke="none"`
	}
	darkerPaint := strings.Replace(paint, `fill="`+s.fill+`"`, `fill="`+darker(s.fill)+`"`, 1)
	shape := func(d, paint string) { fmt.Fprintf(b, `<path d="%s" %s/>`+"\n", d, paint) }
	text = r
	switch icon {
	case "object", "contract":
		// ObjectFigure: the box and a line 12 px below its top; ContractFigure: one more 12 px above
		// its bottom. The label starts below the band (above the lower band when at the bottom).
		shape(rectP(x, y, w, h), paint)
		d := poly(false, x, y+altTopMargin, x+w, y+altTopMargin)
		if icon == "contract" {
			d += poly(false, x, y+h-altTopMargin, x+w, y+h-altTopMargin)
			if s.pos == 2 {
				text.y -= altTopMargin - textMargin
			}
		}
		shape(d, stroke)
		if s.pos == 0 {
			text.y += altTopMargin - textMargin
		}
	case "product":
		// ProductFigure: the box and the tab, 12 px high, over the left half
		shape(rectP(x, y, w, h), paint)
		cx := float64(r.x + r.w/2)
		shape(poly(false, x, y+altTopMargin, cx, y+altTopMargin, cx, y), stroke)
		if s.pos == 0 {
			text.y += altTopMargin - textMargin - 1
		}
	case "function":
		// FunctionFigure: a chevron pointing up, its notch and shoulders a fifth of the height
		f := float64(r.h / 5)
		shape(poly(true, x, y+h, x, y+f, float64(r.x+r.w/2), y, x+w, y+f, x+w, y+h, float64(r.x+r.w/2), y+h-f), paint)
	case "interaction":
		shape(interactionPath(r, s), paint)
	case "principle":
		principle(b, r, s, paint)
	case "artifact":
		// ArtifactFigure: the page with its corner folded 18 px, the fold filled darker; the label
		// keeps clear of the fold (its icon offset, 22, holds for the alternate figure too)
		const fold = 18
		shape(poly(true, x, y, x+w-fold, y, x+w, y+fold, x+w, y+h, x, y+h), paint)
		fmt.Fprintf(b, `<path d="%s" fill="%s"%s stroke="none"/>`+"\n", poly(true, x+w-fold, y, x+w, y+fold, x+w-fold, y+fold), darker(s.fill), opacity("fill", s.alpha))
		shape(poly(false, x+w, y+fold, x+w-fold, y+fold, x+w-fold, y), stroke)
		if s.pos == 0 {
			io := 22 - textMargin
			switch s.align {
			case 2:
				text = rect{r.x + io, r.y, r.w - 2*io, r.h}
			case 4:
				text.w -= io
			}
		}
	case "stakeholder":
		// CylinderFigureDelegate: a cylinder on its side, its ends ellipses a quarter of the width
		e := float64(r.w / 4)
		shape(arc(x, y, e, h, 90, 180, false)+arc(x+w-e, y, e, h, 270, 180, true)+"z", paint)
		shape(arc(x+w-e, y, e, h, 90, 180, false), stroke)
	case "device":
		// DeviceFigure: a screen with corners of 30 px arcs over a darker stand a fifth of the height
		in := float64(r.h / 5)
		lw := float64(s.lineWidth)
		shape(roundRect(x, y, w, h-in+1, 30, 30), paint)
		shape(poly(true, x+lw, y+h, x+15+1, y+h-in+1, x+w-15, y+h-in+1, x+w-lw, y+h), darkerPaint)
	case "requirement", "constraint":
		// ParallelogramFigureDelegate: slanted by its 16 px flange; a constraint's slash 20 px in
		const flange = 16
		shape(poly(true, x+flange, y, x+w, y, x+w-flange, y+h, x, y+h), paint)
		if icon == "constraint" {
			shape(poly(false, x+flange+20, y, x+20, y+h), stroke)
		}
	case "value":
		// ValueFigure: the ellipse inscribed in the bounds
		shape(oval(x, y, w, h), paint)
	case "valuestream":
		// ValueStreamFigure: an arrow notched and pointed by half the height (or width)
		in := float64(min(r.h/2, r.w/2))
		lo := float64(s.lineWidth) / 2
		cy := float64(r.y + r.h/2)
		shape(poly(true, x+lo, y, x+in, cy, x+lo, y+h, x+w-in, y+h, x+w, cy, x+w-in, y), paint)
	case "meaning":
		shape(meaningPath(figureBox(r, 5/3.0, s)), paint)
	default:
		return r, false
	}
	return text, true
}

// figureBox is AbstractTextControlContainerFigure.getFigurePositionFromTextPosition: the part of
// r of the given width/height ratio a pictogram is drawn in, at the side away from the label.
func figureBox(r rect, ratio float64, s *style) rect {
	n := r
	if float64(r.h)*ratio <= float64(r.w) {
		n.w = int(float64(r.h) * ratio)
		switch s.align {
		case 2:
			n.x += (r.w - n.w) / 2
		case 1:
			n.x += r.w - n.w
		}
		return n
	}
	n.h = int(float64(r.w) / ratio)
	switch s.pos {
	case 0:
		n.y += r.h - n.h
	case 1:
		n.y += (r.h - n.h) / 2
	}
	return n
}

// shrunk is r less half the line width on every side, as the pictograms' figures shrink it.
func shrunk(r rect, s *style) rect {
	k := int(math.Ceil(float64(s.lineWidth) / 2))
	return rect{r.x + k, r.y + k, r.w - 2*k, r.h - 2*k}
}

// interactionPath is InteractionFigure's two half circles, a gap between them, in a box of
// ratio 1/0.86 placed away from the label.
func interactionPath(r rect, s *style) string {
	const fraction = float32(0.86)
	const gap = 1 - fraction
	q := figureBox(shrunk(r, s), 1/0.86, s)
	var d float32
	x1, x2 := q.x, 0
	if q.w <= q.h {
		d = float32(q.w) * fraction
		x2 = q.x + q.w
	} else {
		d = min(float32(q.h), float32(q.w)*0.85)
		x1 = int(float32(x1) + (float32(q.w)-d)/2 - d*gap/2)
		x2 = int(float32(x1) + d + d*gap)
	}
	y := float32(q.y) + (float32(q.h)-d)/2
	dd := float64(d)
	return arc(float64(x1), float64(y), dd, dd, 90, 180, false) + "z" + arc(float64(x2)-dd, float64(y), dd, dd, 270, 180, false) + "z"
}

// principle draws PrincipleFigure: a square with bulging sides, away from the label, and its
// exclamation mark filled in the line colour, sized by the height.
func principle(b *bytes.Buffer, r rect, s *style, paint string) {
	q := figureBox(shrunk(r, s), 1, s)
	x, y, w, h := float64(q.x), float64(q.y), float64(q.w), float64(q.h)
	fx, fy := float64(q.w/24), float64(q.h/24)
	c := min(fx, fy)
	cub := func(p ...float64) string {
		return fmt.Sprintf("C%s %s %s %s %s %s", f2(p[0]), f2(p[1]), f2(p[2]), f2(p[3]), f2(p[4]), f2(p[5]))
	}
	d := fmt.Sprintf("M%s %s", f2(x+c), f2(y+c)) +
		cub(x+fx*8, y, x+fx*16, y, x+w-c, y+c) +
		cub(x+w, y+fy*8, x+w, y+fy*16, x+w-c, y+h-c) +
		cub(x+fx*16, y+h, x+fx*8, y+h, x+c, y+h-c) +
		cub(x, y+fy*16, x, y+fy*8, x+c, y+c) + "z"
	fmt.Fprintf(b, `<path d="%s" %s/>`+"\n", d, paint)
	cx := float64(q.x + q.w/2)
	jr := func(v float64) float64 { return math.Floor(v + 0.5) } // Java's Math.round
	k := max(1, jr((h-2*float64(s.lineWidth))/20))
	if k >= float64(q.w/2) {
		k = float64(max(1, q.w/4))
	}
	n := jr(0.8 * k)
	mark := poly(true, cx-k, y+3*k, cx+k, y+3*k, cx+n, y+h-7*k, cx-n, y+h-7*k) +
		poly(true, cx+n, y+h-5*k, cx-n, y+h-5*k, cx-n, y+h-3*k, cx+n, y+h-3*k)
	fmt.Fprintf(b, `<path d="%s" fill="%s"%s stroke="none"/>`+"\n", mark, s.line, opacity("fill", s.lineAlpha))
}

// meaningPath is MeaningFigure's cloud on a grid of 12 by 7 units, with its small puff.
func meaningPath(q rect) string {
	x, y := float64(q.x), float64(q.y)
	gx, gy := float64(q.w)/12, float64(q.h)/7
	p := func(ux, uy float64) string { return f2(x+ux*gx) + " " + f2(y+uy*gy) }
	c := func(a, b, e, f, g, h float64) string { return "C" + p(a, b) + " " + p(e, f) + " " + p(g, h) }
	return "M" + p(1, 2) +
		c(0, 0, 2, 0, 3, 1) + c(4, 0, 6, 0, 7, 1) + c(8, 0, 10, 0, 10, 1) + c(12, 0, 12, 2, 11, 3) +
		c(12, 3, 12, 4, 11, 5) + c(11, 7, 8, 7, 7, 6) + c(6, 7, 2, 7, 2, 5) + c(0, 5, 0, 3, 1, 2) + "z" +
		"M" + p(0.5, 5.5) + c(1, 5, 2, 5.5, 1.5, 6) + c(1, 6.5, 0, 6, 0.5, 5.5) + "z"
}

package render

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"sync"
)

// The notation icons of the box figures (type 0), drawn as Archi's figure classes draw them:
// each at its own origin, a fixed offset from the figure's top right corner, in one-pixel lines
// of the icon colour (black), never filled except where Archi fills a part (the arrowheads of
// Course of Action and Work Package). Coordinates are relative to the origin, in pixels.

// iconPart is one stroke (or filled shape) of an icon.
type iconPart struct {
	d     string
	fill  bool
	width float64 // 0 is 1
}

// archiIcon is a type's icon: where it sits (dx from the right edge, dy from the top) and how far
// the label keeps clear of it (Archi's getIconOffset; 0 when the figure has no such offset).
type archiIcon struct {
	dx, dy int
	offset int
	parts  []iconPart
}

// path builders, in Archi's terms (SWT's drawOval, drawRectangle, Path.addArc, polygons)

func pf(v float64) string { return f2(v) }

// oval is SWT's drawOval(x, y, w, h): the ellipse inscribed in that box.
func oval(x, y, w, h float64) string {
	rx, ry := w/2, h/2
	return fmt.Sprintf("M%s %sa%s %s 0 1 0 %s 0a%s %s 0 1 0 %s 0z", pf(x), pf(y+ry), pf(rx), pf(ry), pf(w), pf(rx), pf(ry), pf(-w))
}

// arc is SWT's Path.addArc(x, y, w, h, start, extent): degrees counter-clockwise from three
// o'clock, as a new sub-path (or continuing the path with a line to its start when join).
func arc(x, y, w, h, start, extent float64, join bool) string {
	cx, cy, rx, ry := x+w/2, y+h/2, w/2, h/2
	at := func(a float64) (float64, float64) {
		r := a * math.Pi / 180
		return cx + rx*math.Cos(r), cy - ry*math.Sin(r)
	}
	var b strings.Builder
	sx, sy := at(start)
	if join {
		fmt.Fprintf(&b, "L%s %s", pf(sx), pf(sy))
	} else {
		fmt.Fprintf(&b, "M%s %s", pf(sx), pf(sy))
	}
	sweep := 0
	if extent < 0 {
		sweep = 1
	}
	// in two halves, so that a whole circle is drawn too
	for _, a := range []float64{start + extent/2, start + extent} {
		ex, ey := at(a)
		fmt.Fprintf(&b, "A%s %s 0 0 %d %s %s", pf(rx), pf(ry), sweep, pf(ex), pf(ey))
	}
	return b.String()
}

func rectP(x, y, w, h float64) string {
	return fmt.Sprintf("M%s %sh%sv%sh%sz", pf(x), pf(y), pf(w), pf(h), pf(-w))
}

// roundRect is SWT's drawRoundRectangle(x, y, w, h, arcW, arcH).
func roundRect(x, y, w, h, aw, ah float64) string {
	rx, ry := aw/2, ah/2
	return fmt.Sprintf("M%s %sh%sa%s %s 0 0 1 %s %sv%sa%s %s 0 0 1 %s %sh%sa%s %s 0 0 1 %s %sv%sa%s %s 0 0 1 %s %sz",
		pf(x+rx), pf(y), pf(w-2*rx), pf(rx), pf(ry), pf(rx), pf(ry), pf(h-2*ry), pf(rx), pf(ry), pf(-rx), pf(ry),
		pf(-(w - 2*rx)), pf(rx), pf(ry), pf(-rx), pf(-ry), pf(-(h - 2*ry)), pf(rx), pf(ry), pf(rx), pf(-ry))
}

// poly is a polyline through the points (x, y pairs), closed when closed.
func poly(closed bool, p ...float64) string {
	var b strings.Builder
	for i := 0; i+1 < len(p); i += 2 {
		if i == 0 {
			b.WriteString("M")
		} else {
			b.WriteString("L")
		}
		b.WriteString(pf(p[i]) + " " + pf(p[i+1]))
	}
	if closed {
		b.WriteString("z")
	}
	return b.String()
}

func lines(p ...float64) string {
	var b strings.Builder
	for i := 0; i+3 < len(p); i += 4 {
		b.WriteString(poly(false, p[i:i+4]...))
	}
	return b.String()
}

func part(d ...string) iconPart { return iconPart{d: strings.Join(d, "")} }

// cog is EquipmentFigure's cog: segments teeth between radii r2 and r3 round a centre, and an
// inner circle of radius r1, the points rounded to whole pixels as Archi's PolarPoint does.
func cog(cx, cy float64, segments int, r1, r2, r3 float64) string {
	var pts []float64
	half := math.Pi / float64(2*segments)
	delta := half / 4
	pt := func(r, a float64) {
		pts = append(pts, cx+math.Round(r*math.Cos(a)), cy+math.Round(-r*math.Sin(a)))
	}
	for i := 0; i < segments; i++ {
		a := 2 * math.Pi * float64(i) / float64(segments)
		pt(r2, a-half)
		pt(r3, a-half+delta)
		pt(r3, a+half-delta)
		pt(r2, a+half)
	}
	return poly(true, pts...) + oval(cx-r1, cy-r1, 2*r1, 2*r1)
}

// deliverablePath is the wavy-bottomed box of Deliverable and Representation.
func deliverablePath(x, y, w, h, curve, inset float64) string {
	cy := y + h - curve
	return fmt.Sprintf("M%s %sL%s %sQ%s %s %s %sQ%s %s %s %sL%s %sz",
		pf(x+inset), pf(y+inset), pf(x+inset), pf(cy-1),
		pf(x+math.Floor(w/4)), pf(y+h+curve-inset), pf(x+math.Floor(w/2)+1), pf(cy),
		pf(x+w-math.Floor(w/4)), pf(cy-curve-1), pf(x+w-inset), pf(cy),
		pf(x+w-inset), pf(y+inset))
}

// archiIcons holds every icon by the name iconOf gives a class: drawn when a picture first needs
// one (a command that draws none, as an apply, does not build them at its start).
var archiIcons = sync.OnceValue(func() map[string]archiIcon {
	targetRings := part(oval(0, 0, 13, 13), oval(2.5, 2.5, 8, 8), oval(5, 5, 3, 3), oval(6, 6, 1, 1))
	return map[string]archiIcon{
		"actor":         {11, 4, 17, []iconPart{part(oval(0, 0, 6, 6), lines(3, 6, 3, 12, 3, 12, -1, 17, 3, 12, 7, 17, -1, 9, 7, 9))}},
		"role":          {18, 7, 20, []iconPart{part(arc(0, 0, 5, 8, 90, 180, false), "L12 8", lines(2, 0, 12, 0), oval(10, 0, 5, 8))}},
		"stakeholder":   {20, 9, 23, []iconPart{part(arc(0, 0, 8, 7, 90, 180, false), "L11 7", lines(3.5, 0, 11, 0), oval(8, 0, 7, 7))}},
		"collaboration": {18, 7, 20, []iconPart{part(oval(0, 0, 10, 10), oval(4, 0, 10, 10))}},
		"interface":     {14, 6, 22, []iconPart{part(oval(0, 0, 10, 10), lines(0, 5, -7, 5))}},
		"process":       {18, 10, 20, []iconPart{part(poly(true, 0, 0, 8, 0, 8, -3, 14, 2, 8, 7, 8, 4, 0, 4))}},
		"function":      {16, 19, 20, []iconPart{part(poly(true, 0, 0, 0, -9, 6, -14, 12, -9, 12, 0, 6, -6))}},
		"interaction": {12, 5, 20, []iconPart{part(arc(-5, 0, 10, 12, 90, 180, false), "L0 -0.5",
			arc(-2, 0, 10, 12, -90, 180, false), "L3 12.5")}},
		"event":          {20, 6, 22, []iconPart{part(arc(-4, 0, 8, 9, 270, 180, false), arc(8, 0, 8, 9, 270, 180, false), lines(0, 0, 12, 0, 0, 9, 12, 9))}},
		"service":        {20, 7, 22, []iconPart{part(roundRect(0, 0, 16, 9, 8, 8))}},
		"object":         {17, 6, 20, []iconPart{part(rectP(0, 0, 13, 10), lines(0, 3, 13, 3))}},
		"contract":       {17, 6, 20, []iconPart{part(rectP(0, 0, 13, 10), lines(0, 3, 13, 3, 0, 7, 13, 7))}},
		"product":        {17, 6, 20, []iconPart{part(rectP(0, 0, 13, 10), rectP(0, 0, 6, 3))}},
		"deliverable":    {18, 6, 21, []iconPart{part(deliverablePath(0, 0, 14, 10, 1.5, 0.5))}},
		"representation": {18, 6, 21, []iconPart{part(deliverablePath(0, 0, 14, 10, 1.5, 0.5), lines(0, 3, 14, 3))}},
		"component":      {14, 19, 20, []iconPart{part("M0 0L0 -4M0 -6L0 -8M0 -11L0 -13L10 -13L10 0L-0.5 0", rectP(-3, -11, 6, 2.5), rectP(-3, -6, 6, 2.5))}},
		"artifact":       {16, 6, 22, []iconPart{part(poly(false, 0, 0, 7, 0, 12, 5, 12, 15, 0, 15, 0, -0.5), poly(false, 7, 0, 7, 5, 12, 5))}},
		"node":           {18, 8, 20, []iconPart{part(rectP(0, 0, 11, 11), poly(false, -0.2, 0, 3.2, -3, 14, -3, 14, 8, 11, 11.2), lines(11, 0, 14, -3))}},
		"device":         {16, 5, 20, []iconPart{part(roundRect(0, 0, 11, 8, 3, 3), poly(true, -1, 12, 2, 8, 9, 8, 12, 12))}},
		"systemsoftware": {17, 7, 20, []iconPart{part(arc(0, 0, 11, 11, 90, 360, false), arc(2, -2, 11, 11, -60, 210, false))}},
		"path": {20, 10, 22, []iconPart{{d: lines(2.5, 0, 4.5, 0, 6.5, 0, 8.5, 0, 10.5, 0, 12.5, 0) +
			poly(false, 4, -5, -1, 0, 4, 5) + poly(false, 11, -5, 16, 0, 11, 5), width: 1.5}}},
		"distribution": {20, 12, 22, []iconPart{{d: lines(1, -2, 14, -2, 1, 2, 14, 2) +
			poly(false, 4, -5, -1, 0, 4, 5) + poly(false, 11, -5, 16, 0, 11, 5), width: 1.2}}},
		"network": {18, 14, 22, []iconPart{part(oval(0, 0, 5, 5), oval(2, -8, 5, 5), oval(10, -8, 5, 5), oval(8, 0, 5, 5),
			lines(3, 0, 4, -3, 11, 0, 12, -3, 5, 2.5, 8, 2.5, 7, -5.5, 10, -5.5))}},
		"equipment": {19, 17, 22, []iconPart{part(cog(5, 3, 8, 3, 6, 8), cog(10, -8, 6, 2, 4, 5))}},
		"facility":  {19, 17, 20, []iconPart{{d: poly(true, 0, 0, 15, 0, 15, -6, 11, -3, 11, -6, 7, -3, 7, -6, 3, -3, 3, -12, 0, -12), width: 1.2}}},
		"material": {12, 12, 22, []iconPart{{d: poly(true, 4, -7, -4, -7, -8, 0, -5, 7, 4, 7, 8, 0) +
			lines(-2, -5, -5.3, 0.5, -3.7, 4.5, 3, 4.5, 5, 0.5, 2, -5), width: 1.2}}},
		"location":    {9, 20, 16, []iconPart{part(arc(-5, -15, 10, 10, -20, 220, false), "L0 0z")}},
		"resource":    {20, 7, 22, []iconPart{part(roundRect(0, 0, 15, 10, 3, 3), roundRect(15, 3, 2, 4, 1, 1), lines(3, 2, 3, 8, 6, 2, 6, 8, 9, 2, 9, 8))}},
		"capability":  {17, 5, 19, []iconPart{part(rectP(8, 0, 4, 4), rectP(4, 4, 4, 4), rectP(8, 4, 4, 4), rectP(0, 8, 4, 4), rectP(4, 8, 4, 4), rectP(8, 8, 4, 4))}},
		"valuestream": {19, 7, 25, []iconPart{part(poly(true, 0, 0, 10, 0, 15, 5, 10, 10, 0, 10, 5, 5))}},
		"courseofaction": {17, 4, 25, []iconPart{{d: targetRings.d, width: 1.2}, {d: poly(true, -5.4, 9, 0.6, 10, -2.4, 15.2), fill: true},
			{d: arc(-7.5, 12, 10, 10, 90, 80, false), width: 2}}},
		"driver": {20, 6, 23, []iconPart{{d: oval(0, 0, 13, 13) + oval(5, 5, 3, 3) + oval(6, 6, 1, 1), width: 1.2},
			part(lines(-2, 6.5, 15, 6.5, 6.5, -2, 6.5, 15, 0.5, 0.5, 12.5, 12.5, 0.5, 12.5, 12.5, 0.5))}},
		"assessment": {15, 6, 21, []iconPart{part(oval(0, 0, 8, 8), lines(2, 7, -3, 12))}},
		"goal":       {19, 6, 22, []iconPart{{d: targetRings.d, width: 1.2}}},
		"outcome":    {24, 9, 27, []iconPart{{d: targetRings.d, width: 1.2}, part(lines(6, 7, 15.5, -2.5, 13, 0, 14, -5, 13, 0, 18, -1))}},
		"principle": {20, 6, 23, []iconPart{part(roundRect(0, 0, 12, 14, 4, 4),
			lines(5.5, 2, 5.5, 9, 6.5, 2, 6.5, 9, 5.5, 10.5, 5.5, 12.5, 6.5, 10.5, 6.5, 12.5))}},
		"requirement": {19, 8, 22, []iconPart{part(poly(true, 0, 0, 12, 0, 8, 9, -4, 9))}},
		"constraint":  {19, 8, 23, []iconPart{part(poly(true, 0, 0, 12, 0, 8, 9, -4, 9), lines(4, 0, 0, 9))}},
		"meaning": {17, 8, 19, []iconPart{part(arc(0, 0, 8, 6, 60, 149, false), arc(3, 0, 8, 6, -38, 157, false),
			arc(0, 3, 6, 5, -41, -171, false), arc(4, 2, 6, 6, 7, -136, false))}},
		"value": {19, 7, 21, []iconPart{part(oval(0, 0, 14, 9))}},
		"workpackage": {17, 6, 19, []iconPart{part(arc(0, 0, 9, 9, 340, 295, false), lines(4.5, 9, 11, 9)),
			{d: poly(true, 11, 6, 15, 9, 11, 12), fill: true}}},
		"plateau":  {20, 13, 17, []iconPart{{d: lines(0, 0, 12, 0, 2, -3, 14, -3, 4, -6, 16, -6), width: 2}}},
		"gap":      {18, 6, 23, []iconPart{part(oval(0, 0, 13, 13), lines(-2, 5, 15, 5, -2, 8, 15, 8))}},
		"grouping": {17, 6, 20, []iconPart{part(rectP(0, 0, 6, 3), rectP(0, 3, 13, 7))}},
	}
})

// writeArchiIcon draws a type's notation icon at its place in the figure r, as Archi does.
// It reports whether the type has one.
func writeArchiIcon(b *bytes.Buffer, name string, r rect) bool {
	ic, ok := archiIcons()[name]
	if !ok {
		return false
	}
	ox, oy := r.x+r.w-ic.dx, r.y+ic.dy
	fmt.Fprintf(b, `<g class="icon" data-icon="%s" transform="translate(%d %d)" fill="none" stroke="#000000">`, name, ox, oy)
	for _, p := range ic.parts {
		switch {
		case p.fill:
			fmt.Fprintf(b, `<path d="%s" fill="#000000" stroke="none"/>`, p.d)
		case p.width != 0 && p.width != 1:
			fmt.Fprintf(b, `<path d="%s" stroke-width="%s"/>`, p.d, f2(p.width))
		default:
			fmt.Fprintf(b, `<path d="%s"/>`, p.d)
		}
	}
	b.WriteString("</g>\n")
	return true
}

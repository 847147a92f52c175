package render

import (
	"bytes"
	"fmt"
	"math"
	"strings"
)

// end decorations of a connection
const (
	endNone       = ""
	endOpen       = "open"       // serving, influence, access: PolylineDecoration, 7 by 3
	endFilled     = "filled"     // triggering, flow, assignment: PolygonDecoration, 7 by 3
	endTriangle   = "triangle"   // realization, specialization, a plain hollow arrow: 10 by 7, white
	endDiamond    = "diamond"    // composition: a filled diamond, 20 by 6
	endHollowDiam = "hollowdiam" // aggregation: a white diamond, 20 by 6
	endDot        = "dot"        // assignment's source: a filled ball, 7 across
	endHalf       = "half"       // a directed association: half an arrowhead, 9 by 4
	endPlainFill  = "plainfill"  // a plain connection's filled arrow: 10 by 6
	endPlainLine  = "plainline"  // a plain connection's line arrow: 8 by 5
)

// decoration is an end decoration as draw2d draws it: its template's points, (0, 0) the tip and
// x running back along the line, scaled; fill "line" in the line's colour, "white", or "" open.
type decoration struct {
	points []pt
	closed bool
	fill   string
}

// decorations are Archi's end decorations (com.archimatetool.editor.diagram.figures.connections
// and diagram.LineConnectionFigure): draw2d's PolygonDecoration and PolylineDecoration with their
// default triangle template (0,0) (-1,1) (-1,-1) at their default scale 7 by 3 or Archi's, and
// the diamond template (0,0) (-2,2) (-4,0) (-2,-2) at scale 5 by 3.
var decorations = map[string]decoration{
	endOpen:       {points: []pt{{-7, 3}, {0, 0}, {-7, -3}}},
	endFilled:     {points: []pt{{0, 0}, {-7, 3}, {-7, -3}}, closed: true, fill: "line"},
	endTriangle:   {points: []pt{{0, 0}, {-10, 7}, {-10, -7}}, closed: true, fill: "white"},
	endDiamond:    {points: []pt{{0, 0}, {-10, 6}, {-20, 0}, {-10, -6}}, closed: true, fill: "line"},
	endHollowDiam: {points: []pt{{0, 0}, {-10, 6}, {-20, 0}, {-10, -6}}, closed: true, fill: "white"},
	endHalf:       {points: []pt{{0, 0}, {-9, -4}}},
	endPlainFill:  {points: []pt{{0, 0}, {-10, 6}, {-10, -6}}, closed: true, fill: "line"},
	endPlainLine:  {points: []pt{{-8, 5}, {0, 0}, {-8, -5}}},
}

// archiDots and archiDashes are the line dashes of Archi's connection figures: realization and
// access dotted (setLineDash {2}), flow and influence dashed ({6, 3}); a plain connection's
// dashed {4} and dotted {1, 4} (LineConnectionFigure).
const (
	archiDots   = "2"
	archiDashes = "6 3"
	plainDashes = "4"
	plainDots   = "1 4"
)

// lineStyle is how a relationship type is drawn: dashes, and the decorations at each end.
type lineStyle struct {
	dash     string
	from, to string
}

// styleOfConn is Archi's figure for each relationship type (the *ConnectionFigure classes), the
// access type and a directed association included; plain connections read their type bits.
func (d *drawing) styleOfConn(c *conn) lineStyle {
	switch c.class {
	case "CompositionRelationship":
		return lineStyle{from: endDiamond}
	case "AggregationRelationship":
		return lineStyle{from: endHollowDiam}
	case "AssignmentRelationship":
		return lineStyle{from: endDot, to: endFilled}
	case "RealizationRelationship":
		return lineStyle{dash: archiDots, to: endTriangle}
	case "ServingRelationship", "UsedByRelationship":
		return lineStyle{to: endOpen}
	case "AccessRelationship":
		ls := lineStyle{dash: archiDots}
		// Archi: 0 write (the default when absent), 1 read, 2 access, 3 read/write
		switch c.concept.Attr("accessType") {
		case "", "0":
			ls.to = endOpen
		case "1":
			ls.from = endOpen
		case "3":
			ls.from, ls.to = endOpen, endOpen
		}
		return ls
	case "InfluenceRelationship":
		return lineStyle{dash: archiDashes, to: endOpen}
	case "TriggeringRelationship":
		return lineStyle{to: endFilled}
	case "FlowRelationship":
		return lineStyle{dash: archiDashes, to: endFilled}
	case "SpecializationRelationship":
		return lineStyle{to: endTriangle}
	case "AssociationRelationship":
		if c.concept.Attr("directed") == "true" {
			return lineStyle{to: endHalf}
		}
		return lineStyle{}
	}
	// a plain connection (IDiagramModelConnection's type bits, in LineConnectionFigure's order:
	// filled, then line, then hollow)
	t := num(c.n.Attr("type"), 0)
	var ls lineStyle
	switch {
	case t&2 != 0:
		ls.dash = plainDashes
	case t&4 != 0:
		ls.dash = plainDots
	}
	switch {
	case t&1 != 0:
		ls.to = endPlainFill
	case t&64 != 0:
		ls.to = endPlainLine
	case t&16 != 0:
		ls.to = endTriangle
	}
	switch {
	case t&8 != 0:
		ls.from = endPlainFill
	case t&128 != 0:
		ls.from = endPlainLine
	case t&32 != 0:
		ls.from = endTriangle
	}
	return ls
}

// connPiece draws a connection once, without a mark: a mark is added as it is written.
func (d *drawing) connPiece(c *conn) piece {
	kind := "connection"
	p := piece{id: c.id, conn: true, meet: boxOf(c.pts)}
	if c.concept.Valid() {
		p.target = c.concept.ID()
	}
	for _, q := range c.pts {
		r := rect{int(math.Floor(q.x)), int(math.Floor(q.y)), 0, 0}
		r.w, r.h = int(math.Ceil(q.x))-r.x, int(math.Ceil(q.y))-r.y
		if !p.hasExt {
			p.ext, p.hasExt = r, true
		} else {
			p.ext = union(p.ext, r)
		}
	}
	p.head = fmt.Sprintf(`<g data-id="%s" data-kind="%s" data-type="%s" data-source="%s" data-target="%s"`,
		esc(c.id), kind, esc(c.class), esc(c.src), esc(c.tgt))
	var body bytes.Buffer
	d.connBody(&body, c, &p)
	p.body = body.Bytes()
	return p
}

func (d *drawing) connBody(b *bytes.Buffer, c *conn, pc *piece) {
	if len(c.pts) < 2 {
		return // an end is missing from the view: nothing to draw, the id stays findable
	}
	line := colour(c.n.Attr("lineColor"), "#000000")
	width := clamp(num(c.n.Attr("lineWidth"), 1), 1, 3)
	ls := d.styleOfConn(c)
	var p strings.Builder
	for i, q := range c.pts {
		if i == 0 {
			p.WriteString("M")
		} else {
			p.WriteString(" L")
		}
		p.WriteString(f2(q.x) + " " + f2(q.y))
	}
	pc.path = p.String()
	fmt.Fprintf(b, `<path d="%s" fill="none" stroke="%s" stroke-width="%d"`, p.String(), line, width)
	if ls.dash != "" {
		fmt.Fprintf(b, ` stroke-dasharray="%s"`, ls.dash)
	}
	b.WriteString("/>\n")
	n := len(c.pts)
	writeEnd(b, ls.to, c.pts[n-2], c.pts[n-1], line, width)
	writeEnd(b, ls.from, c.pts[1], c.pts[0], line, width)
	label := ""
	if c.concept.Valid() {
		label = c.concept.Name()
	} else {
		label = c.n.Attr("name")
	}
	if expr, ok := c.n.Feature("labelExpression"); ok {
		label = (&drawing{m: d.m}).expand(expr, c.concept, c.n)
	}
	if label == "" {
		return
	}
	// textPosition: 0 near the source, 1 the middle (the default), 2 near the target
	f := 0.5
	switch c.n.Attr("textPosition") {
	case "0":
		f = 0.15
	case "2":
		f = 0.85
	}
	at := along(c.pts, f)
	st := style{fontSize: defaultFontSize, font: defaultFont, fontColor: colour(c.n.Attr("fontColor"), "#000000")}
	st.applyFont(c.n.Attr("font"))
	lines := wrap(label, 200, st)
	lh := st.fontSize * 1.25
	fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle" fill="%s" font-size="%s"`, f2(at.x), f2(at.y), st.fontColor, f2(st.fontSize))
	if st.font != defaultFont {
		fmt.Fprintf(b, ` font-family="%s"`, esc(st.font))
	}
	b.WriteString(">")
	for i, l := range lines {
		fmt.Fprintf(b, `<tspan x="%s" y="%s">%s</tspan>`, f2(at.x), f2(at.y-2+lh*float64(i)-lh*float64(len(lines)-1)/2), esc(l))
	}
	b.WriteString("</text>\n")
}

// writeEnd draws an end decoration at tip, for a line coming from prev.
func writeEnd(b *bytes.Buffer, kind string, prev, tip pt, line string, width int) {
	if kind == endNone {
		return
	}
	dx, dy := tip.x-prev.x, tip.y-prev.y
	l := math.Hypot(dx, dy)
	if l == 0 {
		return
	}
	ux, uy := dx/l, dy/l // along the line, towards the tip
	vx, vy := -uy, ux    // across it
	if kind == endDot {
		// AssignmentConnectionFigure's BallEndpoint: radius 3, a 7 by 7 oval, its middle 3 back
		fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3.5" fill="%s" stroke="none"/>`+"\n", f2(tip.x-ux*3), f2(tip.y-uy*3), line)
		return
	}
	dec, ok := decorations[kind]
	if !ok {
		return
	}
	var xy []float64
	for _, q := range dec.points {
		xy = append(xy, tip.x+ux*q.x+vx*q.y, tip.y+uy*q.x+vy*q.y)
	}
	fill := "none"
	switch dec.fill {
	case "line":
		fill = line
	case "white":
		fill = "#ffffff"
	}
	fmt.Fprintf(b, `<path d="%s" fill="%s" stroke="%s" stroke-width="%d"/>`+"\n", poly(dec.closed, xy...), fill, line, width)
}

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
	endOpen       = "open"       // serving, influence: an open arrowhead
	endFilled     = "filled"     // triggering, flow, assignment: a filled arrowhead
	endSmall      = "small"      // access: a small open arrowhead
	endTriangle   = "triangle"   // realization, specialization: a hollow triangle
	endDiamond    = "diamond"    // composition: a filled diamond
	endHollowDiam = "hollowdiam" // aggregation: a hollow diamond
	endDot        = "dot"        // assignment's source: a filled dot
	endHalf       = "half"       // a directed association: half an arrowhead
	endHollow     = "hollow"     // a plain connection's hollow arrowhead
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
		return lineStyle{dash: "4 3", to: endTriangle}
	case "ServingRelationship", "UsedByRelationship":
		return lineStyle{to: endOpen}
	case "AccessRelationship":
		ls := lineStyle{dash: "1.5 3"}
		// Archi: 0 write (the default when absent), 1 read, 2 access, 3 read/write
		switch c.concept.Attr("accessType") {
		case "", "0":
			ls.to = endSmall
		case "1":
			ls.from = endSmall
		case "3":
			ls.from, ls.to = endSmall, endSmall
		}
		return ls
	case "InfluenceRelationship":
		return lineStyle{dash: "6 3", to: endOpen}
	case "TriggeringRelationship":
		return lineStyle{to: endFilled}
	case "FlowRelationship":
		return lineStyle{dash: "6 3", to: endFilled}
	case "SpecializationRelationship":
		return lineStyle{to: endTriangle}
	case "AssociationRelationship":
		if c.concept.Attr("directed") == "true" {
			return lineStyle{to: endHalf}
		}
		return lineStyle{}
	}
	// a plain connection (IDiagramModelConnection's type bits)
	t := num(c.n.Attr("type"), 0)
	var ls lineStyle
	switch {
	case t&2 != 0:
		ls.dash = "6 3"
	case t&4 != 0:
		ls.dash = "1.5 3"
	}
	switch {
	case t&1 != 0:
		ls.to = endFilled
	case t&16 != 0:
		ls.to = endHollow
	case t&64 != 0:
		ls.to = endOpen
	}
	switch {
	case t&8 != 0:
		ls.from = endFilled
	case t&32 != 0:
		ls.from = endHollow
	case t&128 != 0:
		ls.from = endOpen
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
	ux, uy := dx/l, dy/l              // along the line, towards the tip
	vx, vy := -uy, ux                 // across it
	at := func(a, c float64) string { // a back from the tip, c across
		return f2(tip.x-ux*a+vx*c) + " " + f2(tip.y-uy*a+vy*c)
	}
	tipS := f2(tip.x) + " " + f2(tip.y)
	sw := fmt.Sprintf(`stroke="%s" stroke-width="%d"`, line, width)
	switch kind {
	case endOpen:
		fmt.Fprintf(b, `<path d="M%s L%s L%s" fill="none" %s/>`+"\n", at(10, 5), tipS, at(10, -5), sw)
	case endSmall:
		fmt.Fprintf(b, `<path d="M%s L%s L%s" fill="none" %s/>`+"\n", at(6, 3.5), tipS, at(6, -3.5), sw)
	case endHalf:
		fmt.Fprintf(b, `<path d="M%s L%s" fill="none" %s/>`+"\n", at(10, 5), tipS, sw)
	case endFilled:
		fmt.Fprintf(b, `<path d="M%s L%s L%s z" fill="%s" %s/>`+"\n", tipS, at(10, 4), at(10, -4), line, sw)
	case endHollow, endTriangle:
		fmt.Fprintf(b, `<path d="M%s L%s L%s z" fill="#ffffff" %s/>`+"\n", tipS, at(12, 6), at(12, -6), sw)
	case endDiamond:
		fmt.Fprintf(b, `<path d="M%s L%s L%s L%s z" fill="%s" %s/>`+"\n", tipS, at(8, 4.5), at(16, 0), at(8, -4.5), line, sw)
	case endHollowDiam:
		fmt.Fprintf(b, `<path d="M%s L%s L%s L%s z" fill="#ffffff" %s/>`+"\n", tipS, at(8, 4.5), at(16, 0), at(8, -4.5), sw)
	case endDot:
		c := at(3, 0)
		x, y, _ := strings.Cut(c, " ")
		fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3" fill="%s" stroke="none"/>`+"\n", x, y, line)
	}
}

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
	line := d.line(c)
	for _, q := range line {
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
	d.connBody(&body, c, line, &p)
	p.body = body.Bytes()
	return p
}

// line is the line drawn for a connection: its route, curved and jumping other lines as the
// preferences say.
func (d *drawing) line(c *conn) []pt {
	if d.prefs == (Prefs{}) || len(c.pts) < 2 {
		return c.pts
	}
	var others [][]pt
	for _, o := range d.conns {
		if o != c && len(o.pts) > 1 && !d.hiddenConn(o) {
			others = append(others, o.pts)
		}
	}
	return archiLine(c.pts, others, d.prefs)
}

// connBody draws a connection's line (its route, or the route curved and jumping as the
// preferences say), its ends at the route's ends and its label.
func (d *drawing) connBody(b *bytes.Buffer, c *conn, route []pt, pc *piece) {
	if len(c.pts) < 2 {
		return // an end is missing from the view: nothing to draw, the id stays findable
	}
	line := colour(c.n.Attr("lineColor"), "#000000")
	width := clamp(num(c.n.Attr("lineWidth"), 1), 1, 3)
	ls := d.styleOfConn(c)
	pc.path = pathOf([][]pt{route})
	drawn := pc.path
	lines, st := d.connLabel(c)
	var box rect
	if len(lines) > 0 {
		box = d.labelBox(c, lines, st)
		// Archi's default label strategy clips the line behind the label, widened by a pixel
		// each side (AbstractDiagramConnectionFigure.clipTextLabel)
		drawn = pathOf(clipOut(route, rect{box.x - 1, box.y, box.w + 2, box.h}))
	}
	fmt.Fprintf(b, `<path d="%s" fill="none" stroke="%s" stroke-width="%d"`, drawn, line, width)
	if ls.dash != "" {
		fmt.Fprintf(b, ` stroke-dasharray="%s"`, ls.dash)
	}
	b.WriteString("/>\n")
	n := len(c.pts)
	writeEnd(b, ls.to, c.pts[n-2], c.pts[n-1], line, width)
	writeEnd(b, ls.from, c.pts[1], c.pts[0], line, width)
	if len(lines) == 0 {
		return
	}
	writeText(b, strings.Join(lines, "\n"), box, st, 0, true)
	// the picture's frame holds the label too
	pc.ext, pc.meet = union(pc.ext, box), union(pc.meet, box)
}

// connLabel is a connection's label as Archi shows it, in lines (its own line breaks only: a
// connection's text flow has no width to wrap at), and the style it is written in; no lines when
// there is no label or it is hidden.
func (d *drawing) connLabel(c *conn) ([]string, style) {
	st := style{fontSize: defaultFontSize, font: defaultFont, fontColor: colour(c.n.Attr("fontColor"), "#000000"), align: 2}
	st.applyFont(c.n.Attr("font"))
	if a := c.n.Attr("textAlignment"); a != "" {
		st.align = num(a, 2)
	}
	if v, ok := c.n.Feature("nameVisible"); ok && v == "false" {
		return nil, st
	}
	label := ""
	if c.concept.Valid() {
		label = c.concept.Name()
	} else {
		label = c.n.Attr("name")
	}
	if expr, ok := c.n.Feature("labelExpression"); ok {
		label = (&drawing{m: d.m}).expand(expr, c.concept, c.n)
	}
	label = shown(strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(label, "\r\n", "\n"), "\r", "\n")))
	if label == "" {
		return nil, st
	}
	return strings.Split(label, "\n"), st
}

// Archi's label positions on a connection (IDiagramModelConnection's textPosition) and draw2d's
// relative positions of a middle label (PositionConstants, the textRelativePosition feature).
const (
	labelSource = "0"
	labelTarget = "2"
	posNorth    = 1
	posSouth    = 4
	posWest     = 8
	posEast     = 16
	labelGap    = 5 // ConnectionLocator's gap when the label is not centred
)

// labelBox places a connection's label as Archi's locators do: centred on the middle of the
// line (draw2d's ConnectionLocator MIDDLE: the middle point, or the middle of the middle segment),
// moved aside by the relative position; near the source or the target, 14 px along and 4 px off
// the line (draw2d's ConnectionEndpointLocator), in whole pixels.
func (d *drawing) labelBox(c *conn, lines []string, st style) rect {
	w := 0
	for _, l := range lines {
		w = max(w, textWidth(l, st))
	}
	h := int(lineHeight(st)) * len(lines)
	ip := func(q pt) (int, int) { return int(math.Round(q.x)), int(math.Round(q.y)) }
	switch c.n.Attr("textPosition") {
	case labelSource:
		return endpointLabel(c.pts[0], c.pts[1], d.remoteBox(c.src), w, h)
	case labelTarget:
		n := len(c.pts)
		return endpointLabel(c.pts[n-1], c.pts[n-2], d.remoteBox(c.tgt), w, h)
	}
	n := len(c.pts)
	x, y := ip(c.pts[(n-1)/2])
	if n%2 == 0 {
		x1, y1 := ip(c.pts[n/2-1])
		x2, y2 := ip(c.pts[n/2])
		x, y = x1+(x2-x1)/2, y1+(y2-y1)/2
	}
	r := rect{x - w/2, y - h/2, w, h}
	pos := 2 // PositionConstants.CENTER
	if v, ok := c.n.Feature("textRelativePosition"); ok {
		pos = num(v, pos)
	}
	switch {
	case pos&posNorth != 0:
		r.y -= h/2 + labelGap
	case pos&posSouth != 0:
		r.y += h/2 + labelGap
	}
	switch {
	case pos&posWest != 0:
		r.x -= w/2 + labelGap
	case pos&posEast != 0:
		r.x += w/2 + labelGap
	}
	return r
}

// endpointLabel is draw2d's ConnectionEndpointLocator for a w x h label at the end at, the line
// leaving it towards next, the end's figure being owner: worked out as if the line left the
// figure's left or right side (x and y swapped when it leaves the top or bottom), 14 px along
// the line and 4 px below it, rising or falling with its slope up to 45 degrees.
func endpointLabel(at, next pt, owner rect, w, h int) rect {
	const along, off = 14, 4
	sx, sy := int(math.Round(at.x)), int(math.Round(at.y))
	ex, ey := int(math.Round(next.x)), int(math.Round(next.y))
	// which side of the owner the end is on: 1 bottom, 2 right, 3 top, 4 left
	side := 0
	cx, cy := owner.x+owner.w/2, owner.y+owner.h/2
	if owner.w > 0 || owner.h > 0 {
		m1 := float64(owner.y-cy) / float64(owner.x-cx)
		m2 := 0.0
		if sx != cx {
			m2 = float64(sy-cy) / float64(sx-cx)
		}
		switch {
		case sx == cx && sy < cy, sx != cx && math.Abs(m2) > math.Abs(m1) && sy < cy:
			side = 3
		case sx == cx, math.Abs(m2) > math.Abs(m1):
			side = 1
		case sx < cx:
			side = 4
		default:
			side = 2
		}
	} else {
		switch {
		case abs(ex-sx) > abs(ey-sy) && ex > sx:
			side = 2
		case abs(ex-sx) > abs(ey-sy):
			side = 4
		case ey > sy:
			side = 1
		default:
			side = 3
		}
	}
	swap := side == 1 || side == 3
	if swap {
		sx, sy, ex, ey, w, h = sy, sx, ey, ex, h, w
	}
	cos := 1
	if side == 3 || side == 4 {
		cos = -1
	}
	tan := 1.0
	if ex != sx {
		tan = math.Max(-1, math.Min(1, float64(ey-sy)/float64(ex-sx)))
	}
	x := sx + along*cos + w*((cos-1)/2)
	y := int(float64(sy) + float64(cos*along)*tan + off)
	if swap {
		return rect{y, x, h, w}
	}
	return rect{x, y, w, h}
}

func abs(v int) int { return max(v, -v) }

// pathOf is SVG path data for polylines, each its own subpath.
func pathOf(lines [][]pt) string {
	var p strings.Builder
	for _, l := range lines {
		for i, q := range l {
			switch {
			case i == 0 && p.Len() == 0:
				p.WriteString("M")
			case i == 0:
				p.WriteString(" M")
			default:
				p.WriteString(" L")
			}
			p.WriteString(f2(q.x) + " " + f2(q.y))
		}
	}
	return p.String()
}

// clipOut is the polyline less the part inside r, as the polylines that remain.
func clipOut(p []pt, r rect) [][]pt {
	var out [][]pt
	var cur []pt
	x0, y0, x1, y1 := float64(r.x), float64(r.y), float64(r.x+r.w), float64(r.y+r.h)
	for i := 1; i < len(p); i++ {
		a, b := p[i-1], p[i]
		if len(cur) == 0 {
			cur = []pt{a}
		}
		// Liang-Barsky: the part of the segment inside r, t in [t0, t1]
		t0, t1 := 0.0, 1.0
		dx, dy := b.x-a.x, b.y-a.y
		inside := true
		for _, e := range [][2]float64{{-dx, a.x - x0}, {dx, x1 - a.x}, {-dy, a.y - y0}, {dy, y1 - a.y}} {
			switch {
			case e[0] == 0 && e[1] < 0:
				inside = false
			case e[0] < 0:
				t0 = math.Max(t0, e[1]/e[0])
			case e[0] > 0:
				t1 = math.Min(t1, e[1]/e[0])
			}
		}
		if !inside || t0 >= t1 {
			cur = append(cur, b)
			continue
		}
		at := func(t float64) pt { return pt{a.x + dx*t, a.y + dy*t} }
		if t0 > 0 {
			cur = append(cur, at(t0))
		}
		if len(cur) > 1 {
			out = append(out, cur)
		}
		cur = nil
		if t1 < 1 {
			cur = []pt{at(t1), b}
		}
	}
	if len(cur) > 1 {
		out = append(out, cur)
	}
	return out
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

package render

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/internal/diagram"
)

// Errors View returns.
var (
	ErrNoView    = errors.New("no such view")
	ErrMalformed = errors.New("view cannot be read")
)

// Mark says how a drawn object is singled out, for pictures of a change.
type Mark uint8

// The marks. Added, moved or restyled objects are outlined in one colour, removed ones drawn
// faintly in another, renamed ones outlined and tagged.
const (
	MarkNone    Mark = iota
	MarkAdded        // new on the view: outlined
	MarkChanged      // moved, resized or restyled: outlined
	MarkRemoved      // gone after the change: drawn faintly
	MarkRenamed      // its name changed: outlined, with a tag
)

var markNames = [...]string{"", "added", "changed", "removed", "renamed"}

func (k Mark) String() string {
	if int(k) < len(markNames) {
		return markNames[k]
	}
	return ""
}

// Options change how a view is drawn. The zero Options draw the whole view as Archi shows it.
type Options struct {
	// Marks single out diagram objects and connections by id.
	Marks map[string]Mark
	// Focus crops the drawing to the box around these diagram objects and connections, with
	// Margin (default 40) around it; ids not on the view are ignored, and none found draws all.
	Focus  []string
	Margin int
	// Frame, when set, crops the drawing to exactly this box (Focus and Margin are then
	// unused): two pictures of one view, before and after a change, framed alike.
	Frame *Box
	// Link, when set, is the address a drawn object or connection leads to, given the id of the
	// element or relationship it shows (or of the view a view reference shows); "" for none. Each
	// one with an address is drawn inside an SVG link, for a picture inlined in a page.
	Link func(conceptID string) string
	// Prefs are Archi's preferences for drawing lines (line jumps, curves); ViewWith draws with
	// them, Write leaves a drawn Picture as it is.
	Prefs Prefs
}

// Colours of marks.
const (
	markColour    = "#e8590c" // added, moved, restyled, renamed
	removedColour = "#c92a2a" // removed, drawn faintly
)

// View draws the view with the given id as an SVG document, as Archi shows it.
func View(m *archixml.Model, viewID string) ([]byte, error) {
	return ViewWith(m, viewID, Options{})
}

// ViewWith draws a view as View does, with marks and cropping.
func ViewWith(m *archixml.Model, viewID string, o Options) ([]byte, error) {
	p, err := DrawWith(m, viewID, o.Prefs)
	if err != nil {
		return nil, err
	}
	return p.Write(o), nil
}

// Size is the width and height, in pixels, of the picture View draws of the view (the SVG
// document's width and height), without drawing it: a page gives it to the picture's <img> so
// that the picture takes its room before it loads, and nothing below it moves under a click.
func Size(m *archixml.Model, viewID string) (w, h int, err error) {
	p, err := Draw(m, viewID)
	if err != nil {
		return 0, 0, err
	}
	r, _ := p.frame(Options{})
	return r.w, r.h, nil
}

// rect is an absolute rectangle.
type rect struct{ x, y, w, h int }

func (r rect) cx() int { return r.x + r.w/2 }
func (r rect) cy() int { return r.y + r.h/2 }

// obj is one diagram object, placed.
type obj struct {
	n       *diagram.Node
	id      string
	kind    string // element, group, note, reference, junction, sketch, canvas, image, object
	class   string // the element's class for elements, the diagram object's class otherwise
	concept archixml.Object
	r       rect
	figure  int // the type attribute: 0 the box with an icon, 1 the alternate figure
	label   string
	parent  *obj // the diagram object it is nested in, nil at the view's top
}

// conn is one connection, routed.
type conn struct {
	n        *diagram.Node
	id       string
	class    string // the relationship's class, or the connection's own class
	concept  archixml.Object
	src, tgt string
	pts      []pt
	done     bool
	busy     bool
	hidden   int8 // 0 not yet known, 1 drawn, 2 hidden as a nested connection
}

type pt struct{ x, y float64 }

type drawing struct {
	m         *archixml.Model
	manhattan bool // the view routes its connections with right angles
	objs      []*obj
	byID      map[string]*obj
	conns     []*conn
	connsBy   map[string]*conn
	fans      map[[2]string]int // straight connections routed so far between each pair of ends
	lanes     *lanes            // the rows and columns a Manhattan view's connections use
	prefs     Prefs             // Archi's preferences for drawing lines
}

func layout(m *archixml.Model, root *diagram.Node) *drawing {
	d := &drawing{m: m, byID: map[string]*obj{}, connsBy: map[string]*conn{}, fans: map[[2]string]int{}, lanes: newLanes()}
	d.manhattan = root.Attr("connectionRouterType") == archixml.Routers["manhattan"]
	var place func(n *diagram.Node, parent *obj, ox, oy int)
	place = func(n *diagram.Node, parent *obj, ox, oy int) {
		for _, k := range n.Kids {
			switch {
			case k.IsObject():
				o := d.object(k, ox, oy)
				o.parent = parent
				d.objs = append(d.objs, o)
				if o.id != "" {
					d.byID[o.id] = o
				}
				place(k, o, o.r.x, o.r.y)
			case k.IsConnection():
				c := &conn{n: k, id: k.Attr("id"), src: k.Attr("source"), tgt: k.Attr("target"), class: k.Type}
				if id := k.Concept(); id != "" {
					if rel, ok := m.Object(id); ok {
						c.concept = rel
						c.class = rel.Class()
					}
				}
				d.conns = append(d.conns, c)
				if c.id != "" {
					d.connsBy[c.id] = c
				}
			}
		}
	}
	place(root, nil, 0, 0)
	for _, c := range d.conns {
		d.route(c)
	}
	return d
}

// hiddenConn reports whether Archi hides the connection as a nested one: with its default
// preferences ("use nested connections" on, every relationship type hidden), a connection
// between a diagram object and the object it sits in directly is not drawn, and neither is a
// connection whose source, or else whose target, is such a hidden connection
// (DiagramModelUtils.shouldBeHiddenConnection).
func (d *drawing) hiddenConn(c *conn) bool {
	switch c.hidden {
	case 1:
		return false
	case 2:
		return true
	}
	c.hidden = 1 // a cycle of connections on connections ends here, drawn
	h := false
	s, sok := d.byID[c.src]
	t, tok := d.byID[c.tgt]
	switch {
	case sok && tok:
		h = s.parent == t || t.parent == s
	case !sok && d.connsBy[c.src] != nil:
		h = d.hiddenConn(d.connsBy[c.src])
	case !tok && d.connsBy[c.tgt] != nil:
		h = d.hiddenConn(d.connsBy[c.tgt])
	}
	if h {
		c.hidden = 2
	}
	return h
}

func (d *drawing) object(n *diagram.Node, ox, oy int) *obj {
	o := &obj{n: n, id: n.Attr("id"), class: n.Type}
	o.figure, _ = strconv.Atoi(n.Attr("type"))
	switch n.Type {
	case "DiagramObject", "DiagramModelArchimateObject":
		o.kind = "element"
		if c, ok := d.m.Object(n.Concept()); ok {
			o.concept = c
			o.class = c.Class()
			o.label = c.Name()
		}
		if o.class == "Junction" {
			o.kind = "junction"
		}
	case "Group", "DiagramModelGroup":
		o.kind, o.label = "group", n.Attr("name")
	case "Note", "DiagramModelNote":
		o.kind = "note"
		if c := n.Kid("content"); c != nil {
			o.label = c.Text
		}
	case "DiagramModelReference":
		o.kind = "reference"
		if v, ok := d.m.Object(n.Attr("model")); ok {
			o.label = v.Name()
		}
	case "SketchModelSticky", "SketchModelActor":
		o.kind, o.label = "sketch", n.Attr("name")
		if c := n.Kid("content"); c != nil && o.label == "" {
			o.label = c.Text
		}
	case "CanvasModelBlock", "CanvasModelSticky":
		o.kind = "canvas"
		if c := n.Kid("content"); c != nil {
			o.label = c.Text
		}
	case "CanvasModelImage", "DiagramModelImage":
		o.kind, o.label = "image", n.Attr("name")
	default:
		o.kind, o.label = "object", n.Attr("name")
	}
	if expr, ok := n.Feature("labelExpression"); ok {
		o.label = d.expand(expr, o.concept, n)
	}
	x, y, w, h := 0, 0, -1, -1
	if b := n.Kid("bounds"); b != nil {
		x, y, w, h = num(b.Attr("x"), 0), num(b.Attr("y"), 0), num(b.Attr("width"), -1), num(b.Attr("height"), -1)
	}
	dw, dh := DefaultSize(o.class, o.figure)
	if w < 0 {
		w = dw
	}
	if h < 0 {
		h = dh
	}
	o.r = rect{ox + x, oy + y, w, h}
	return o
}

// expand evaluates the common forms of Archi's label expressions; what it does not know it drops.
func (d *drawing) expand(expr string, c archixml.Object, n *diagram.Node) string {
	var b strings.Builder
	for {
		i := strings.Index(expr, "${")
		if i < 0 {
			if j := strings.Index(expr, "$"); j >= 0 && strings.Contains(expr[j:], "{") {
				// $view{...}, $model{...} and the like: not drawn
				k := strings.Index(expr[j:], "}")
				if k > 0 {
					b.WriteString(expr[:j])
					expr = expr[j+k+1:]
					continue
				}
			}
			b.WriteString(expr)
			return strings.TrimSpace(b.String())
		}
		b.WriteString(expr[:i])
		k := strings.Index(expr[i:], "}")
		if k < 0 {
			b.WriteString(expr[i:])
			return strings.TrimSpace(b.String())
		}
		key := expr[i+2 : i+k]
		expr = expr[i+k+1:]
		switch {
		case key == "name":
			if c.Valid() {
				b.WriteString(c.Name())
			} else {
				b.WriteString(n.Attr("name"))
			}
		case key == "type":
			if c.Valid() && c.Type() != nil {
				b.WriteString(c.Type().Label)
			}
		case key == "documentation":
			if c.Valid() {
				b.WriteString(c.Documentation())
			}
		case strings.HasPrefix(key, "property:"):
			if c.Valid() {
				v, _ := c.Property(strings.TrimPrefix(key, "property:"))
				b.WriteString(v)
			}
		}
	}
}

func num(s string, dflt int) int {
	v, err := strconv.Atoi(s)
	if err != nil {
		return dflt
	}
	return v
}

// DefaultSize is the size Archi gives a diagram object of the class (an element class, or
// "Group", "Note", "DiagramModelReference", ...) and figure type whose bounds say -1.
func DefaultSize(class string, figure int) (w, h int) {
	switch class {
	case "Junction":
		return 15, 15
	case "Grouping", "Group", "DiagramModelGroup":
		return 400, 140
	case "Note", "DiagramModelNote":
		return 185, 80
	case "SketchModelActor":
		return 75, 100
	case "SketchModelSticky":
		return 135, 70
	case "DiagramModelImage", "CanvasModelImage":
		return 200, 150
	case "CanvasModelBlock", "CanvasModelSticky":
		return 200, 200
	case "BusinessFunction", "ApplicationFunction", "TechnologyFunction", "Principle":
		if figure == 1 {
			return 55, 55
		}
	}
	return 120, 55
}

// route places a connection's points: from its source's border through its bendpoints to its
// target's border. A connection may end on another connection, at that one's middle.
func (d *drawing) route(c *conn) {
	if c.done || c.busy {
		return
	}
	c.busy = true
	defer func() { c.busy, c.done = false, true }()
	sr, sok := d.endRect(c.src)
	tr, tok := d.endRect(c.tgt)
	if !sok || !tok {
		return
	}
	if d.manhattan {
		// draw2d's Manhattan router between the ends the anchors give towards the other
		// figure's middle, the bendpoints unused; an end on a connection turns off that
		// connection's bounds
		whole := func(p pt) pt { return pt{math.Round(p.x), math.Round(p.y)} }
		s := whole(d.anchor(c.src, sr, pt{float64(tr.cx()), float64(tr.cy())}, c.tgt))
		e := whole(d.anchor(c.tgt, tr, pt{float64(sr.cx()), float64(sr.cy())}, c.src))
		c.pts = d.lanes.route(s, e, d.figureBox(c.src), d.figureBox(c.tgt), !d.hiddenConn(c))
		return
	}
	var bends []pt
	bps := 0
	for _, k := range c.n.Kids {
		if k.Tag == "bendpoint" {
			bps++
		}
	}
	i := 0
	for _, k := range c.n.Kids {
		if k.Tag != "bendpoint" {
			continue
		}
		i++
		bends = append(bends, bendpoint(sr, tr, i, bps,
			num(k.Attr("startX"), 0), num(k.Attr("startY"), 0), num(k.Attr("endX"), 0), num(k.Attr("endY"), 0)))
	}
	sref := pt{float64(tr.cx()), float64(tr.cy())}
	tref := pt{float64(sr.cx()), float64(sr.cy())}
	if len(bends) > 0 {
		sref, tref = bends[0], bends[len(bends)-1]
	}
	c.pts = append(c.pts, d.anchor(c.src, sr, sref, c.tgt))
	c.pts = append(c.pts, bends...)
	c.pts = append(c.pts, d.anchor(c.tgt, tr, tref, c.src))
	if len(bends) == 0 && !d.hiddenConn(c) {
		// Archi's fan router: the second and later straight connections between the same two
		// ends, either way round, bend aside so that none is drawn on another
		key := [2]string{min(c.src, c.tgt), max(c.src, c.tgt)}
		if k := d.fans[key]; k > 0 {
			c.pts = fan(c.pts, k+1)
		}
		d.fans[key]++
	}
}

// fanSeparation is the distance, in pixels, between fanned connections (draw2d's FanRouter).
const fanSeparation = 10

// fan bends the index-th straight connection (index 2 for the second) between the same ends:
// one bendpoint off the middle of the line, across it, alternately on either side, farther for
// each pair, as draw2d's FanRouter does in its integer arithmetic. The ends stay where they were.
func fan(p []pt, index int) []pt {
	s := pt{math.Round(p[0].x), math.Round(p[0].y)}
	e := pt{math.Round(p[1].x), math.Round(p[1].y)}
	if s == e {
		return p
	}
	mid := pt{float64(int(s.x+e.x) / 2), float64(int(s.y+e.y) / 2)}
	// the line's direction taken one way for both directions of travel: towards the west or
	// north, whichever dominates, so that A to B and B to A fan to different sides
	rx, ry := e.x-s.x, e.y-s.y
	if math.Abs(rx) > math.Abs(ry) && rx > 0 || math.Abs(rx) <= math.Abs(ry) && ry > 0 {
		rx, ry = -rx, -ry
	}
	l := math.Hypot(rx, ry)
	xs, ys := fanSeparation*rx/l, fanSeparation*ry/l
	n := float64(index / 2)
	bend := pt{math.Trunc(mid.x - n*ys), math.Trunc(mid.y + n*xs)}
	if index%2 == 1 {
		bend = pt{math.Trunc(mid.x + n*ys), math.Trunc(mid.y - n*xs)}
	}
	if bend == mid {
		return p
	}
	return []pt{p[0], bend, p[1]}
}

// bendpoint is Archi's DiagramModelUtils.getAbsoluteBendpointPositions for the i-th of n
// bendpoints (1-based): the weighted mix of source centre plus start offset and target centre
// plus end offset, with weight i/(n+1), in Archi's integer arithmetic.
func bendpoint(s, t rect, i, n, startX, startY, endX, endY int) pt {
	w := float64(i) / float64(n+1)
	sx := float64(s.x+s.w/2+startX) * (1 - w)
	sy := float64(s.y+s.h/2+startY) * (1 - w)
	ex := float64(t.x+t.w/2+endX) * w
	ey := float64(t.y+t.h/2+endY) * w
	return pt{float64(int(sx + ex)), float64(int(sy + ey))}
}

// endRect is the rectangle a connection end attaches to: a diagram object's bounds, or a
// point-sized box at the middle of a connection.
func (d *drawing) endRect(id string) (rect, bool) {
	if o, ok := d.byID[id]; ok {
		return o.r, true
	}
	if c, ok := d.connsBy[id]; ok {
		d.route(c)
		if len(c.pts) < 2 {
			return rect{}, false
		}
		p := midpoint(c.pts)
		return rect{int(p.x), int(p.y), 0, 0}, true
	}
	return rect{}, false
}

// anchor is where the line towards ref leaves the end's figure, the other end being remote:
// Archi's orthogonal anchor (its default) for diagram objects, the border of the circle for
// junctions (Archi's chopbox-like ellipse anchor), the middle for an end on a connection.
func (d *drawing) anchor(id string, r rect, ref pt, remote string) pt {
	c := pt{float64(r.x) + float64(r.w)/2, float64(r.y) + float64(r.h)/2}
	if r.w == 0 || r.h == 0 {
		return c
	}
	o, ok := d.byID[id]
	if ok && o.kind != "junction" {
		cw, ch := corner(o)
		return orthogonal(r, cw, ch, d.remoteBox(remote), ref)
	}
	dx, dy := ref.x-c.x, ref.y-c.y
	if dx == 0 && dy == 0 {
		return c
	}
	if ok && round(o) {
		rx, ry := float64(r.w)/2, float64(r.h)/2
		k := 1 / math.Sqrt(dx*dx/(rx*rx)+dy*dy/(ry*ry))
		return pt{c.x + dx*k, c.y + dy*k}
	}
	k := math.Min(float64(r.w)/2/math.Abs(dx), float64(r.h)/2/math.Abs(dy))
	return pt{c.x + dx*k, c.y + dy*k}
}

// figureBox is the box of a connection end's figure: a diagram object's bounds, or the bounds
// of the connection it ends on (a pixel wider each way, so that a straight one has a height).
func (d *drawing) figureBox(id string) rect {
	r := d.remoteBox(id)
	if _, ok := d.byID[id]; !ok {
		r = rect{r.x - 1, r.y - 1, r.w + 2, r.h + 2}
	}
	return r
}

// remoteBox is the box of a connection's other end: a diagram object's bounds, or the bounds of
// the connection it ends on.
func (d *drawing) remoteBox(id string) rect {
	if o, ok := d.byID[id]; ok {
		return o.r
	}
	c, ok := d.connsBy[id]
	if !ok || len(c.pts) == 0 {
		return rect{}
	}
	x0, y0, x1, y1 := c.pts[0].x, c.pts[0].y, c.pts[0].x, c.pts[0].y
	for _, p := range c.pts {
		x0, y0, x1, y1 = math.Min(x0, p.x), math.Min(y0, p.y), math.Max(x1, p.x), math.Max(y1, p.y)
	}
	return rect{int(x0), int(y0), int(x1) - int(x0), int(y1) - int(y0)}
}

// corner is the size of the rounded corners Archi's orthogonal anchor follows on a figure: 20 by
// 20 for the rounded boxes, the pill's ends for a service's alternate figure, the whole box for a
// value's ellipse, none for the rest (every other figure counts as its rectangle).
func corner(o *obj) (w, h int) {
	switch {
	case o.kind != "element":
		return 0, 0
	case o.figure == 0 && boxShape(o.class) == "round":
		return 20, 20
	case o.figure == 1 && iconOf[o.class] == "service":
		return min(o.r.h, o.r.w*8/10), o.r.h
	case o.figure == 1 && o.class == "Value":
		return o.r.w, o.r.h
	}
	return 0, 0
}

// orthogonal is Archi's OrthogonalAnchor, in its integer arithmetic: when ref is the middle of
// the remote box (a connection without bendpoints), it aims at the middle of where the two boxes
// overlap in x and in y (between them where they do not), so that boxes overlapping in x or y
// are joined by a straight vertical or horizontal line; then it drops straight onto the side
// facing ref when ref is within the box's span, onto the rounded corner's curve when ref is
// within a corner's span, and onto the corner's 45-degree point otherwise.
func orthogonal(r rect, cw, ch int, remote rect, ref pt) pt {
	rx, ry := int(ref.x), int(ref.y)
	// the remote box's middle, within 5 by 5 pixels, as Archi tests it
	cx, cy := remote.x+(remote.w-5)/2, remote.y+(remote.h-5)/2
	cwid, chei := remote.w-2*((remote.w-5)/2), remote.h-2*((remote.h-5)/2)
	if remote.w > 0 && remote.h > 0 && rx >= cx && rx < cx+cwid && ry >= cy && ry < cy+chei {
		rx = (max(remote.x, r.x) + min(remote.x+remote.w, r.x+r.w)) / 2
		ry = (max(remote.y, r.y) + min(remote.y+remote.h, r.y+r.h)) / 2
	}
	// where ref lies along each axis: -2 before, -1 in the first corner, 0 the middle, 1 the
	// last corner, 2 after
	zone := func(v, lo, size, c int) int {
		switch {
		case v < lo:
			return -2
		case v < lo+c/2:
			return -1
		case v < lo+size-c/2:
			return 0
		case v < lo+size:
			return 1
		}
		return 2
	}
	zx, zy := zone(rx, r.x, r.w, cw), zone(ry, r.y, r.h, ch)
	hw, hh := float64(cw)/2, float64(ch)/2
	// the centre of the corner on the side of ref, in whole pixels and exactly
	ccx, ccy, fcx, fcy := r.x+cw/2, r.y+ch/2, float64(r.x)+hw, float64(r.y)+hh
	sx, sy := -1, -1
	if zx > 0 {
		ccx, fcx, sx = r.x+r.w-cw/2, float64(r.x+r.w)-hw, 1
	}
	if zy > 0 {
		ccy, fcy, sy = r.y+r.h-ch/2, float64(r.y+r.h)-hh, 1
	}
	out := func(x, y int) pt { return pt{float64(x), float64(y)} }
	switch {
	case (zx == -2 || zx == 2) && (zy == -2 || zy == 2):
		k := math.Cos(math.Pi / 4)
		return out(ccx+sx*int(k*hw), ccy+sy*int(k*hh))
	case zx == 0 && (zy == -2 || zy == 2):
		if zy < 0 {
			return out(rx, r.y)
		}
		return out(rx, r.y+r.h)
	case (zx == -1 || zx == 1) && (zy == -2 || zy == 2):
		// a point on the corner's curve straight above or below ref
		return out(rx, ccy+sy*int(math.Sin(math.Acos((fcx-float64(rx))/hw))*hh))
	case zy == 0 && (zx == -2 || zx == 2):
		if zx < 0 {
			return out(r.x, ry)
		}
		return out(r.x+r.w, ry)
	case (zy == -1 || zy == 1) && (zx == -2 || zx == 2):
		return out(ccx+sx*int(math.Cos(math.Asin((fcy-float64(ry))/hh))*hw), ry)
	}
	return out(r.x+r.w/2, r.y+r.h/2)
}

// round reports whether a figure is a circle or ellipse, whose anchor is on the curve.
func round(o *obj) bool {
	if o.kind == "junction" {
		return true
	}
	if o.figure == 1 {
		switch o.class {
		case "Value", "BusinessInterface", "ApplicationInterface", "TechnologyInterface", "SystemSoftware":
			return true
		}
	}
	return false
}

// midpoint is the point halfway along a polyline.
func midpoint(p []pt) pt {
	return along(p, 0.5)
}

// along is the point at fraction f of a polyline's length.
func along(p []pt, f float64) pt {
	total := 0.0
	for i := 1; i < len(p); i++ {
		total += dist(p[i-1], p[i])
	}
	want := total * f
	for i := 1; i < len(p); i++ {
		l := dist(p[i-1], p[i])
		if want <= l && l > 0 {
			t := want / l
			return pt{p[i-1].x + (p[i].x-p[i-1].x)*t, p[i-1].y + (p[i].y-p[i-1].y)*t}
		}
		want -= l
	}
	return p[len(p)-1]
}

func dist(a, b pt) float64 { return math.Hypot(b.x-a.x, b.y-a.y) }

func parseView(v archixml.Object) (*diagram.Node, error) { return diagram.Parse(v.XML()) }

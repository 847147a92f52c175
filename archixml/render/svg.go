package render

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/internal/diagram"
)

// style is what the model says about an object's look, with Archi's defaults filled in.
type style struct {
	fill, line, font, fontColor string
	fontSize                    float64
	bold, italic                bool
	alpha, lineAlpha            float64
	lineWidth                   int
	align, pos                  int // textAlignment 1 left, 2 centre, 4 right; textPosition 0 top, 1 middle, 2 bottom
	dash                        string
	noLine                      bool
}

const (
	// the font the labels are measured in (metrics_table.go) and drawn in: Liberation Sans has
	// Arial's metrics, so either gives the same lines
	defaultFont     = "Liberation Sans, Arial, Helvetica, sans-serif"
	defaultFontSize = 12.0 // Archi's 9 pt at 96 dpi
	textMargin      = 4    // Archi's text control margin inside a figure
	noteMargin      = 5    // a note's (Draw2D GridLayout's default margin)
)

func (d *drawing) styleOf(o *obj) style {
	n := o.n
	s := style{fill: colour(n.Attr("fillColor"), DefaultFill(o.class)), font: defaultFont, fontSize: defaultFontSize,
		fontColor: colour(n.Attr("fontColor"), "#000000"), alpha: 1, lineAlpha: 1, lineWidth: 1, align: 2, pos: 0}
	switch o.kind {
	case "note", "group", "canvas":
		s.align = 1
	}
	if o.class == "Grouping" {
		s.align = 1
	}
	// Archi derives every object's line from its fill unless told not to
	// (AbstractDiagramModelObjectFigure.getLineColor)
	if v, ok := n.Feature("deriveElementLineColor"); ok && v == "false" {
		s.line = colour(n.Attr("lineColor"), lineDefault)
	} else {
		s.line = derived(s.fill)
	}
	// lineStyle: 0 solid, 1 dashed, 2 dotted, 3 none; a Grouping's default is dashed
	ls := -1
	if v, ok := n.Feature("lineStyle"); ok {
		ls = num(v, -1)
	}
	if ls < 0 && o.class == "Grouping" {
		ls = 1
	}
	switch ls {
	case 1:
		s.dash = "8 4"
	case 2:
		s.dash = "2 4"
	case 3:
		s.noLine = true
	}
	if a := n.Attr("alpha"); a != "" {
		s.alpha = float64(clamp(num(a, 255), 0, 255)) / 255
	}
	if a, ok := n.Feature("lineAlpha"); ok {
		s.lineAlpha = float64(clamp(num(a, 255), 0, 255)) / 255
	}
	if w := n.Attr("lineWidth"); w != "" {
		s.lineWidth = clamp(num(w, 1), 1, 3)
	}
	if a := n.Attr("textAlignment"); a != "" {
		s.align = num(a, s.align)
	}
	if p := n.Attr("textPosition"); p != "" {
		s.pos = num(p, s.pos)
	}
	s.applyFont(n.Attr("font"))
	return s
}

// applyFont reads SWT's FontData string: "1|Segoe UI|9.0|1|WINDOWS|...": version, name, height in
// points, style (1 bold, 2 italic).
func (s *style) applyFont(f string) {
	parts := strings.Split(f, "|")
	if len(parts) < 4 {
		return
	}
	if name := strings.TrimSpace(parts[1]); name != "" {
		s.font = name + ", " + defaultFont
	}
	if h, err := strconv.ParseFloat(parts[2], 64); err == nil && h > 0 && h < 200 {
		s.fontSize = h * 4 / 3
	}
	st := num(parts[3], 0)
	s.bold, s.italic = st&1 != 0, st&2 != 0
}

func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }

// colour accepts "#rrggbb" only: anything else a model holds falls back to the default, so no
// attribute value reaches the SVG unchecked.
func colour(v, dflt string) string {
	if len(v) != 7 || v[0] != '#' {
		return dflt
	}
	for _, c := range v[1:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return dflt
		}
	}
	return strings.ToLower(v)
}

func rgb(c string) (r, g, b int) {
	v, _ := strconv.ParseUint(c[1:], 16, 32)
	return int(v >> 16 & 0xff), int(v >> 8 & 0xff), int(v & 0xff)
}

// derived is ColorFactory.getDerivedLineColor: the fill at 70 %.
func derived(c string) string { return scaled(c, 0.7) }

// darker is ColorFactory.getDarkerColor: the fill at 90 %.
func darker(c string) string { return scaled(c, 0.9) }

func scaled(c string, f float64) string {
	r, g, b := rgb(c)
	return fmt.Sprintf("#%02x%02x%02x", int(float64(r)*f), int(float64(g)*f), int(float64(b)*f))
}

// piece is one diagram object or connection, drawn without a mark: a picture is written from its
// pieces, marked and framed as the writer asks, without the model at hand.
type piece struct {
	id     string
	conn   bool
	target string // the concept (or, for a view reference, the view) a link leads to
	meet   rect   // what must meet the frame for the piece to be written in a cropped picture
	ext    rect   // what the piece takes of the view: a crop around it holds it whole
	hasExt bool
	head   string // the opening tag, unclosed
	body   []byte
	path   string // a connection's line, for its mark
}

// write writes the piece with its mark.
func (p *piece) write(b *bytes.Buffer, mark Mark) {
	b.WriteString(p.head)
	if mark == MarkRemoved {
		b.WriteString(` opacity="0.35"`)
	}
	if mark != MarkNone {
		fmt.Fprintf(b, ` data-mark="%s"`, mark)
	}
	b.WriteString(">\n")
	c := markColour
	if mark == MarkRemoved {
		c = removedColour
	}
	if p.conn && mark != MarkNone && p.path != "" {
		fmt.Fprintf(b, `<path class="mark" d="%s" fill="none" stroke="%s" stroke-width="6" stroke-opacity="0.5"/>`+"\n", p.path, c)
	}
	b.Write(p.body)
	if !p.conn && mark != MarkNone {
		r := p.ext
		fmt.Fprintf(b, `<rect class="mark" x="%d" y="%d" width="%d" height="%d" fill="none" stroke="%s" stroke-width="3" stroke-dasharray="6 3"/>`+"\n",
			r.x-3, r.y-3, r.w+6, r.h+6, c)
		if mark == MarkRenamed {
			fmt.Fprintf(b, `<text class="mark" x="%d" y="%d" font-size="10" fill="%s">renamed</text>`+"\n", r.x, r.y-6, c)
		}
	}
	b.WriteString("</g>\n")
}

// Picture is a view laid out and drawn, not yet framed nor marked: two pictures of one view (before
// and after a change) are framed alike once both are drawn, and each is written without the model
// (which may have changed in between).
type Picture struct {
	view, title string
	objs, conns []piece
}

// Box is a rectangle of a view's plane, in Archi's absolute coordinates.
type Box struct{ X, Y, W, H int }

// Union is the box around both.
func (b Box) Union(o Box) Box {
	r := union(rect{b.X, b.Y, b.W, b.H}, rect{o.X, o.Y, o.W, o.H})
	return Box{r.x, r.y, r.w, r.h}
}

func union(a, b rect) rect {
	x0, y0 := min(a.x, b.x), min(a.y, b.y)
	x1, y1 := max(a.x+a.w, b.x+b.w), max(a.y+a.h, b.y+b.h)
	return rect{x0, y0, x1 - x0, y1 - y0}
}

// Draw lays a view out and draws it, for Picture.Write, with Archi's default preferences.
func Draw(m *archixml.Model, viewID string) (*Picture, error) {
	return DrawWith(m, viewID, Prefs{})
}

// DrawWith lays a view out and draws it as Draw does, with Archi's preferences p.
func DrawWith(m *archixml.Model, viewID string, p Prefs) (*Picture, error) {
	v, ok := m.Object(viewID)
	if !ok || v.Kind() != archixml.KindView {
		return nil, fmt.Errorf("render %q: %w", viewID, ErrNoView)
	}
	root, err := parseView(v)
	if err != nil {
		return nil, fmt.Errorf("render %q: %v: %w", viewID, err, ErrMalformed)
	}
	d := layout(m, root)
	d.prefs = p
	return d.picture(v), nil
}

func (d *drawing) picture(v archixml.Object) *Picture {
	p := &Picture{view: v.ID(), title: v.Name()}
	for _, ob := range d.objs {
		p.objs = append(p.objs, d.objectPiece(ob))
	}
	for _, c := range d.conns {
		if !d.hiddenConn(c) {
			p.conns = append(p.conns, d.connPiece(c))
		}
	}
	return p
}

// Extent is the box around the objects and connections with the given ids (all when ids is nil);
// ok is false when none of them is drawn.
func (p *Picture) Extent(ids []string) (Box, bool) {
	r, ok := p.extent(ids)
	return Box{r.x, r.y, r.w, r.h}, ok
}

func (p *Picture) extent(ids []string) (rect, bool) {
	var set map[string]bool
	if ids != nil {
		set = map[string]bool{}
		for _, id := range ids {
			set[id] = true
		}
	}
	var box rect
	found := false
	for _, list := range [][]piece{p.objs, p.conns} {
		for _, pc := range list {
			if !pc.hasExt || (set != nil && !set[pc.id]) {
				continue
			}
			if !found {
				box, found = pc.ext, true
			} else {
				box = union(box, pc.ext)
			}
		}
	}
	if !found {
		return rect{0, 0, 100, 100}, false
	}
	return box, true
}

// frame is the part of the view's plane a drawing with these options shows, and whether it is
// cropped (to o.Frame, or to o.Focus when some of its ids were found).
func (p *Picture) frame(o Options) (view rect, cropped bool) {
	if o.Frame != nil {
		return rect{o.Frame.X, o.Frame.Y, o.Frame.W, o.Frame.H}, true
	}
	box, ok := p.extent(o.Focus)
	if !ok {
		box, _ = p.extent(nil)
	}
	margin := 10
	if len(o.Marks) > 0 {
		margin = 20 // room for the marks' outlines and tags
	}
	if len(o.Focus) > 0 {
		margin = o.Margin
		if margin <= 0 {
			margin = 40
		}
	}
	return rect{box.x - margin, box.y - margin, box.w + 2*margin, box.h + 2*margin}, len(o.Focus) > 0 && ok
}

// Write writes the picture as an SVG document, marked, linked and framed as o says.
func (p *Picture) Write(o Options) []byte {
	var b bytes.Buffer
	p.write(&b, o)
	return b.Bytes()
}

func (p *Picture) write(b *bytes.Buffer, o Options) {
	view, cropped := p.frame(o)
	x0, y0, w, h := view.x, view.y, view.w, view.h
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="%d" height="%d" viewBox="%d %d %d %d" font-family="%s" font-size="%s" data-view="%s">`+"\n",
		w, h, x0, y0, w, h, esc(defaultFont), f2(defaultFontSize), esc(p.view))
	fmt.Fprintf(b, "<title>%s</title>\n", esc(shown(p.title)))
	fmt.Fprintf(b, `<rect class="background" x="%d" y="%d" width="%d" height="%d" fill="#ffffff"/>`+"\n", x0, y0, w, h)
	// a cropped picture leaves out what lies wholly outside it
	for _, list := range [][]piece{p.objs, p.conns} {
		for i := range list {
			pc := &list[i]
			if !cropped || meets(pc.meet, view) {
				end := openLink(b, o.Link, pc.target)
				pc.write(b, o.Marks[pc.id])
				b.WriteString(end)
			}
		}
	}
	b.WriteString("</svg>\n")
}

// objectPiece draws a diagram object once, without a mark: a mark is added as it is written.
func (d *drawing) objectPiece(o *obj) piece {
	s := d.styleOf(o)
	r := o.r
	p := piece{id: o.id, meet: o.r, ext: o.r, hasExt: true}
	p.head = fmt.Sprintf(`<g data-id="%s" data-kind="%s" data-type="%s" data-x="%d" data-y="%d" data-w="%d" data-h="%d"`,
		esc(o.id), o.kind, esc(o.class), r.x, r.y, r.w, r.h)
	if o.kind == "reference" {
		p.target = o.n.Attr("model")
	} else if o.concept.Valid() {
		p.target = o.concept.ID()
	}
	var body bytes.Buffer
	b := &body
	paint := fmt.Sprintf(`fill="%s" stroke="%s" stroke-width="%d"`, s.fill, s.line, s.lineWidth)
	if s.noLine {
		paint = fmt.Sprintf(`fill="%s" stroke="none"`, s.fill)
	} else if s.dash != "" {
		paint += ` stroke-dasharray="` + s.dash + `"`
	}
	paint += opacity("fill", s.alpha) + opacity("stroke", s.lineAlpha)
	text, margin := r, textMargin // where the label goes
	switch o.kind {
	case "junction":
		cx, cy, rx, ry := f2(float64(r.x)+float64(r.w)/2), f2(float64(r.y)+float64(r.h)/2), f2(float64(r.w)/2), f2(float64(r.h)/2)
		if orJunction(o.concept) {
			// an OR junction is a hollow circle in the line colour
			fmt.Fprintf(b, `<ellipse cx="%s" cy="%s" rx="%s" ry="%s" fill="none" stroke="%s" stroke-width="%d"%s/>`+"\n", cx, cy,
				f2(float64(r.w)/2-0.5), f2(float64(r.h)/2-0.5), s.line, s.lineWidth, opacity("stroke", s.lineAlpha))
		} else {
			fmt.Fprintf(b, `<ellipse cx="%s" cy="%s" rx="%s" ry="%s" fill="%s"%s stroke="none"/>`+"\n", cx, cy, rx, ry, s.fill, opacity("fill", s.alpha))
		}
		o.label = ""
	case "group":
		text = d.tabbed(b, r, s, paint, o, o.n.Attr("borderType") != "1", true)
	case "note":
		margin = noteMargin
		switch o.n.Attr("borderType") {
		case "1":
			fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" %s/>`+"\n", r.x, r.y, r.w, r.h, paint)
		case "2":
			fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"%s stroke="none"/>`+"\n", r.x, r.y, r.w, r.h, s.fill, opacity("fill", s.alpha))
		default: // dog-eared, the corner cut 13 px (NoteFigure)
			fmt.Fprintf(b, `<path d="M%d %dh%dv%dl-13 13h%dz" %s/>`+"\n", r.x, r.y, r.w, r.h-13, -(r.w - 13), paint)
		}
	case "element":
		if o.class == "Grouping" {
			text = d.tabbed(b, r, s, paint, o, o.figure == 1, false)
			break
		}
		text = d.element(b, o, r, &s, paint)
	case "reference":
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" %s/>`+"\n", r.x, r.y, r.w, r.h, paint)
		writeIcon(b, "reference", r, s.line)
	case "sketch":
		if o.class == "SketchModelActor" {
			k := min(float64(r.w)/15, float64(r.h-18)/12)
			fmt.Fprintf(b, `<g fill="none" stroke="%s">`, s.line)
			for _, p := range icons["actor"] {
				fmt.Fprintf(b, `<path d="%s"/>`, scalePath(p, float64(r.x)+(float64(r.w)-15*k)/2, float64(r.y), k, k))
			}
			b.WriteString("</g>\n")
			text = rect{r.x, r.y + r.h - 16, r.w, 16}
			break
		}
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" %s/>`+"\n", r.x, r.y, r.w, r.h, paint)
	default:
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" %s/>`+"\n", r.x, r.y, r.w, r.h, paint)
	}
	if o.label != "" {
		writeText(b, o.label, text, s, margin, o.kind == "note" || o.kind == "canvas")
	}
	p.body = body.Bytes()
	return p
}

// tabbed draws a group or a Grouping and returns where its label goes: tabbed (a tab as wide as
// the name or half the box, a group's tab filled darker) or a plain rectangle, with a
// Grouping's icon on the rectangle (GroupFigure, GroupingFigure).
func (d *drawing) tabbed(b *bytes.Buffer, r rect, s style, paint string, o *obj, tab, group bool) rect {
	// the label's area: up by max(3, leading) less the margin difference, as Archi places it
	label := rect{r.x, r.y - 2, r.w, r.h}
	if s.pos != 0 {
		label = r
	}
	if !tab {
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" %s/>`+"\n", r.x, r.y, r.w, r.h, paint)
		if !group && writeArchiIcon(b, "grouping", r) && s.align == 4 && s.pos == 0 {
			label.w -= archiIcons()["grouping"].offset - textMargin
		}
		return label
	}
	inset := 2.0
	if !group {
		inset = 1.4
	}
	tabW, tabH := int(float64(r.w)/inset), 18
	if s.pos == 0 {
		tabW = min(max(tabW, textWidth(o.label, s)+8), r.w)
		tabH = max(tabH, int(lineHeight(s)))
	}
	tabFill := s.fill
	if group {
		tabFill = darker(s.fill)
	}
	fills := strings.Replace(paint, `fill="`+s.fill+`"`, `fill="%s"`, 1)
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" %s/>`+"\n", r.x, r.y+tabH, r.w, r.h-tabH, fmt.Sprintf(fills, s.fill))
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" %s/>`+"\n", r.x, r.y, tabW-1, tabH, fmt.Sprintf(fills, tabFill))
	return label
}

// element draws an ArchiMate element's figure and returns where its label goes.
func (d *drawing) element(b *bytes.Buffer, o *obj, r rect, s *style, paint string) rect {
	icon := iconOf[o.class]
	if o.figure == 1 && icon != "" {
		return d.alternate(b, o, icon, r, s, paint)
	}
	switch boxShape(o.class) {
	case "round":
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" rx="10" ry="10" %s/>`+"\n", r.x, r.y, r.w, r.h, paint)
	case "bevel":
		k := min(10, r.w/4, r.h/4)
		fmt.Fprintf(b, `<path d="M%d %dh%dl%d %dv%dl%d %dh%dl%d %dv%dz" %s/>`+"\n",
			r.x+k, r.y, r.w-2*k, k, k, r.h-2*k, -k, k, -(r.w - 2*k), -k, -k, -(r.h - 2*k), paint)
	default:
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" %s/>`+"\n", r.x, r.y, r.w, r.h, paint)
	}
	if !writeArchiIcon(b, icon, r) || s.pos != 0 {
		return r
	}
	// the label keeps clear of the icon (AbstractTextControlContainerFigure.calculateTextControlBounds)
	io := archiIcons()[icon].offset - textMargin
	switch s.align {
	case 2:
		return rect{r.x + io, r.y, r.w - 2*io, r.h}
	case 4:
		return rect{r.x, r.y, r.w - io, r.h}
	}
	return r
}

// alternate draws the figure of type 1: the notation itself, stretched over the bounds for
// shapes, kept in proportion with the name below for pictograms.
func (d *drawing) alternate(b *bytes.Buffer, o *obj, icon string, r rect, s *style, paint string) rect {
	if t, ok := archiAlternate(b, icon, r, s, paint); ok {
		return t
	}
	x, y, w, h := float64(r.x), float64(r.y), float64(r.w), float64(r.h)
	fillOnly := strings.Replace(paint, `stroke="`+s.line+`"`, `stroke="none"`, 1)
	switch icon {
	case "component":
		// ApplicationComponentFigure: the body from x+10, two fixed tabs filled darker, the text
		// clear of them
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" %s/>`+"\n", r.x+10, r.y, r.w-10, r.h, fillOnly)
		fmt.Fprintf(b, `<path d="M%d %dV%dH%dV%dH%dV%dM%d %dV%d" fill="none" stroke="%s" stroke-width="%d"/>`+"\n",
			r.x+10, r.y+10, r.y, r.x+r.w, r.y+r.h, r.x+10, r.y+43, r.x+10, r.y+23, r.y+30, s.line, s.lineWidth)
		for _, ty := range []int{r.y + 10, r.y + 30} {
			fmt.Fprintf(b, `<rect x="%d" y="%d" width="20" height="13" %s/>`+"\n", r.x, ty,
				strings.Replace(paint, `fill="`+s.fill+`"`, `fill="`+darker(s.fill)+`"`, 1))
		}
		return rect{r.x + 18, r.y, r.w - 18, r.h}
	case "node":
		// BoxFigureDelegate: the 3D box, its top and side faces filled darker than the front
		const e = 14
		fmt.Fprintf(b, `<path d="M%d %dL%d %dH%dV%dL%d %dH%dz" %s/>`+"\n", r.x, r.y+e, r.x+e, r.y, r.x+r.w, r.y+r.h-e,
			r.x+r.w-e, r.y+r.h, r.x, strings.Replace(paint, `fill="`+s.fill+`"`, `fill="`+darker(s.fill)+`"`, 1))
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" %s/>`+"\n", r.x, r.y+e, r.w-e, r.h-e, paint)
		fmt.Fprintf(b, `<path d="M%d %dL%d %d" fill="none" stroke="%s" stroke-width="%d"/>`+"\n", r.x+r.w-e, r.y+e, r.x+r.w, r.y, s.line, s.lineWidth)
		t := r
		switch s.pos {
		case 0:
			t.y += e
		case 1:
			t.y += e / 2
		}
		if s.align != 1 {
			t.w -= e + 1
		}
		return t
	case "representation":
		fmt.Fprintf(b, `<path d="%s" %s/>`+"\n", deliverablePath(x, y, w, h, 6, 0), paint)
		fmt.Fprintf(b, `<path d="M%d %dH%d" fill="none" stroke="%s" stroke-width="%d"/>`+"\n", r.x, r.y+12, r.x+r.w, s.line, s.lineWidth)
		if s.pos == 0 {
			return rect{r.x, r.y + 12 - textMargin - 1, r.w, r.h}
		}
		return r
	case "deliverable":
		fmt.Fprintf(b, `<path d="%s" %s/>`+"\n", deliverablePath(x, y, w, h, 8, 0), paint)
		return r
	case "service":
		rr := h / 2
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" rx="%s" ry="%s" %s/>`+"\n", r.x, r.y, r.w, r.h, f2(rr), f2(rr), paint)
		return r
	case "process":
		a := math.Min(h/2, w/4)
		fmt.Fprintf(b, `<path d="M%s %sh%sv%sl%s %sl%s %sv%sh%sz" %s/>`+"\n", f2(x), f2(y+h/4), f2(w-a), f2(-h/4), f2(a), f2(h/2),
			f2(-a), f2(h/2), f2(-h/4), f2(-(w - a)), paint)
		return rect{r.x, r.y, r.w - int(a)/2, r.h}
	case "event":
		a := math.Min(h/2, w/4)
		fmt.Fprintf(b, `<path d="M%s %sh%sa%s %s 0 0 1 0 %sh%sa%s %s 0 0 0 0 %sz" %s/>`+"\n", f2(x), f2(y), f2(w-a), f2(a), f2(h/2), f2(h),
			f2(-(w - a)), f2(a), f2(h/2), f2(-h), paint)
		return rect{r.x + int(a), r.y, r.w - 2*int(a), r.h}
	case "role":
		a := math.Min(h/4, w/6)
		fmt.Fprintf(b, `<path d="M%s %sh%sa%s %s 0 0 1 0 %sh%sa%s %s 0 0 1 0 %sz" %s/>`+"\n", f2(x+a), f2(y), f2(w-2*a), f2(a), f2(h/2), f2(h),
			f2(-(w - 2*a)), f2(a), f2(h/2), f2(-h), paint)
		fmt.Fprintf(b, `<path d="M%s %sa%s %s 0 0 0 0 %s" fill="none" stroke="%s"/>`+"\n", f2(x+w-a), f2(y), f2(a), f2(h/2), f2(h), s.line)
		return rect{r.x + int(a), r.y, r.w - 3*int(a), r.h}
	}
	// a pictogram in proportion, the name under it
	k := math.Min(w/15, (h-18)/12)
	if k <= 0 {
		k = math.Min(w/15, h/12)
	}
	fmt.Fprintf(b, `<g %s>`, paint)
	for i, p := range icons[icon] {
		attr := ""
		if i > 0 && icon != "collaboration" {
			attr = ` fill="none"`
		}
		if strings.HasPrefix(p, "F") {
			p, attr = p[1:], ` fill="`+s.line+`"`
		}
		if icon == "actor" && i == 1 {
			attr = ` fill="none"`
		}
		fmt.Fprintf(b, `<path d="%s"%s/>`, scalePath(p, x+(w-15*k)/2, y, k, k), attr)
	}
	b.WriteString("</g>\n")
	s.pos = 2
	return rect{r.x, r.y + int(12*k), r.w, r.h - int(12*k)}
}

// writeIcon draws a notation icon in the figure's top right corner.
func writeIcon(b *bytes.Buffer, icon string, r rect, line string) {
	if r.w < 40 || r.h < 20 {
		return
	}
	fmt.Fprintf(b, `<g class="icon" transform="translate(%d %d)" fill="none" stroke="#000000" stroke-width="1">`, r.x+r.w-20, r.y+5)
	for _, p := range icons[icon] {
		if strings.HasPrefix(p, "F") {
			fmt.Fprintf(b, `<path d="%s" fill="#000000" stroke="none"/>`, p[1:])
			continue
		}
		fmt.Fprintf(b, `<path d="%s"/>`, p)
	}
	b.WriteString("</g>\n")
}

// f2 formats a coordinate with at most two decimals.
// opacity is the SVG attribute giving paint ("fill" or "stroke") Archi's alpha (0 to 1), or
// nothing when it is opaque.
func opacity(paint string, a float64) string {
	if a >= 1 {
		return ""
	}
	return " " + paint + `-opacity="` + f2(a) + `"`
}

func f2(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

// orJunction reports whether a junction is an OR junction (its own type attribute, which a
// namespace-blind lookup would confuse with xsi:type).
func orJunction(c archixml.Object) bool {
	if !c.Valid() {
		return false
	}
	n, err := diagram.Parse(c.XML())
	return err == nil && n.Attr("type") == "or"
}

// openLink opens an SVG link to what link makes of target, and returns what closes it ("" when
// there is no link).
func openLink(b *bytes.Buffer, link func(string) string, target string) string {
	if link == nil || target == "" {
		return ""
	}
	href := link(target)
	if href == "" {
		return ""
	}
	fmt.Fprintf(b, `<a href="%s">`, esc(href))
	return "</a>\n"
}

// meets reports whether two rectangles overlap or touch.
func meets(a, b rect) bool {
	return a.x <= b.x+b.w && b.x <= a.x+a.w && a.y <= b.y+b.h && b.y <= a.y+a.h
}

// boxOf is the box around a polyline (a label may reach a little beyond it).
func boxOf(p []pt) rect {
	if len(p) == 0 {
		return rect{math.MinInt / 4, math.MinInt / 4, 0, 0}
	}
	x0, y0, x1, y1 := p[0].x, p[0].y, p[0].x, p[0].y
	for _, q := range p[1:] {
		x0, y0, x1, y1 = math.Min(x0, q.x), math.Min(y0, q.y), math.Max(x1, q.x), math.Max(y1, q.y)
	}
	return rect{int(x0) - 40, int(y0) - 20, int(x1-x0) + 80, int(y1-y0) + 40}
}

package archixml

import (
	"fmt"
	"strconv"

	"github.com/beevik/etree"
)

// Layout constants: the gap between objects placed side by side, between rows of a laid-out
// view, its margin, and how many objects a row holds before it wraps.
const (
	layoutGap     = 24
	layoutRowGap  = 48
	layoutMargin  = 24
	layoutPerRow  = 8
	layoutMaxRing = 12
)

// layerOrder is the order of ArchiMate's layers from the top of a laid-out view to its bottom:
// the motivation aspect above the core, as in the ArchiMate framework's layered views; groups,
// notes and view references last.
var layerOrder = map[string]int{"Motivation": 0, "Strategy": 1, "Business": 2, "Application": 3,
	"Technology": 4, "Physical": 5, "Implementation & Migration": 6, "Other": 7}

// LayerRank is the row of a laid-out view that objects of the element class go in (0 at the top).
func LayerRank(class string) int {
	if t := elementByClass[class]; t != nil {
		return layerOrder[t.Layer]
	}
	return len(layerOrder)
}

// sized fills in Archi's default size where bounds say -1.
func sized(b Bounds) Bounds {
	if b.Width < 0 {
		b.Width = DefaultSize.Width
	}
	if b.Height < 0 {
		b.Height = DefaultSize.Height
	}
	return b
}

func overlaps(a, b Bounds) bool {
	return a.X < b.X+b.Width && b.X < a.X+a.Width && a.Y < b.Y+b.Height && b.Y < a.Y+a.Height
}

// placeClearance is how far a new object placed without a place keeps from every other object
// beside it: touching one, it reads as part of it, and an arrowhead (7 px in Archi) between the
// two has no room to show.
const placeClearance = insideMargin

// clearOf says whether b keeps placeClearance from every box of taken.
func clearOf(b Bounds, taken []Bounds) bool {
	grown := Bounds{X: b.X - placeClearance, Y: b.Y - placeClearance, Width: b.Width + 2*placeClearance, Height: b.Height + 2*placeClearance}
	for _, t := range taken {
		if overlaps(grown, t) {
			return false
		}
	}
	return true
}

// siblings returns the bounds of the objects directly in a container.
func (m *Model) siblings(container *etree.Element) []Bounds {
	var out []Bounds
	for _, t := range container.Child {
		if c, ok := t.(*etree.Element); ok && c.Tag == "child" {
			if b, ok := (Object{m, c}).Bounds(); ok {
				out = append(out, sized(b))
			}
		}
	}
	return out
}

// typicalSize is the size a new object of the element's type takes on a view: the size most
// objects of that type there have; else, for an ordinary element, the size most elements there
// have; else Archi's default for the type.
func (m *Model) typicalSize(v *etree.Element, elementID string) Bounds {
	class := m.classOf(elementID)
	same, any := map[[2]int]int{}, map[[2]int]int{}
	var order [][2]int // first seen first, so that a tie is decided the same way every time
	m.walk(v, func(e *etree.Element) {
		c := e.SelectAttrValue("archimateElement", "")
		if c == "" || kindOf(e) != KindDiagramObject {
			return
		}
		b, ok := (Object{m, e}).Bounds()
		if !ok || b.Width < 0 || b.Height < 0 {
			return
		}
		k := [2]int{b.Width, b.Height}
		if same[k] == 0 && any[k] == 0 {
			order = append(order, k)
		}
		switch cc := m.classOf(c); {
		case cc == class:
			same[k]++
		case cc != "Junction" && cc != "Grouping":
			any[k]++
		}
	})
	pick := func(counts map[[2]int]int) (Bounds, bool) {
		best, n := [2]int{}, 0
		for _, k := range order {
			if counts[k] > n {
				best, n = k, counts[k]
			}
		}
		return Bounds{Width: best[0], Height: best[1]}, n > 0
	}
	if b, ok := pick(same); ok {
		return b
	}
	switch class {
	case "Junction":
		return Bounds{Width: 15, Height: 15}
	case "Grouping":
		return GroupSize
	}
	if b, ok := pick(any); ok {
		return b
	}
	return DefaultSize
}

// placeInHolder finds a place for a new object beside a related one that sits in a group or
// another object (its holder): inside that holder, in free space, below its label. It returns the
// holder and the bounds in it; ok is false when nothing related is nested or no holder has room.
func (m *Model) placeInHolder(v *etree.Element, elementID string, size Bounds) (*etree.Element, Bounds, bool) {
	related := m.relatedTo(elementID)
	if len(related) == 0 {
		return nil, Bounds{}, false
	}
	tried := map[*etree.Element]bool{}
	var holder *etree.Element
	var at Bounds
	found := false
	m.walk(v, func(e *etree.Element) {
		if found || kindOf(e) != KindDiagramObject || !related[e.SelectAttrValue("archimateElement", "")] {
			return
		}
		h := e.Parent()
		if h == nil || h == v || kindOf(h) != KindDiagramObject || tried[h] {
			return
		}
		tried[h] = true
		hb, ok := (Object{m, h}).Bounds()
		if !ok {
			return
		}
		hb = sized(hb)
		inner := Bounds{X: 0, Y: 20, Width: hb.Width, Height: hb.Height - 20} // clear of a group's tab or a label
		if b, ok := m.placeNear(h, elementID, size, &inner); ok {
			holder, at, found = h, b, true
		}
	})
	return holder, at, found
}

// Inside a diagram object or group, what a new object keeps clear of: the margin around it, and
// the room of the holder's label or tab above it.
const (
	insideMargin = 12
	insideTop    = 24
)

// placeInside finds where a new object of the size goes in a diagram object or group (parent)
// when the plan gives no place: beside what it is related to there (elementID; "" for a note or
// group), else on the first free cell of a grid as wide as the parent, below its label. When the
// parent is too small for it, the parent grows to hold it, and what holds the parent grows in
// turn, as a person makes room: a new object is never put outside its parent, where Archi would
// clip it out of sight.
func (m *Model) placeInside(parent *etree.Element, elementID string, size Bounds) Bounds {
	pb, _ := (Object{m, parent}).Bounds()
	pb = sized(pb)
	inner := Bounds{X: 0, Y: insideTop - insideMargin, Width: pb.Width, Height: pb.Height - insideTop + insideMargin}
	if elementID != "" {
		if b, ok := m.placeNear(parent, elementID, size, &inner); ok {
			return b
		}
	}
	taken := m.siblings(parent)
	cellW, cellH := size.Width+insideMargin, size.Height+insideMargin
	cols := max(1, (pb.Width-insideMargin)/cellW)
	var b Bounds
	for i := 0; ; i++ {
		b = Bounds{X: insideMargin + (i%cols)*cellW, Y: insideTop + (i/cols)*cellH, Width: size.Width, Height: size.Height}
		if clearOf(b, taken) {
			break
		}
	}
	m.grow(parent, b)
	return b
}

// grow makes a diagram object or group large enough to hold b (relative to it) with a margin,
// and what holds it large enough to hold it, in turn.
func (m *Model) grow(e *etree.Element, b Bounds) {
	for kindOf(e) == KindDiagramObject {
		cur, _ := (Object{m, e}).Bounds()
		have := sized(cur)
		w, h := max(have.Width, b.X+b.Width+insideMargin), max(have.Height, b.Y+b.Height+insideMargin)
		if w == have.Width && h == have.Height {
			return
		}
		be := e.SelectElement("bounds")
		if be == nil {
			be = boundsEl(Bounds{Width: -1, Height: -1})
			m.insertChild(e, be)
		}
		m.setAttr(be, "width", strconv.Itoa(w))
		m.setAttr(be, "height", strconv.Itoa(h))
		b = Bounds{X: cur.X, Y: cur.Y, Width: w, Height: h}
		e = e.Parent()
	}
}

// PlacedIn says where a diagram object sits when it is nested: ` inside "NAME" (ID)`, its
// bounds being relative to that holder; "" at the view's top.
func PlacedIn(o Object) string {
	p, ok := o.Parent()
	if !ok || p.Kind() != KindDiagramObject {
		return ""
	}
	name := p.Name()
	if c, ok := p.Concept(); ok {
		name = c.Name()
	}
	return fmt.Sprintf(" inside %q (%s)", name, p.ID())
}

// relatedTo is the set of elements related to elementID.
func (m *Model) relatedTo(elementID string) map[string]bool {
	related := map[string]bool{}
	for _, rel := range m.relsByEnd[elementID] {
		for _, end := range []string{"source", "target"} {
			if v := rel.SelectAttrValue(end, ""); v != elementID {
				related[v] = true
			}
		}
	}
	return related
}

// placeNear finds where a new object of the size goes in a container: beside the first object
// of the container that shows an element related to elementID (right of it, below, left, above,
// then further out), on no other object, and within the given bounds when there are some. ok is
// false when the container shows nothing related or has no room.
func (m *Model) placeNear(container *etree.Element, elementID string, size Bounds, within *Bounds) (Bounds, bool) {
	related := m.relatedTo(elementID)
	if len(related) == 0 {
		return Bounds{}, false
	}
	var anchors []Bounds
	for _, t := range container.Child {
		if c, ok := t.(*etree.Element); ok && c.Tag == "child" && related[c.SelectAttrValue("archimateElement", "")] {
			if b, ok := (Object{m, c}).Bounds(); ok {
				anchors = append(anchors, sized(b))
			}
		}
	}
	if len(anchors) == 0 {
		return Bounds{}, false
	}
	taken := m.siblings(container)
	w, h := size.Width, size.Height
	for ring := 0; ring < layoutMaxRing; ring++ {
		for _, r := range anchors {
			for _, c := range []Bounds{
				{r.X + r.Width + layoutGap + ring*(w+layoutGap), r.Y, w, h},
				{r.X, r.Y + r.Height + layoutGap + ring*(h+layoutGap), w, h},
				{r.X - layoutGap - w - ring*(w+layoutGap), r.Y, w, h},
				{r.X, r.Y - layoutGap - h - ring*(h+layoutGap), w, h},
			} {
				if c.X < placeClearance || c.Y < placeClearance { // clear of the view's edge, or its holder's
					continue
				}
				if within != nil && (c.X < within.X || c.Y < within.Y || c.X+c.Width > within.X+within.Width || c.Y+c.Height > within.Y+within.Height) {
					continue
				}
				if clearOf(c, taken) {
					return c, true
				}
			}
		}
	}
	return Bounds{}, false
}

// LayoutView lays a view out in layers (see layoutLayered): its objects in ranks, the ArchiMate
// layers from top to bottom (see LayerRank) and in each layer what is served, realized or
// composed above what serves, realizes or composes it; each rank ordered to cross few lines,
// ranks wrapped after 8 objects; nested objects laid out the same way inside their parent, which
// is sized to hold them. Nothing overlaps; every object keeps its size but a parent. It returns
// the ids of the objects it moved or resized and of the connections whose bendpoints it dropped
// (set for the places the objects had).
func (m *Model) LayoutView(viewID string) ([]string, error) {
	return m.LayoutViewWith(viewID, LayoutOptions{})
}

// LayoutOptions tune LayoutView: Grid puts every object in one rank (document order, in rows);
// LeftToRight lays ranks out as columns; NodeGap and RankGap (0: the defaults, 24 and 48) are the
// gaps between objects of a rank and between ranks.
type LayoutOptions struct {
	Grid        bool
	LeftToRight bool
	NodeGap     *int
	RankGap     *int
}

// LayoutViewWith lays a view out as LayoutView does, tuned by opts.
func (m *Model) LayoutViewWith(viewID string, opts LayoutOptions) ([]string, error) {
	gap, rowGap := layoutGap, layoutRowGap
	if opts.NodeGap != nil {
		gap = *opts.NodeGap
	}
	if opts.RankGap != nil {
		rowGap = *opts.RankGap
	}
	v, err := m.get(viewID, KindView)
	if err != nil {
		return nil, err
	}
	conns := m.viewConnections(v)
	var moved []string
	m.layoutLayered(v, conns, opts, gap, rowGap, [2]int{layoutMargin, layoutMargin}, &moved)
	if len(moved) > 0 {
		for _, c := range conns {
			if c.SelectElement("bendpoint") != nil {
				if err := m.SetBendpoints(c.SelectAttrValue("id", ""), nil); err != nil {
					return moved, err
				}
				moved = append(moved, c.SelectAttrValue("id", ""))
			}
		}
	}
	return moved, nil
}

// moveTo sets the x and y of a diagram object's bounds.
func (m *Model) moveTo(e *etree.Element, x, y int) {
	b := e.SelectElement("bounds")
	if b == nil {
		b = boundsEl(Bounds{X: x, Y: y, Width: -1, Height: -1})
		m.insertChild(e, b)
		return
	}
	m.setAttr(b, "x", itoa(x))
	m.setAttr(b, "y", itoa(y))
}

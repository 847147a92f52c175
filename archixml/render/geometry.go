package render

import (
	"fmt"

	"github.com/archiplan/archiplan/archixml"
)

// Geometry is where a view's objects and drawn connections are, in Archi's absolute coordinates,
// exactly as View draws them (anchors, bendpoints, fans, the Manhattan router): what a layout
// checks its lines against.
type Geometry struct {
	Objects     []GeoObject
	Connections []GeoConn
	Manhattan   bool // the view routes its connections with right angles: bendpoints are not drawn
}

// GeoObject is a diagram object: its id, the id of the object it is nested in ("" at the view's
// top) and its box.
type GeoObject struct {
	ID, Parent string
	Box        Box
}

// GeoConn is a drawn connection (nested connections Archi hides are left out): its ends (ids of
// diagram objects or connections) and the points of its line, first to last.
type GeoConn struct {
	ID, Source, Target string
	Points             [][2]float64
}

// Crossing is a connection's line passing through a diagram object that is neither of its ends
// nor holds one of them.
type Crossing struct{ Connection, Object string }

// Measure is the geometry of a view as View would draw it.
func Measure(m *archixml.Model, viewID string) (*Geometry, error) {
	v, ok := m.Object(viewID)
	if !ok || v.Kind() != archixml.KindView {
		return nil, fmt.Errorf("measure %q: %w", viewID, ErrNoView)
	}
	root, err := parseView(v)
	if err != nil {
		return nil, fmt.Errorf("measure %q: %v: %w", viewID, err, ErrMalformed)
	}
	d := layout(m, root)
	g := &Geometry{Manhattan: d.manhattan}
	for _, o := range d.objs {
		p := ""
		if o.parent != nil {
			p = o.parent.id
		}
		g.Objects = append(g.Objects, GeoObject{ID: o.id, Parent: p, Box: Box{o.r.x, o.r.y, o.r.w, o.r.h}})
	}
	for _, c := range d.conns {
		if d.hiddenConn(c) || len(c.pts) < 2 {
			continue
		}
		gc := GeoConn{ID: c.id, Source: c.src, Target: c.tgt}
		for _, p := range c.pts {
			gc.Points = append(gc.Points, [2]float64{p.x, p.y})
		}
		g.Connections = append(g.Connections, gc)
	}
	return g, nil
}

// Crossings are the connections whose lines pass through the inside of a diagram object other
// than their ends and what holds their ends (a line touching a border, or leaving the group its
// end sits in, crosses nothing), in the order of the connections.
func (g *Geometry) Crossings() []Crossing {
	var out []Crossing
	for _, c := range g.Connections {
		for _, o := range g.Crossed(c) {
			out = append(out, Crossing{Connection: c.ID, Object: o})
		}
	}
	return out
}

// Crossed are the ids of the diagram objects a connection's line passes through, as Crossings
// counts them.
func (g *Geometry) Crossed(c GeoConn) []string {
	spared := g.Spared(c)
	var out []string
	for _, o := range g.Objects {
		if spared[o.ID] {
			continue
		}
		for i := 1; i < len(c.Points); i++ {
			if SegmentThrough(c.Points[i-1], c.Points[i], o.Box) {
				out = append(out, o.ID)
				break
			}
		}
	}
	return out
}

// Spared are the objects a connection's line may pass through: its ends (an end on a
// connection: that connection's ends, in turn) and every object holding one of them.
func (g *Geometry) Spared(c GeoConn) map[string]bool {
	parent := map[string]string{}
	for _, o := range g.Objects {
		parent[o.ID] = o.Parent
	}
	conns := map[string]GeoConn{}
	for _, k := range g.Connections {
		conns[k.ID] = k
	}
	spared := map[string]bool{}
	var spare func(id string, depth int)
	spare = func(id string, depth int) {
		if k, ok := conns[id]; ok && depth < 8 {
			spare(k.Source, depth+1)
			spare(k.Target, depth+1)
			return
		}
		for ; id != "" && !spared[id]; id = parent[id] {
			spared[id] = true
		}
	}
	spare(c.Source, 0)
	spare(c.Target, 0)
	return spared
}

// SegmentThrough says whether the segment from a to b passes through the inside of the box (its
// border one pixel in: touching or running along the border is not through).
func SegmentThrough(a, b [2]float64, box Box) bool {
	x0, y0 := float64(box.X)+1, float64(box.Y)+1
	x1, y1 := float64(box.X+box.W)-1, float64(box.Y+box.H)-1
	if x1 <= x0 || y1 <= y0 {
		return false
	}
	// Liang-Barsky clipping: the part of the segment inside the box, if any
	t0, t1 := 0.0, 1.0
	dx, dy := b[0]-a[0], b[1]-a[1]
	for _, e := range [4][2]float64{{-dx, a[0] - x0}, {dx, x1 - a[0]}, {-dy, a[1] - y0}, {dy, y1 - a[1]}} {
		p, q := e[0], e[1]
		if p == 0 {
			if q < 0 {
				return false
			}
			continue
		}
		t := q / p
		if p < 0 {
			t0 = max(t0, t)
		} else {
			t1 = min(t1, t)
		}
		if t0 > t1 {
			return false
		}
	}
	return t1-t0 > 1e-9
}

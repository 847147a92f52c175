package route

import (
	"fmt"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/render"
)

// Quality is how a view reads, as peers measure their layouts: lines drawn through a box they do
// not connect (a connection and a box, counted once each), pairs of sibling boxes (same parent)
// that overlap, boxes that stick out of their parent (Archi clips them), and pairs of connections
// whose lines cross (connections sharing an end not counted).
type Quality struct {
	Through, Overlaps, Outside, Crossings int
}

// Measure is the quality of a view as the renderer draws it.
func Measure(m *archixml.Model, viewID string) (Quality, error) {
	g, err := render.Measure(m, viewID)
	if err != nil {
		return Quality{}, err
	}
	return Of(g), nil
}

// Of is the quality of a view's geometry.
func Of(g *render.Geometry) Quality {
	q := Quality{Through: len(g.Crossings())}
	boxes := map[string]render.Box{}
	for _, o := range g.Objects {
		boxes[o.ID] = o.Box
	}
	for i, a := range g.Objects {
		if p, ok := boxes[a.Parent]; ok && (a.Box.X < p.X || a.Box.Y < p.Y || a.Box.X+a.Box.W > p.X+p.W || a.Box.Y+a.Box.H > p.Y+p.H) {
			q.Outside++
		}
		for _, b := range g.Objects[i+1:] {
			if a.Parent == b.Parent && a.Box.X < b.Box.X+b.Box.W && b.Box.X < a.Box.X+a.Box.W &&
				a.Box.Y < b.Box.Y+b.Box.H && b.Box.Y < a.Box.Y+a.Box.H {
				q.Overlaps++
			}
		}
	}
	for i, a := range g.Connections {
	pair:
		for _, b := range g.Connections[i+1:] {
			if a.Source == b.Source || a.Source == b.Target || a.Target == b.Source || a.Target == b.Target {
				continue
			}
			for j := 1; j < len(a.Points); j++ {
				for k := 1; k < len(b.Points); k++ {
					if segmentsCross(a.Points[j-1], a.Points[j], b.Points[k-1], b.Points[k]) {
						q.Crossings++
						continue pair
					}
				}
			}
		}
	}
	return q
}

// Add is the sum of two qualities (over several views).
func (q Quality) Add(o Quality) Quality {
	return Quality{q.Through + o.Through, q.Overlaps + o.Overlaps, q.Outside + o.Outside, q.Crossings + o.Crossings}
}

// segmentsCross says whether segments pq and rs cross at a point inside both.
func segmentsCross(p, q, r, s [2]float64) bool {
	side := func(a, b, c [2]float64) float64 { return (b[0]-a[0])*(c[1]-a[1]) - (b[1]-a[1])*(c[0]-a[0]) }
	d1, d2, d3, d4 := side(p, q, r), side(p, q, s), side(r, s, p), side(r, s, q)
	return d1*d2 < 0 && d3*d4 < 0
}

func (q Quality) String() string {
	return fmt.Sprintf("%d through boxes, %d overlaps, %d outside their parent, %d crossings", q.Through, q.Overlaps, q.Outside, q.Crossings)
}

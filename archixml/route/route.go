// Package route routes a view's connections around the boxes they do not connect: after a
// layout, a line drawn through a box reads as a relationship it does not have.
package route

import (
	"container/heap"
	"math"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/render"
)

// cell is the side, in pixels, of the grid lines are routed on: less than half the smallest gap a
// layout leaves between boxes (24), so that every gap holds a free cell whatever its alignment.
const cell = 10

// turnCost makes a route with fewer bends cheaper than a slightly shorter one with more.
const turnCost = 6

// Around gives bendpoints to every connection of the view whose line, as the renderer draws it,
// passes through a box that is not one of its ends (nor holds one): a path on a grid around
// those boxes, its corners as bendpoints. It returns the ids of the connections it changed. A view
// whose router is Manhattan draws no bendpoints and is left as it is; so is a connection that
// has no free path.
func Around(m *archixml.Model, viewID string) ([]string, error) {
	var changed []string
	// connections between objects first; then those ending on a connection, at its middle as
	// it is drawn once the first are routed
	for _, onConns := range []bool{false, true} {
		g, err := render.Measure(m, viewID)
		if err != nil || g.Manhattan {
			return changed, err
		}
		boxes := map[string]render.Box{}
		var x0, y0, x1, y1 int
		for i, o := range g.Objects {
			boxes[o.ID] = o.Box
			if i == 0 {
				x0, y0, x1, y1 = o.Box.X, o.Box.Y, o.Box.X+o.Box.W, o.Box.Y+o.Box.H
			}
			x0, y0 = min(x0, o.Box.X), min(y0, o.Box.Y)
			x1, y1 = max(x1, o.Box.X+o.Box.W), max(y1, o.Box.Y+o.Box.H)
		}
		middles := map[string]render.Box{}
		for _, c := range g.Connections {
			p := middle(c.Points)
			middles[c.ID] = render.Box{X: int(p[0]) - cell/2, Y: int(p[1]) - cell/2, W: cell, H: cell}
		}
		end := func(id string) (render.Box, bool, bool) {
			if b, ok := boxes[id]; ok {
				return b, true, false
			}
			b, ok := middles[id]
			return b, ok, true
		}
		gr := newGrid(x0-4*cell, y0-4*cell, x1+4*cell, y1+4*cell)
		for _, o := range g.Objects {
			gr.cover(o.Box, 1)
		}
		for _, c := range g.Connections {
			s, sok, sc := end(c.Source)
			t, tok, tc := end(c.Target)
			if !sok || !tok || (sc || tc) != onConns || len(g.Crossed(c)) == 0 {
				continue
			}
			spared := g.Spared(c)
			for id := range spared {
				gr.cover(boxes[id], -1)
			}
			path := gr.path(s, t)
			for id := range spared {
				gr.cover(boxes[id], 1)
			}
			if path == nil {
				continue
			}
			if err := m.SetBendpoints(c.ID, bendpoints(path, s, t)); err != nil {
				return changed, err
			}
			changed = append(changed, c.ID)
		}
	}
	return changed, nil
}

// middle is the point halfway along a line, where a connection ending on it meets it.
func middle(p [][2]float64) [2]float64 {
	total := 0.0
	for i := 1; i < len(p); i++ {
		total += math.Hypot(p[i][0]-p[i-1][0], p[i][1]-p[i-1][1])
	}
	want := total / 2
	for i := 1; i < len(p); i++ {
		l := math.Hypot(p[i][0]-p[i-1][0], p[i][1]-p[i-1][1])
		if want <= l && l > 0 {
			f := want / l
			return [2]float64{p[i-1][0] + (p[i][0]-p[i-1][0])*f, p[i-1][1] + (p[i][1]-p[i-1][1])*f}
		}
		want -= l
	}
	return p[len(p)-1]
}

// bendpoints are a path's corners as Archi's bendpoints of a connection from s to t.
func bendpoints(path [][2]int, s, t render.Box) []archixml.Bendpoint {
	sx, sy := s.X+s.W/2, s.Y+s.H/2
	tx, ty := t.X+t.W/2, t.Y+t.H/2
	var out []archixml.Bendpoint
	for _, p := range path {
		out = append(out, archixml.Bendpoint{StartX: p[0] - sx, StartY: p[1] - sy, EndX: p[0] - tx, EndY: p[1] - ty})
	}
	return out
}

// grid counts, for each cell, the boxes whose inside it meets.
type grid struct {
	x0, y0, w, h int
	n            []int16
	// the search's costs and ways back by cell and direction, kept from one search to the next
	dist, from []int32
	seen       []int
}

func newGrid(x0, y0, x1, y1 int) *grid {
	w, h := (x1-x0)/cell+1, (y1-y0)/cell+1
	return &grid{x0: x0, y0: y0, w: w, h: h, n: make([]int16, w*h)}
}

// span is the cells whose inside meets the inside of b (its border one pixel in).
func (g *grid) span(b render.Box) (c0, r0, c1, r1 int) {
	c0, r0 = (b.X+1-g.x0)/cell, (b.Y+1-g.y0)/cell
	c1, r1 = (b.X+b.W-2-g.x0)/cell, (b.Y+b.H-2-g.y0)/cell
	return max(c0, 0), max(r0, 0), min(c1, g.w-1), min(r1, g.h-1)
}

func (g *grid) cover(b render.Box, k int16) {
	if b.W <= 2 || b.H <= 2 {
		return
	}
	c0, r0, c1, r1 := g.span(b)
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			g.n[r*g.w+c] += k
		}
	}
}

func (g *grid) centre(i int) [2]int {
	return [2]int{g.x0 + (i%g.w)*cell + cell/2, g.y0 + (i/g.w)*cell + cell/2}
}

// inside says whether a cell's centre is inside b.
func (g *grid) inside(i int, b render.Box) bool {
	p := g.centre(i)
	return p[0] > b.X && p[0] < b.X+b.W && p[1] > b.Y && p[1] < b.Y+b.H
}

// touches says whether a cell's centre is inside b or on its border: a bendpoint there would
// not be outside the end it leads to.
func (g *grid) touches(i int, b render.Box) bool {
	p := g.centre(i)
	return p[0] >= b.X && p[0] <= b.X+b.W && p[1] >= b.Y && p[1] <= b.Y+b.H
}

// path is the cheapest path of free cells from s to t (four ways, bends costing more), as the
// corners of the part outside both: the first cell out of s, each turn, the last cell before t.
// nil when there is none.
func (g *grid) path(s, t render.Box) [][2]int {
	const dirs = 4
	if g.dist == nil {
		g.dist, g.from = make([]int32, g.w*g.h*dirs), make([]int32, g.w*g.h*dirs)
		for i := range g.dist {
			g.dist[i] = math.MaxInt32
		}
	}
	dist, from := g.dist, g.from
	defer func() {
		// only what this search reached is set again, for the next one
		for _, k := range g.seen {
			dist[k] = math.MaxInt32
		}
		g.seen = g.seen[:0]
	}()
	q := &queue{}
	c0, r0, c1, r1 := g.span(s)
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			i := r*g.w + c
			if g.n[i] == 0 && g.inside(i, s) {
				for d := 0; d < dirs; d++ {
					dist[i*dirs+d], from[i*dirs+d] = 0, -1
					g.seen = append(g.seen, i*dirs+d)
					heap.Push(q, item{i*dirs + d, 0, g.toward(i, t)})
				}
			}
		}
	}
	step := [dirs][2]int{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}
	goal := -1
	for q.Len() > 0 {
		it := heap.Pop(q).(item)
		if it.d > dist[it.s] {
			continue
		}
		i, d := it.s/dirs, it.s%dirs
		if g.inside(i, t) {
			goal = it.s
			break
		}
		c, r := i%g.w, i/g.w
		for nd := 0; nd < dirs; nd++ {
			nc, nr := c+step[nd][0], r+step[nd][1]
			if nc < 0 || nr < 0 || nc >= g.w || nr >= g.h {
				continue
			}
			j := nr*g.w + nc
			if g.n[j] != 0 {
				continue
			}
			cost := it.d + 1
			if nd != d {
				cost += turnCost
			}
			if k := j*dirs + nd; cost < dist[k] {
				dist[k], from[k] = cost, int32(it.s)
				g.seen = append(g.seen, k)
				heap.Push(q, item{k, cost, cost + g.toward(j, t)})
			}
		}
	}
	if goal < 0 {
		return nil
	}
	var cells []int // from t back to s
	for k := goal; k >= 0; k = int(from[k]) {
		if i := k / dirs; len(cells) == 0 || cells[len(cells)-1] != i {
			cells = append(cells, i)
		}
	}
	// the cells outside both ends, from s to t
	var out []int
	for n := len(cells) - 1; n >= 0; n-- {
		if i := cells[n]; !g.touches(i, s) && !g.touches(i, t) {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		return nil
	}
	var pts [][2]int
	for n, i := range out {
		if n > 0 && n < len(out)-1 {
			a, b := g.centre(out[n-1]), g.centre(out[n+1])
			p := g.centre(i)
			if (a[0] == p[0] && p[0] == b[0]) || (a[1] == p[1] && p[1] == b[1]) {
				continue // not a corner
			}
		}
		pts = append(pts, g.centre(i))
	}
	return pts
}

// item is a state of the search (a cell and the way it was entered), its cost so far and that
// cost plus the least it can still cost (A*).
type item struct {
	s    int
	d, f int32
}

// toward is the least number of steps from a cell to the box: the search's estimate, never
// more than the truth, so that the path found is the cheapest.
func (g *grid) toward(i int, b render.Box) int32 {
	c, r := i%g.w, i/g.w
	c0, r0, c1, r1 := g.span(b)
	dx, dy := max(c0-c, 0, c-c1), max(r0-r, 0, r-r1)
	return int32(dx + dy)
}

type queue []item

func (q queue) Len() int           { return len(q) }
func (q queue) Less(i, j int) bool { return q[i].d < q[j].d }
func (q queue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)        { *q = append(*q, x.(item)) }
func (q *queue) Pop() any          { o := *q; x := o[len(o)-1]; *q = o[:len(o)-1]; return x }

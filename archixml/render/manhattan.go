package render

import "math"

// lanes are the rows and columns the middle segments of a Manhattan view's connections already
// run along: draw2d's ManhattanConnectionRouter keeps them for the whole view, so that a later
// connection whose middle segment would fall on a used one moves 2 px at a time to a free one.
type lanes struct{ rows, cols map[int]bool }

func newLanes() *lanes { return &lanes{rows: map[int]bool{}, cols: map[int]bool{}} }

// vec is a direction or a position in draw2d's Vector arithmetic (doubles).
type vec struct{ x, y float64 }

func (a vec) dot(b vec) float64 { return a.x*b.x + a.y*b.y }

// level is where the line from p one step of 10 px along the normal n lies on n's axis, as
// draw2d takes it (the absolute value of the dot product).
func level(n, p vec) float64 { return math.Abs(n.dot(vec{p.x + 10*n.x, p.y + 10*n.y})) }

// side is the side of the box r nearest to p, as the direction leaving it: left, up, down or
// right, in that order of preference when two are as near (draw2d's getDirection; right only
// when strictly nearer).
func side(r rect, p pt) vec {
	d, dir := math.Abs(float64(r.x)-p.x), vec{-1, 0}
	if v := math.Abs(float64(r.y) - p.y); v <= d {
		d, dir = v, vec{0, -1}
	}
	if v := math.Abs(float64(r.y+r.h) - p.y); v <= d {
		d, dir = v, vec{0, 1}
	}
	if v := math.Abs(float64(r.x+r.w) - p.x); v < d {
		dir = vec{1, 0}
	}
	return dir
}

// route is the orthogonal line from start (on the box sbox) to end (on ebox) as draw2d's
// Manhattan router draws it: it leaves each box perpendicular to the side its end lies on, turns
// halfway between the ends, or 10 px out of a box when the other end lies behind it, and moves
// its middle segments off the rows and columns earlier connections use. The bendpoints of the
// model play no part, as in Archi. With reserve false (a connection Archi does not draw) the
// lanes are left as they were.
func (l *lanes) route(start, end pt, sbox, ebox rect, reserve bool) []pt {
	s, e := vec(start), vec(end)
	avg := vec{(s.x + e.x) / 2, (s.y + e.y) / 2}
	dir := vec{e.x - s.x, e.y - s.y}
	sn, en := side(sbox, start), side(ebox, end)
	horizontal := sn.x != 0
	across := func() float64 { // the middle, on the axis of the segment to come
		if horizontal {
			return avg.y
		}
		return avg.x
	}
	var at []float64 // the coordinate of each segment, on the axis across it
	add := func(v float64) { at, horizontal = append(at, v), !horizontal }
	if horizontal {
		add(s.y)
	} else {
		add(s.x)
	}
	switch {
	case sn.dot(en) == 0: // perpendicular sides
		if sn.dot(dir) < 0 || en.dot(dir) > 0 {
			if sn.dot(dir) < 0 {
				add(level(sn, s))
			} else {
				add(across())
			}
			if en.dot(dir) > 0 {
				add(level(en, e))
			} else {
				add(across())
			}
		}
	case sn.dot(en) > 0: // the same side
		if sn.dot(dir) >= 0 {
			add(level(sn, s))
		} else {
			add(level(en, e))
		}
	default: // facing sides
		back := sn.dot(dir) < 0
		if back {
			add(level(sn, s))
		}
		add(across())
		if back {
			add(level(en, e))
		}
	}
	if horizontal {
		at = append(at, e.y)
	} else {
		at = append(at, e.x)
	}
	return l.place(s, e, at, sn.x != 0, reserve)
}

// place turns the segments' coordinates into points (draw2d's processPositions): every segment
// but the first and last is moved to a free row or column near it, between its neighbours.
func (l *lanes) place(s, e vec, at []float64, horizontal, reserve bool) []pt {
	pos := make([]int, len(at)+2)
	if horizontal {
		pos[0] = int(s.x)
	} else {
		pos[0] = int(s.y)
	}
	for i, v := range at {
		pos[i+1] = int(v)
	}
	if horizontal == (len(at)%2 == 1) {
		pos[len(pos)-1] = int(e.x)
	} else {
		pos[len(pos)-1] = int(e.y)
	}
	out := []pt{{float64(int(s.x)), float64(int(s.y))}}
	for i := 2; i < len(pos)-1; i++ {
		horizontal = !horizontal
		prev, cur := pos[i-1], pos[i]
		used := l.cols
		if horizontal {
			used = l.rows
		}
		if i != len(pos)-2 {
			cur = freeLane(used, cur, pos[i-2], pos[i+2], reserve)
			pos[i] = cur
		}
		if horizontal {
			out = append(out, pt{float64(prev), float64(cur)})
		} else {
			out = append(out, pt{float64(cur), float64(prev)})
		}
	}
	return append(out, pt{float64(int(e.x)), float64(int(e.y))})
}

// freeLane is the free lane nearest to r, tried at r (made even), r+2, r-2, r+4, ... while it lies
// between the neighbouring segments n and x (or as far beyond r on the other side, when r is not
// between them); reaching one of them it gives up 2 px inside it, used or not (draw2d's
// getRowNear and getColumnNear, the same for both).
func freeLane(used map[int]bool, r, n, x int, reserve bool) int {
	lo, hi := min(n, x), max(n, x)
	if lo > r {
		lo, hi = r-(lo-r), lo
	}
	if hi < r {
		lo, hi = hi, r+(r-hi)
	}
	if r%2 == 1 {
		r--
	}
	for prox, dir := 0, -1; prox < r; {
		i := r + prox*dir
		if !used[i] {
			if reserve {
				used[i] = true
			}
			return i
		}
		if i <= lo {
			return i + 2
		}
		if i >= hi {
			return i - 2
		}
		if dir == 1 {
			dir = -1
		} else {
			dir, prox = 1, prox+2
		}
	}
	return r
}

package render

import (
	"math"
	"sort"
)

// Prefs are Archi's preferences for how connection lines are drawn (Preferences > Connections),
// both off by default as in Archi. They change the line only: its ends, decorations and label
// stay where the route puts them.
type Prefs struct {
	// LineJumps draws a half circle of 5 px where a line crosses another that lies at a lower
	// angle, so that at each crossing one of the two jumps the other.
	LineJumps bool
	// Curves rounds each bend of a line with an arc of up to 14 px.
	Curves bool
}

// Archi's RoundedPolylineConnection constants.
const (
	curveRadius = 14.0 // the largest radius of a rounded bend
	jumpRadius  = 5.0  // a line jump's radius; no jump nearer an end of either segment
	arcSteps    = 6.0  // the straight pieces an arc is drawn with
)

type ipt struct{ x, y int }

// jround is Java's Math.round on a double cast to int: halves up, NaN 0.
func jround(v float64) int {
	if math.IsNaN(v) {
		return 0
	}
	return int(math.Floor(v + 0.5))
}

// polar is Archi's PolarPoint of p around pole: the distance and the angle, counter-clockwise
// on the screen (y down) from the x axis, in [0, 2pi); NaN for p on the pole, as in Java.
func polar(pole, p ipt) (r, theta float64) {
	x, y := float64(p.x-pole.x), float64(p.y-pole.y)
	r = math.Sqrt(x*x + y*y)
	theta = math.Acos(x / r)
	if y > 0 {
		theta = 2*math.Pi - theta
	}
	return r, theta
}

// fromPolar is the point at distance r and angle theta from pole, in whole pixels.
func fromPolar(pole ipt, r, theta float64) ipt {
	return ipt{pole.x + jround(r*math.Cos(theta)), pole.y + jround(-r*math.Sin(theta))}
}

// archiLine is the line Archi draws for a connection whose route is pts, with the preferences
// set, as its RoundedPolylineConnection.outlineShape draws it: each bend rounded by an arc (in
// six pieces) when curves are on, a half circle over each crossing when line jumps are on.
// others are the routes of the view's other drawn connections.
func archiLine(pts []pt, others [][]pt, p Prefs) []pt {
	if len(pts) < 2 {
		return pts
	}
	whole := func(l []pt) []ipt {
		out := make([]ipt, len(l))
		for i, q := range l {
			out[i] = ipt{jround(q.x), jround(q.y)}
		}
		return out
	}
	points := whole(pts)
	var rest [][]ipt
	if p.LineJumps {
		for _, o := range others {
			rest = append(rest, whole(o))
		}
	}
	var line []ipt
	prev := points[0]
	for i := 1; i < len(points); i++ {
		bp := points[i]
		if i == len(points)-1 || !p.Curves {
			line = jumped(line, prev, bp, rest)
			prev = bp
			continue
		}
		next := points[i+1]
		pr, prt := polar(bp, prev)
		nr, nt := polar(bp, next)
		arc := math.Mod(nt-prt+2*math.Pi, 2*math.Pi)
		forward := arc < math.Pi // the arc runs from prev's side to next's
		if !forward {
			arc = 2*math.Pi - arc
		}
		radius := math.Min(curveRadius, math.Min(pr/2, nr/2))
		from := nt
		if forward {
			from = prt
		}
		ct := from + arc/2
		centre := fromPolar(bp, radius, ct)
		ar := radius * math.Sin(arc/2)
		start := (math.Pi+arc)/2 + ct
		full := math.Pi - arc
		in, out := fromPolar(centre, ar, start), fromPolar(centre, ar, start+full)
		if forward {
			in, out = out, in
		}
		line = jumped(line, prev, in, rest)
		for a := 1.0; a < arcSteps; a++ {
			f := a / arcSteps
			if forward {
				f = 1 - f
			}
			line = append(line, fromPolar(centre, ar, start+full*f))
		}
		prev = out
	}
	// Archi adds each segment's ends, so a bend's point twice: drawn once here
	var out []pt
	for i, q := range line {
		if i == 0 || q != line[i-1] {
			out = append(out, pt{float64(q.x), float64(q.y)})
		}
	}
	return out
}

// jumped adds the segment from start to end to line: start, a half circle over each crossing
// with a segment of others that lies at a lower angle (Archi's addSegment), then end.
func jumped(line []ipt, start, end ipt, others [][]ipt) []ipt {
	line = append(line, start)
	if len(others) == 0 {
		return append(line, end)
	}
	_, et := polar(start, end)
	angle := math.Mod(et, math.Pi)
	reverse := et != angle
	var cross []ipt
	far := func(a, b ipt) bool { r, _ := polar(a, b); return r > jumpRadius }
	for _, o := range others {
		for j := 0; j+1 < len(o); j++ {
			bp, next := o[j], o[j+1]
			c, ok := intersect(start, end, bp, next)
			if !ok || !far(c, start) || !far(c, end) || !far(c, bp) || !far(c, next) {
				continue
			}
			_, ot := polar(bp, next)
			if angle > math.Mod(ot, math.Pi) && !contains(cross, c) {
				cross = append(cross, c)
			}
		}
	}
	if len(cross) == 0 {
		return append(line, end)
	}
	// from start to end: sorted along the axis on which they differ most, start at one end
	all := append([]ipt{start}, cross...)
	sort.SliceStable(all, func(i, j int) bool {
		dx, dy := all[i].x-all[j].x, all[i].y-all[j].y
		if abs(dx) > abs(dy) {
			return dx < 0
		}
		return dy < 0
	})
	if all[0] != start {
		for i, j := 0, len(all)-1; i < j; i, j = i+1, j-1 {
			all[i], all[j] = all[j], all[i]
		}
	}
	for _, c := range all[1:] {
		for a := 0.0; a <= arcSteps; a++ {
			if reverse {
				line = append(line, fromPolar(c, jumpRadius, angle-a*math.Pi/arcSteps))
			} else {
				line = append(line, fromPolar(c, jumpRadius, angle-math.Pi+a*math.Pi/arcSteps))
			}
		}
	}
	return append(line, end)
}

func contains(l []ipt, p ipt) bool {
	for _, q := range l {
		if q == p {
			return true
		}
	}
	return false
}

// intersect is where the segments p1-p2 and p3-p4 cross, in whole pixels (truncated), when they
// do at a point that is none of their ends and lies in both segments' boxes (Archi's
// lineIntersect).
func intersect(p1, p2, p3, p4 ipt) (ipt, bool) {
	denom := float64((p4.y-p3.y)*(p2.x-p1.x) - (p4.x-p3.x)*(p2.y-p1.y))
	if denom == 0 {
		return ipt{}, false
	}
	ua := float64((p4.x-p3.x)*(p1.y-p3.y)-(p4.y-p3.y)*(p1.x-p3.x)) / denom
	ub := float64((p2.x-p1.x)*(p1.y-p3.y)-(p2.y-p1.y)*(p1.x-p3.x)) / denom
	if ua < 0 || ua > 1 || ub < 0 || ub > 1 {
		return ipt{}, false
	}
	c := ipt{int(float64(p1.x) + ua*float64(p2.x-p1.x)), int(float64(p1.y) + ua*float64(p2.y-p1.y))}
	in := func(a, b ipt) bool {
		return c.x >= min(a.x, b.x) && c.x <= max(a.x, b.x) && c.y >= min(a.y, b.y) && c.y <= max(a.y, b.y)
	}
	if !in(p1, p2) || !in(p3, p4) || c == p1 || c == p2 || c == p3 || c == p4 {
		return ipt{}, false
	}
	return c, true
}

package render

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// prefsXML is a view with two straight lines crossing, A to B across at y 27 and C to D down at
// x 210, meeting at 210,27; and E to F with one bendpoint, a right-angle bend at 60,527 (below
// E's middle, level with F's).
func prefsXML() string {
	conn := func(id, src, tgt, rel, inner string) string {
		return fmt.Sprintf(`        <sourceConnection xsi:type="archimate:Connection" id="%s" source="%s" target="%s" archimateRelationship="%s">%s</sourceConnection>`+"\n", id, src, tgt, rel, inner)
	}
	rel, box := relXML, boxXML
	return appModelXML("prefs", []string{"a", "b", "c", "d", "e", "f"},
		rel("r1", "ServingRelationship", "a", "b")+rel("r2", "FlowRelationship", "c", "d")+rel("r3", "TriggeringRelationship", "e", "f"), "",
		box("oa", "a", 0, 0, conn("c1", "oa", "ob", "r1", ""))+
			box("ob", "b", 300, 0, "")+
			box("oc", "c", 150, -100, conn("c2", "oc", "od", "r2", ""))+
			box("od", "d", 150, 100, "")+
			box("oe", "e", 0, 300, conn("c3", "oe", "of", "r3", `<bendpoint startY="200" endX="-300"/>`))+
			box("of", "f", 300, 500, ""))
}

func drawPrefs(t *testing.T, p Prefs) (map[string][]pt, []byte) {
	t.Helper()
	m, err := archixml.Load([]byte(prefsXML()))
	if err != nil {
		t.Fatal(err)
	}
	svg, err := ViewWith(m, "v", Options{Prefs: p})
	if err != nil {
		t.Fatal(err)
	}
	return drawnLines(t, svg), svg
}

// TestViewWith_PrefsOffIsTheDefault: with no preference set the picture is View's, byte for byte,
// and its lines are the routes: straight, and through the bendpoint.
func TestViewWith_PrefsOffIsTheDefault(t *testing.T) {
	m, err := archixml.Load([]byte(prefsXML()))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := View(m, "v")
	if err != nil {
		t.Fatal(err)
	}
	lines, withZero := drawPrefs(t, Prefs{})
	if !bytes.Equal(plain, withZero) {
		t.Error("ViewWith with no preferences draws other bytes than View")
	}
	want := map[string]string{"c1": "[{120 27} {300 27}]", "c2": "[{210 -45} {210 100}]", "c3": "[{60 355} {60 527} {300 527}]"}
	for id, w := range want {
		if fmt.Sprint(lines[id]) != w {
			t.Errorf("%s drawn through %v, want %s", id, lines[id], w)
		}
	}
}

// distToLine is the distance from p to the polyline l.
func distToLine(p pt, l []pt) float64 {
	best := math.Inf(1)
	for i := 1; i < len(l); i++ {
		a, b := l[i-1], l[i]
		dx, dy := b.x-a.x, b.y-a.y
		t := 0.0
		if n := dx*dx + dy*dy; n > 0 {
			t = math.Max(0, math.Min(1, ((p.x-a.x)*dx+(p.y-a.y)*dy)/n))
		}
		best = math.Min(best, dist(p, pt{a.x + t*dx, a.y + t*dy}))
	}
	return best
}

// TestViewWith_LineJumps: where two straight lines cross, the one at the greater angle (the
// vertical, pi/2 against 0) jumps the other with a half circle of 5 px around the crossing, as
// Archi's RoundedPolylineConnection draws it; the other goes straight through; the ends stay.
func TestViewWith_LineJumps(t *testing.T) {
	lines, _ := drawPrefs(t, Prefs{LineJumps: true})
	cross := pt{210, 27}
	if l := lines["c1"]; fmt.Sprint(l) != "[{120 27} {300 27}]" {
		t.Errorf("the line at the lower angle is drawn through %v, want straight through the crossing", l)
	}
	v := lines["c2"]
	if len(v) < 4 || v[0] != (pt{210, -45}) || v[len(v)-1] != (pt{210, 100}) {
		t.Fatalf("the jumping line %v does not keep its ends 210,-45 and 210,100", v)
	}
	if d := distToLine(cross, v); d < 4 {
		t.Errorf("the jumping line passes %.1f px from the crossing, want a jump of 5 px over it", d)
	}
	off := 0 // points off the straight line: the jump's, each 5 px from the crossing
	for _, p := range v {
		if p.x == 210 && math.Abs(p.y-cross.y) >= 5 {
			continue
		}
		off++
		if r := dist(p, cross); math.Abs(r-5) > 0.75 {
			t.Errorf("jump point %v is %.2f px from the crossing, want 5", p, r)
		}
	}
	if off < 5 {
		t.Errorf("the jump has %d points off the line, want a half circle: %v", off, v)
	}
	if l := lines["c3"]; fmt.Sprint(l) != "[{60 355} {60 527} {300 527}]" {
		t.Errorf("a line crossing nothing is drawn through %v, want its route", l)
	}
}

// TestViewWith_Curves: a bend is rounded as Archi rounds it: an arc tangent to both legs on the
// circle whose centre lies min(14, half the shorter leg) px from the bendpoint along the bend's
// bisector, of radius that times sin(half the angle between the legs); straight legs to the arc,
// the ends kept. For the right angle at 60,527: the centre 70,517, the radius 9.9, the arc
// from 60,517 to 70,527, passing 4.1 px from the bendpoint.
func TestViewWith_Curves(t *testing.T) {
	lines, _ := drawPrefs(t, Prefs{Curves: true})
	l := lines["c3"]
	bp := pt{60, 527}
	if len(l) < 4 || l[0] != (pt{60, 355}) || l[len(l)-1] != (pt{300, 527}) {
		t.Fatalf("the curved line %v does not keep its ends", l)
	}
	centre := pt{bp.x + 14*math.Cos(math.Pi/4), bp.y - 14*math.Sin(math.Pi/4)}
	r := 14 * math.Sin(math.Pi/4)
	onArc := 0
	for _, p := range l {
		onLeg := p.x == 60 && p.y <= 527-r+1 || p.y == 527 && p.x >= 60+r-1
		if onLeg {
			continue
		}
		onArc++
		if d := dist(p, centre); math.Abs(d-r) > 1 {
			t.Errorf("curve point %v is %.2f px from the arc's centre, want %.2f", p, d, r)
		}
	}
	if onArc < 5 {
		t.Errorf("%d points on the arc, want the arc drawn in pieces: %v", onArc, l)
	}
	if d := distToLine(bp, l); math.Abs(d-(14-r)) > 1 {
		t.Errorf("the curve passes %.1f px from the bendpoint, want %.1f", d, 14-r)
	}
	for _, id := range []string{"c1", "c2"} {
		if len(lines[id]) != 2 {
			t.Errorf("a straight line %s is drawn through %v with curves on, want its two ends", id, lines[id])
		}
	}
}

// screenAngle is a segment's direction as Archi measures it for line jumps: counter-clockwise
// on the screen (y down), folded into [0, pi).
func screenAngle(a, b pt) float64 {
	return math.Mod(math.Atan2(-(b.y-a.y), b.x-a.x)+2*math.Pi, math.Pi)
}

// TestViewWith_CorpusLineJumps: on every corpus view, with line jumps on, wherever a straight
// connection crosses another drawn line more than 6 px from every end of the two segments, the
// one at the greater angle is drawn clear of the crossing (2 px at least: Archi centres its 5 px
// jump on the crossing truncated to whole pixels), unless another crossing on it lies within two
// jumps' width (10 px), where Archi's jumps overlap and the line runs back between them; a
// straight line crossing nothing keeps its route.
func TestViewWith_CorpusLineJumps(t *testing.T) {
	crossings, jumped := 0, 0
	eachCorpusView(t, func(file string, m *archixml.Model, v archixml.Object) {
		d := layoutOf(t, m, v.ID())
		d.prefs = Prefs{LineJumps: true}
		var all []*conn
		for _, c := range d.conns {
			if len(c.pts) > 1 && !d.hiddenConn(c) {
				all = append(all, c)
			}
		}
		w := func(q pt) pt { return pt{math.Round(q.x), math.Round(q.y)} }
		type crossing struct {
			at    pt
			other string
		}
		over := map[*conn][]crossing{} // by the line that jumps: where, and what
		for _, a := range all {
			if len(a.pts) != 2 {
				continue
			}
			p0, p1 := w(a.pts[0]), w(a.pts[1])
			for _, b := range all {
				for k := 1; b != a && k < len(b.pts); k++ {
					q0, q1 := w(b.pts[k-1]), w(b.pts[k])
					x, ok := crossAt(p0, p1, q0, q1)
					if !ok || dist(x, p0) <= 6 || dist(x, p1) <= 6 || dist(x, q0) <= 6 || dist(x, q1) <= 6 {
						continue
					}
					pa, qa := screenAngle(p0, p1), screenAngle(q0, q1)
					switch {
					case math.Abs(pa-qa) < 0.01:
						// nearly parallel: which one jumps is down to rounding
					case pa > qa:
						over[a] = append(over[a], crossing{x, b.id})
					case len(b.pts) > 2: // (a straight b is counted from its side)
						over[b] = append(over[b], crossing{x, a.id})
					}
				}
			}
		}
		for _, c := range all {
			line := d.line(c)
			if len(c.pts) == 2 && len(over[c]) == 0 && len(line) != 2 {
				t.Errorf("%s: view %q: %s jumps nothing but is drawn through %v", file, v.Name(), c.id, line)
			}
		next:
			for i, x := range over[c] {
				crossings++
				for j, y := range over[c] {
					if i != j && dist(x.at, y.at) < 10 {
						continue next
					}
				}
				jumped++
				if dd := distToLine(x.at, line); dd < 2 {
					t.Errorf("%s: view %q: %s crosses %s at %v and passes %.1f px from it, want a jump", file, v.Name(), c.id, x.other, x.at, dd)
				}
			}
		}
	})
	if jumped == 0 {
		t.Fatal("no line crosses a straight connection in the corpus: the test proves nothing")
	}
	t.Logf("%d crossings of a straight connection and another line; %d of them apart from others, each jumped by the line at the greater angle", crossings, jumped)
}

// crossAt is where the segments p1-p2 and q1-q2 cross, if they do.
func crossAt(p1, p2, q1, q2 pt) (pt, bool) {
	den := (q2.y-q1.y)*(p2.x-p1.x) - (q2.x-q1.x)*(p2.y-p1.y)
	if den == 0 {
		return pt{}, false
	}
	ua := ((q2.x-q1.x)*(p1.y-q1.y) - (q2.y-q1.y)*(p1.x-q1.x)) / den
	ub := ((p2.x-p1.x)*(p1.y-q1.y) - (p2.y-p1.y)*(p1.x-q1.x)) / den
	if ua < 0 || ua > 1 || ub < 0 || ub > 1 {
		return pt{}, false
	}
	return pt{p1.x + ua*(p2.x-p1.x), p1.y + ua*(p2.y-p1.y)}, true
}

// TestViewWith_CorpusCurves: on every corpus view, with curves on, every line keeps its ends,
// stays within 14 px (the largest radius) of its route, and rounds each bend whose legs are 28
// px or longer and meet at 30 to 120 degrees: it passes the bendpoint at 14 (1 - sin(a/2)) px
// (a the angle between the legs), 1.8 px at least, not through it.
func TestViewWith_CorpusCurves(t *testing.T) {
	bends := 0
	eachCorpusView(t, func(file string, m *archixml.Model, v archixml.Object) {
		d := layoutOf(t, m, v.ID())
		d.prefs = Prefs{Curves: true}
		for _, c := range d.conns {
			if len(c.pts) < 3 || d.hiddenConn(c) {
				continue
			}
			route := make([]pt, len(c.pts))
			for i, q := range c.pts {
				route[i] = pt{math.Round(q.x), math.Round(q.y)}
			}
			line := d.line(c)
			if line[0] != route[0] || line[len(line)-1] != route[len(route)-1] {
				t.Errorf("%s: view %q: %s curved from %v to %v, its route from %v to %v", file, v.Name(), c.id, line[0], line[len(line)-1], route[0], route[len(route)-1])
			}
			for _, p := range line {
				if dd := distToLine(p, route); dd > 14 {
					t.Errorf("%s: view %q: %s curved through %v, %.1f px off its route", file, v.Name(), c.id, p, dd)
				}
			}
			for i := 1; i+1 < len(route); i++ {
				a, b, n := route[i-1], route[i], route[i+1]
				if dist(a, b) < 28 || dist(b, n) < 28 {
					continue
				}
				ang := math.Abs(math.Atan2(a.y-b.y, a.x-b.x) - math.Atan2(n.y-b.y, n.x-b.x))
				if ang > math.Pi {
					ang = 2*math.Pi - ang
				}
				if ang > 2*math.Pi/3 || ang < math.Pi/6 {
					continue // nearly straight on, or folded back on itself
				}
				bends++
				want := 14 * (1 - math.Sin(ang/2))
				if dd := distToLine(b, line); math.Abs(dd-want) > 1.5 {
					t.Errorf("%s: view %q: %s passes its bend at %v %.1f px off, want %.1f", file, v.Name(), c.id, b, dd, want)
				}
			}
		}
	})
	if bends == 0 {
		t.Fatal("no bend to round in the corpus: the test proves nothing")
	}
	t.Logf("%d bends rounded as Archi rounds them", bends)
}

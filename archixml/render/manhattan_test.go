package render

import (
	"fmt"
	"math"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// manhattanXML is a view routed with right angles: A above-left of B with two connections from A
// to B (the second with a bendpoint, which the router ignores), C beside D, E above F.
func manhattanXML() string {
	conn := func(id, src, tgt, rel, inner string) string {
		return fmt.Sprintf(`        <sourceConnection xsi:type="archimate:Connection" id="%s" source="%s" target="%s" archimateRelationship="%s">%s</sourceConnection>`+"\n", id, src, tgt, rel, inner)
	}
	rel, box := relXML, boxXML
	return appModelXML("manhattan", []string{"a", "b", "c", "d", "e", "f"},
		rel("r1", "ServingRelationship", "a", "b")+rel("r2", "FlowRelationship", "a", "b")+
			rel("r3", "FlowRelationship", "c", "d")+rel("r4", "TriggeringRelationship", "e", "f"), ` connectionRouterType="2"`,
		box("oa", "a", 0, 0, conn("c1", "oa", "ob", "r1", "")+conn("c2", "oa", "ob", "r2", `<bendpoint startX="200" startY="-40" endX="-100" endY="-240"/>`))+
			box("ob", "b", 300, 200, "")+
			box("oc", "c", 0, 400, conn("c3", "oc", "od", "r3", ""))+
			box("od", "d", 300, 400, "")+
			box("oe", "e", 600, 0, conn("c4", "oe", "of", "r4", ""))+
			box("of", "f", 640, 200, ""))
}

// TestView_ManhattanProbe: a view whose router is Manhattan is drawn as draw2d's
// ManhattanConnectionRouter routes it (worked by hand below), every segment horizontal or
// vertical, the model's bendpoints unused, the second of two lines that would run along one row
// moved to a free one.
func TestView_ManhattanProbe(t *testing.T) {
	m, err := archixml.Load([]byte(manhattanXML()))
	if err != nil {
		t.Fatal(err)
	}
	svg := checkView(t, m, m.Views()[0])
	lines := drawnLines(t, svg)
	// Worked by hand from draw2d: A 0,0 and B 300,200 overlap in neither, so the orthogonal
	// anchor joins the corners 120,55 and 300,200; the start is nearest A's bottom (down), the
	// end B's top (up): facing sides, the target ahead, so one turn row halfway, 127.5, taken
	// as 127 and made even: 126. The second connection finds row 126 used and takes 128.
	// C 0,400 beside D 300,400: a straight line at y 427, its column (210) of no length.
	// E 600,0 above F 640,200: a straight line down the middle of the overlap, x 680, its row
	// (127.5, so 126) of no length but taken all the same: rows are the view's, wherever along
	// them a line runs, so after 126 and 128 it gets 124.
	want := map[string][]pt{
		"c1": {{120, 55}, {120, 126}, {300, 126}, {300, 200}},
		"c2": {{120, 55}, {120, 128}, {300, 128}, {300, 200}},
		"c3": {{120, 427}, {210, 427}, {210, 427}, {300, 427}},
		"c4": {{680, 55}, {680, 124}, {680, 124}, {680, 200}},
	}
	for id, w := range want {
		if got := lines[id]; fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("%s drawn through %v, want %v", id, got, w)
		}
	}
	for id, l := range lines {
		if s := slanted(l); s > 0 {
			t.Errorf("%s: %d segments neither horizontal nor vertical: %v", id, s, l)
		}
	}
	if p := middlesShared(lines); len(p) > 0 {
		t.Errorf("middle segments drawn on one another: %v", p)
	}
}

// slanted counts the segments of a line that are neither horizontal nor vertical.
func slanted(l []pt) int {
	n := 0
	for i := 1; i < len(l); i++ {
		if math.Abs(l[i].x-l[i-1].x) > 0.01 && math.Abs(l[i].y-l[i-1].y) > 0.01 {
			n++
		}
	}
	return n
}

// middlesShared lists the pairs of connections whose middle segments (neither the first nor
// the last, the ones draw2d's Manhattan router moves to free rows and columns) run on one another.
func middlesShared(lines map[string][]pt) []string {
	mids := map[string][]pt{}
	for id, l := range lines {
		if len(l) > 3 {
			mids[id] = l[1 : len(l)-1]
		}
	}
	return onOneSegment(mids)
}

// TestView_CorpusManhattan: every view of every corpus model, its router set to Manhattan (in
// memory), is drawn with right angles only, no two middle segments on one another; its connections end where Archi's orthogonal anchor
// puts them (the router keeps the anchors: a straight line across the overlap of two boxes
// overlapping in x or y, corner to facing corner of two rectangles overlapping in neither); and
// each leaves a box perpendicular to the side its end lies on, out of the box, as draw2d's
// Manhattan router leaves it.
func TestView_CorpusManhattan(t *testing.T) {
	views, conns, bad, checked := 0, 0, 0, 0
	eachCorpusView(t, func(file string, m *archixml.Model, v archixml.Object) {
		if err := m.SetConnectionRouter(v.ID(), archixml.Routers["manhattan"]); err != nil {
			t.Fatal(err)
		}
		g, err := Measure(m, v.ID())
		if err != nil {
			t.Fatal(err)
		}
		if !g.Manhattan {
			t.Fatalf("%s: view %q measured as not Manhattan", file, v.Name())
		}
		views++
		lines := map[string][]pt{}
		defer func() {
			for _, p := range middlesShared(lines) {
				t.Errorf("%s: view %q: the middle segments of %s run on one another (draw2d moves them to free rows and columns)", file, v.Name(), p)
			}
		}()
		for _, c := range g.Connections {
			conns++
			var l []pt
			for _, p := range c.Points {
				l = append(l, pt{p[0], p[1]})
			}
			lines[c.ID] = l
			if s := slanted(l); s > 0 {
				bad++
				t.Errorf("%s: view %q: connection %s has %d segments neither horizontal nor vertical: %v", file, v.Name(), c.ID, s, l)
			}
			so, ok1 := m.Object(c.Source)
			to, ok2 := m.Object(c.Target)
			if !ok1 || !ok2 || c.Source == c.Target || so.Kind() != archixml.KindDiagramObject || to.Kind() != archixml.KindDiagramObject ||
				isJunction(m, c.Source) || isJunction(m, c.Target) {
				continue // an end on a connection, a junction's circle, a line from a box to itself
			}
			checked++
			a, b := boxOfObject(so), boxOfObject(to)
			ends := [2]pt{l[0], l[len(l)-1]}
			if wa, wb, along, ok := archiEnds(a, b); ok {
				if !onSide(ends[0], wa, along, so) || !onSide(ends[1], wb, along, to) {
					t.Errorf("%s: view %q: connection %s ends at %v, Archi's orthogonal anchor at %v and %v", file, v.Name(), c.ID, ends, wa, wb)
				}
			} else if wa, wb, ok := facingCorners(a, b); ok && rectangular(so) && rectangular(to) && (ends[0] != wa || ends[1] != wb) {
				t.Errorf("%s: view %q: connection %s ends at %v, Archi's orthogonal anchor at the corners %v and %v", file, v.Name(), c.ID, ends, wa, wb)
			}
			for _, end := range []struct {
				b       [4]int
				at, nxt pt
			}{{a, l[0], l[1]}, {b, l[len(l)-1], l[len(l)-2]}} {
				if msg := leaves(end.b, end.at, end.nxt); msg != "" {
					t.Errorf("%s: view %q: connection %s: %s (line %v)", file, v.Name(), c.ID, msg, l)
				}
			}
		}
	})
	t.Logf("%d views made Manhattan, %d connections drawn, %d with slanted segments; %d between two boxes checked", views, conns, bad, checked)
}

func isJunction(m *archixml.Model, id string) bool {
	o, ok := m.Object(id)
	if !ok {
		return false
	}
	c, ok := o.Concept()
	return ok && c.Class() == "Junction"
}

func boxOfObject(o archixml.Object) [4]int {
	x, y, w, h := absBounds(o)
	return [4]int{x, y, w, h}
}

// rectangular reports whether a diagram object's figure is a plain rectangle for Archi's
// orthogonal anchor: the box figure of an element that is not rounded, a group or a note.
func rectangular(o archixml.Object) bool {
	c, ok := o.Concept()
	if !ok {
		return true
	}
	return o.Attr("type") != "1" && boxShape(c.Class()) != "round"
}

// facingCorners are the corners of two boxes overlapping in neither x nor y that face each other.
func facingCorners(a, b [4]int) (pa, pb pt, ok bool) {
	if a[0] < b[0]+b[2] && b[0] < a[0]+a[2] || a[1] < b[1]+b[3] && b[1] < a[1]+a[3] {
		return pt{}, pt{}, false
	}
	corner := func(r [4]int, right, below bool) pt {
		p := pt{float64(r[0]), float64(r[1])}
		if right {
			p.x += float64(r[2])
		}
		if below {
			p.y += float64(r[3])
		}
		return p
	}
	right, below := a[0] < b[0], a[1] < b[1]
	return corner(a, right, below), corner(b, !right, !below), true
}

// leaves says what is wrong with a line ending at p on box b and going on to q: at a point on
// b's border (not a rounded corner's curve, left alone), the segment to q is perpendicular to the
// side p lies on (either way at a corner) and does not go into the box.
func leaves(b [4]int, p, q pt) string {
	x0, y0, x1, y1 := float64(b[0]), float64(b[1]), float64(b[0]+b[2]), float64(b[1]+b[3])
	onX := (p.x == x0 || p.x == x1) && p.y >= y0 && p.y <= y1 // on the left or right side
	onY := (p.y == y0 || p.y == y1) && p.x >= x0 && p.x <= x1
	switch {
	case !onX && !onY:
		return ""
	case SegmentThrough([2]float64{p.x, p.y}, [2]float64{q.x, q.y}, Box{b[0], b[1], b[2], b[3]}):
		return fmt.Sprintf("goes into its end's box at %v", p)
	case onX && onY:
		return ""
	case onX && p.y != q.y, onY && p.x != q.x:
		return fmt.Sprintf("leaves its end's side at %v at a slant or along it", p)
	}
	return ""
}

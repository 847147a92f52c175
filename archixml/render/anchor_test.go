package render

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// archiEnds is the test's own reading of Archi's orthogonal anchor for a straight connection
// between two boxes a and b: when they overlap in x only, a vertical line at the middle of the
// overlap, from a's side facing b to b's side facing a; in y only, a horizontal one. ok is false
// where the rule places the ends otherwise (no overlap, or both), which this test leaves alone.
// along is the axis the line runs along (0 x, 1 y).
func archiEnds(a, b [4]int) (pa, pb pt, along int, ok bool) {
	lo := func(i int) int { return max(a[i], b[i]) }
	hi := func(i int) int { return min(a[i]+a[i+2], b[i]+b[i+2]) }
	ox, oy := lo(0) < hi(0), lo(1) < hi(1)
	if ox == oy || lo(0) == hi(0) || lo(1) == hi(1) {
		return pt{}, pt{}, 0, false // boxes that touch fall between Archi's cases
	}
	if ox {
		x := float64((lo(0) + hi(0)) / 2)
		if a[1] < b[1] {
			return pt{x, float64(a[1] + a[3])}, pt{x, float64(b[1])}, 1, true
		}
		return pt{x, float64(a[1])}, pt{x, float64(b[1] + b[3])}, 1, true
	}
	y := float64((lo(1) + hi(1)) / 2)
	if a[0] < b[0] {
		return pt{float64(a[0] + a[2]), y}, pt{float64(b[0]), y}, 0, true
	}
	return pt{float64(a[0]), y}, pt{float64(b[0] + b[2]), y}, 0, true
}

// TestView_CorpusOrthogonalEnds: on every corpus view, every straight connection between two
// boxes that overlap in x or in y (not both) ends where Archi's orthogonal anchor, its default,
// puts it: a vertical or horizontal line through the middle of the overlap, from side to side.
func TestView_CorpusOrthogonalEnds(t *testing.T) {
	checked, placed := 0, 0
	var perView []viewCount // with -v, the views with the most connections are logged
	eachCorpusView(t, func(file string, m *archixml.Model, v archixml.Object) {
		vc := viewCount{file: file, view: v.Name(), conns: len(v.Connections())}
		defer func() { perView = append(perView, vc) }()
		svg, err := View(m, v.ID())
		if err != nil {
			t.Fatal(err)
		}
		lines := drawnLines(t, svg)
		box := func(o archixml.Object) ([4]int, bool) {
			if o.Kind() != archixml.KindDiagramObject {
				return [4]int{}, false
			}
			if c, ok := o.Concept(); ok && c.Class() == "Junction" {
				return [4]int{}, false // a junction keeps the ellipse anchor
			}
			x, y, w, h := absBounds(o)
			return [4]int{x, y, w, h}, true
		}
		for _, c := range v.Connections() {
			line, drawn := lines[c.ID()]
			if !drawn || strings.Contains(c.XML(), "<bendpoint") {
				continue
			}
			s, _ := c.Source()
			g, _ := c.Target()
			a, ok1 := box(s)
			b, ok2 := box(g)
			if !ok1 || !ok2 {
				continue
			}
			wa, wb, along, ok := archiEnds(a, b)
			if !ok {
				continue
			}
			checked++
			vc.checked++
			got := [2]pt{line[0], line[len(line)-1]}
			if onSide(got[0], wa, along, s) && onSide(got[1], wb, along, g) {
				placed++
				vc.placed++
				continue
			}
			t.Errorf("%s: view %q: connection %s ends at %v and %v, Archi's orthogonal anchor at %v and %v",
				file, v.Name(), c.ID(), got[0], got[1], wa, wb)
		}
	})
	if checked == 0 {
		t.Fatal("no connection between boxes overlapping in x or y: the test proves nothing")
	}
	t.Logf("%d of %d straight connections between boxes overlapping in x or y end where Archi's rule puts them", placed, checked)
	logBusiestViews(t, perView, func(c viewCount) string {
		return fmt.Sprintf("%d of %d straight connections between boxes overlapping in x or y end where Archi's rule puts them", c.placed, c.checked)
	})
}

// viewCount is one corpus view's count for a test's -v log: its connections, how many a rule
// applies to (checked) and how many follow it (placed).
type viewCount struct {
	file, view             string
	conns, checked, placed int
}

// logBusiestViews logs, with -v, the counts of the three views with the most connections.
func logBusiestViews(t *testing.T, counts []viewCount, say func(viewCount) string) {
	if !testing.Verbose() {
		return
	}
	sort.SliceStable(counts, func(i, j int) bool { return counts[i].conns > counts[j].conns })
	for _, c := range counts[:min(3, len(counts))] {
		t.Logf("%s: view %q (%d connections): %s", c.file, c.view, c.conns, say(c))
	}
}

// onSide reports whether an end p is where Archi's rule puts it (want, on the box's side), or
// inward of it along the line (axis along) onto the curve of a rounded figure: by up to 10 px
// for the rounded boxes (20 px corners), half the height or width for a value's ellipse and a
// service's pill.
func onSide(p, want pt, along int, o archixml.Object) bool {
	class := o.Class()
	if c, ok := o.Concept(); ok {
		class = c.Class()
	}
	inward := 0.0
	_, _, w, h := absBounds(o)
	switch {
	case o.Attr("type") != "1" && boxShape(class) == "round":
		inward = 10
	case o.Attr("type") == "1" && (class == "Value" || strings.HasSuffix(class, "Service")):
		inward = float64([]int{w, h}[along]) / 2
	}
	d := []float64{p.x - want.x, p.y - want.y}
	return near(d[1-along], 0) && d[along] >= -inward-0.5 && d[along] <= inward+0.5
}

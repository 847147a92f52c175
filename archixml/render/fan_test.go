package render

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// drawnLines reads, from a rendered SVG, each connection's line as drawn: the points of the
// first path inside its <g data-kind="connection"> that is not a mark. Connections drawn
// without a line (an end missing) are left out.
func drawnLines(t testing.TB, svg []byte) map[string][]pt {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	out := map[string][]pt{}
	cur, depth := "", 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			if cur != "" {
				depth++
				if _, done := out[cur]; !done && e.Name.Local == "path" && attr["class"] != "mark" {
					out[cur] = parsePolyline(t, attr["d"])
				}
				continue
			}
			if e.Name.Local == "g" && attr["data-kind"] == "connection" {
				cur, depth = attr["data-id"], 0
			}
		case xml.EndElement:
			if cur == "" {
				continue
			}
			if depth == 0 {
				cur = ""
			} else {
				depth--
			}
		}
	}
}

// parsePolyline reads path data made of M and L commands with absolute coordinates.
func parsePolyline(t testing.TB, d string) []pt {
	t.Helper()
	f := strings.FieldsFunc(d, func(r rune) bool { return r == ' ' || r == ',' || r == 'M' || r == 'L' })
	if len(f)%2 != 0 {
		t.Fatalf("path %q: odd number of coordinates", d)
	}
	var p []pt
	for i := 0; i < len(f); i += 2 {
		x, err1 := strconv.ParseFloat(f[i], 64)
		y, err2 := strconv.ParseFloat(f[i+1], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("path %q: not a polyline of M and L", d)
		}
		p = append(p, pt{x, y})
	}
	return p
}

// sharedRun is the length along which two segments lie on one line (within a pixel): 0 when
// they cross, diverge or only touch.
func sharedRun(p1, p2, q1, q2 pt) float64 {
	l := dist(p1, p2)
	if l < 1 || dist(q1, q2) < 1 {
		return 0
	}
	ux, uy := (p2.x-p1.x)/l, (p2.y-p1.y)/l
	off := func(q pt) float64 { return math.Abs(ux*(q.y-p1.y) - uy*(q.x-p1.x)) }
	if off(q1) > 1 || off(q2) > 1 {
		return 0
	}
	along := func(q pt) float64 { return ux*(q.x-p1.x) + uy*(q.y-p1.y) }
	a, b := along(q1), along(q2)
	if a > b {
		a, b = b, a
	}
	return math.Min(l, b) - math.Max(0, a)
}

// onOneSegment lists the pairs of connections of a drawn view whose lines run together for more
// than a few pixels, each pair as "id1 id2" with id1 < id2.
func onOneSegment(lines map[string][]pt) []string {
	ids := make([]string, 0, len(lines))
	for id := range lines {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var pairs []string
	for i, a := range ids {
	next:
		for _, b := range ids[i+1:] {
			pa, pb := lines[a], lines[b]
			for j := 1; j < len(pa); j++ {
				for k := 1; k < len(pb); k++ {
					if sharedRun(pa[j-1], pa[j], pb[k-1], pb[k]) > 4 {
						pairs = append(pairs, a+" "+b)
						continue next
					}
				}
			}
		}
	}
	return pairs
}

// TestView_CorpusNoConnectionUnderAnother: on every corpus view, no two straight connections
// (without bendpoints) between the same two ends are drawn on one segment, where one would hide
// the other from the reviewer (Archi's default router, a fan router, bends the second and later
// ones aside).
func TestView_CorpusNoConnectionUnderAnother(t *testing.T) {
	pairs, views := 0, 0
	var perView []viewCount // with -v: the busiest views' pairs on one segment (in placed)
	eachCorpusView(t, func(file string, m *archixml.Model, v archixml.Object) {
		vc := viewCount{file: file, view: v.Name(), conns: len(v.Connections())}
		defer func() { perView = append(perView, vc) }()
		svg, err := View(m, v.ID())
		if err != nil {
			t.Fatal(err)
		}
		ends := map[string]string{} // by straight connection: its ends, either way round
		for _, c := range v.Connections() {
			if strings.Contains(c.XML(), "<bendpoint") {
				continue // where the model bends it is the model's drawing, and Archi's
			}
			s, _ := c.Source()
			g, _ := c.Target()
			e := []string{s.ID(), g.ID()}
			sort.Strings(e)
			ends[c.ID()] = e[0] + " " + e[1]
		}
		views++
		for _, p := range onOneSegment(drawnLines(t, svg)) {
			a, b, _ := strings.Cut(p, " ")
			if ends[a] == "" || ends[a] != ends[b] {
				continue // lines the model's bendpoints run together: Archi draws them so too
			}
			pairs++
			vc.placed++
			t.Errorf("%s: view %q draws connections %s and %s (between the same ends) on one segment", file, v.Name(), a, b)
		}
	})
	t.Logf("%d views, %d pairs of connections on one segment", views, pairs)
	logBusiestViews(t, perView, func(c viewCount) string {
		return fmt.Sprintf("%d pairs of connections between the same ends drawn on one segment", c.placed)
	})
}

// eachCorpusView calls f with every view of every corpus model, and the model's file name.
func eachCorpusView(t *testing.T, f func(file string, m *archixml.Model, v archixml.Object)) {
	t.Helper()
	for _, path := range corpusFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := archixml.Load(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range m.Views() {
			f(filepath.Base(path), m, v)
		}
	}
}

// relXML is a relationship element of a test model.
func relXML(id, class, src, tgt string) string {
	return fmt.Sprintf(`    <element xsi:type="archimate:%s" id="%s" source="%s" target="%s"/>`+"\n", class, id, src, tgt)
}

// boxXML is a 120 x 55 diagram object at x, y showing the element el, holding its connections.
func boxXML(id, el string, x, y int, conns string) string {
	return fmt.Sprintf(`      <child xsi:type="archimate:DiagramObject" id="%s" archimateElement="%s">
        <bounds x="%d" y="%d" width="120" height="55"/>
%s      </child>
`, id, el, x, y, conns)
}

// appModelXML is a model of application components named after their ids (upper-cased), the
// relationships rels and one view "v" with the attributes viewAttrs and the children kids.
func appModelXML(name string, els []string, rels, viewAttrs, kids string) string {
	var b strings.Builder
	for _, e := range els {
		fmt.Fprintf(&b, `    <element xsi:type="archimate:ApplicationComponent" name="%s" id="%s"/>`+"\n", strings.ToUpper(e), e)
	}
	return `<?xml version="1.0" encoding="UTF-8"?>
<archimate:model xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:archimate="http://www.archimatetool.com/archimate" name="` + name + `" id="m">
  <folder name="Application" id="f1" type="application">
` + b.String() + `  </folder>
  <folder name="Relations" id="f2" type="relations">
` + rels + `  </folder>
  <folder name="Views" id="f3" type="diagrams">
    <element xsi:type="archimate:ArchimateDiagramModel" name="` + strings.ToUpper(name[:1]) + name[1:] + `" id="v"` + viewAttrs + `>
` + kids + `    </element>
  </folder>
</archimate:model>`
}

// fanXML is a view of pairs of boxes with several straight connections between each pair: a
// serving and a flow from A to B, flows both ways between C and D (one above the other), and
// three triggerings between E and F.
func fanXML() string {
	conn := func(id, src, tgt, rel string) string {
		return fmt.Sprintf(`        <sourceConnection xsi:type="archimate:Connection" id="%s" source="%s" target="%s" archimateRelationship="%s"/>`+"\n", id, src, tgt, rel)
	}
	rel, box := relXML, boxXML
	return appModelXML("fan", []string{"a", "b", "c", "d", "e", "f"},
		rel("r1", "ServingRelationship", "a", "b")+rel("r2", "FlowRelationship", "a", "b")+
			rel("r3", "FlowRelationship", "c", "d")+rel("r4", "FlowRelationship", "d", "c")+
			rel("r5", "TriggeringRelationship", "e", "f")+rel("r6", "TriggeringRelationship", "f", "e")+rel("r7", "TriggeringRelationship", "e", "f"), "",
		box("oa", "a", 0, 0, conn("c1", "oa", "ob", "r1")+conn("c2", "oa", "ob", "r2"))+
			box("ob", "b", 300, 0, "")+
			box("oc", "c", 0, 150, conn("c3", "oc", "od", "r3"))+
			box("od", "d", 0, 350, conn("c4", "od", "oc", "r4"))+
			box("oe", "e", 300, 150, conn("c5", "oe", "of", "r5")+conn("c7", "oe", "of", "r7"))+
			box("of", "f", 500, 350, conn("c6", "of", "oe", "r6")))
}

// TestView_FanSeparatesConnections: straight connections between the same two boxes are drawn
// apart, as draw2d's FanRouter places them (worked by hand below), and none on another.
func TestView_FanSeparatesConnections(t *testing.T) {
	m, err := archixml.Load([]byte(fanXML()))
	if err != nil {
		t.Fatal(err)
	}
	svg := checkView(t, m, m.Views()[0])
	lines := drawnLines(t, svg)
	if p := onOneSegment(lines); len(p) > 0 {
		t.Errorf("connections drawn on one segment: %v", p)
	}
	// Worked by hand from draw2d's FanRouter, on the ends Archi's orthogonal anchor gives:
	// A 0,0 and B 300,0 (120x55) overlap in y: the ends 120,27 and 300,27; the middle 210,27;
	// the direction taken westward (-1,0); the second of a fan goes (-dy, dx) times 10 from the
	// middle: 210,17.
	// C 0,150 above D 0,350: the ends 60,205 and 60,350, the middle 60,277, the direction
	// northward (0,-1): D to C, the second, bends to 70,277.
	// E 300,150 and F 500,350 overlap in neither: corner to corner, 420,205 and 500,350; the
	// middle 460,277; the direction northward, (-80,-145)/165.6: the second (c7) bends to
	// 460+8.76, 277-4.83 = 468,272 (truncated), the third (c6, from F) the other way, 451,281.
	bends := map[string][]pt{"c1": nil, "c2": {{210, 17}}, "c3": nil, "c4": {{70, 277}}, "c5": nil, "c7": {{468, 272}}, "c6": {{451, 281}}}
	for id, w := range bends {
		got := lines[id]
		if len(got) < 2 || fmt.Sprint(got[1:len(got)-1]) != fmt.Sprint(w) {
			t.Errorf("%s drawn through %v, want the bends %v", id, got, w)
		}
	}
	for _, same := range [][2]string{{"c1", "c2"}, {"c3", "c4"}, {"c5", "c7"}} {
		a, b := lines[same[0]], lines[same[1]]
		if len(a) < 2 || len(b) < 2 {
			t.Fatalf("%s or %s not drawn", same[0], same[1])
		}
		ea, eb := [2]pt{a[0], a[len(a)-1]}, [2]pt{b[0], b[len(b)-1]}
		if ea != eb && ea != [2]pt{eb[1], eb[0]} {
			t.Errorf("%s and %s end in different places: %v, %v (the fan leaves the ends)", same[0], same[1], a, b)
		}
	}
}

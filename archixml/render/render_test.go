package render

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"github.com/archiplan/archiplan/internal/testenv"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// drawn is one <g data-id> of a rendered SVG.
type drawn struct {
	kind       string
	x, y, w, h int
	mark       string
}

// parseSVG parses an SVG strictly and returns its drawn objects by id, failing on any id drawn
// twice and on any element outside SVG's vocabulary of shapes that could run script.
func parseSVG(t testing.TB, svg []byte) map[string]drawn {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	out := map[string]drawn{}
	allowed := map[string]bool{"svg": true, "title": true, "g": true, "rect": true, "path": true, "ellipse": true,
		"circle": true, "text": true, "tspan": true}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if !allowed[se.Name.Local] {
			t.Fatalf("SVG holds a <%s> element", se.Name.Local)
		}
		attr := map[string]string{}
		for _, a := range se.Attr {
			if strings.HasPrefix(strings.ToLower(a.Name.Local), "on") {
				t.Fatalf("SVG holds an event attribute %s", a.Name.Local)
			}
			attr[a.Name.Local] = a.Value
		}
		id, ok := attr["data-id"]
		if !ok {
			continue
		}
		if _, dup := out[id]; dup {
			t.Fatalf("%s drawn twice", id)
		}
		n := func(k string) int { v, _ := strconv.Atoi(attr[k]); return v }
		out[id] = drawn{attr["data-kind"], n("data-x"), n("data-y"), n("data-w"), n("data-h"), attr["data-mark"]}
	}
	return out
}

// absBounds computes a diagram object's absolute bounds from the model's own API, independently of
// the renderer's walk: its bounds plus its parents', Archi's default size for -1.
func absBounds(o archixml.Object) (x, y, w, h int) {
	b, _ := o.Bounds()
	x, y, w, h = b.X, b.Y, b.Width, b.Height
	class, fig := o.Class(), 0
	if c, ok := o.Concept(); ok {
		class = c.Class()
	}
	fig, _ = strconv.Atoi(o.Attr("type"))
	dw, dh := DefaultSize(class, fig)
	if w < 0 {
		w = dw
	}
	if h < 0 {
		h = dh
	}
	for p, ok := o.Parent(); ok && p.Kind() == archixml.KindDiagramObject; p, ok = p.Parent() {
		pb, _ := p.Bounds()
		x, y = x+pb.X, y+pb.Y
	}
	return
}

// checkView renders a view and checks that every diagram object and connection is drawn once,
// with its id, at the bounds Archi stores.
func checkView(t *testing.T, m *archixml.Model, v archixml.Object) []byte {
	t.Helper()
	svg, err := View(m, v.ID())
	if err != nil {
		t.Fatalf("view %s: %v", v.ID(), err)
	}
	got := parseSVG(t, svg)
	objs, conns := v.DiagramObjects(), v.Connections()
	for _, o := range objs {
		g, ok := got[o.ID()]
		if !ok {
			t.Fatalf("view %q: diagram object %s not drawn", v.Name(), o.ID())
		}
		x, y, w, h := absBounds(o)
		if g.x != x || g.y != y || g.w != w || g.h != h {
			t.Errorf("view %q: %s drawn at %d,%d %dx%d, stored at %d,%d %dx%d", v.Name(), o.ID(), g.x, g.y, g.w, g.h, x, y, w, h)
		}
	}
	byID := map[string]archixml.Object{}
	for _, c := range conns {
		byID[c.ID()] = c
	}
	hidden := 0
	for _, c := range conns {
		g, ok := got[c.ID()]
		if nestedConn(c, byID, 0) {
			hidden++
			if ok {
				t.Errorf("view %q: connection %s is drawn, Archi hides it (nested)", v.Name(), c.ID())
			}
			continue
		}
		if !ok || g.kind != "connection" {
			t.Fatalf("view %q: connection %s not drawn", v.Name(), c.ID())
		}
	}
	if len(got) != len(objs)+len(conns)-hidden {
		t.Errorf("view %q: %d drawn, %d objects and %d connections (%d hidden)", v.Name(), len(got), len(objs), len(conns), hidden)
	}
	return svg
}

// nestedConn is the test's own reading of Archi's DiagramModelUtils.shouldBeHiddenConnection with
// its default preferences, from the model's API: a connection between a diagram object and the
// one it sits in directly, or one whose source (else target) is such a connection.
func nestedConn(c archixml.Object, conns map[string]archixml.Object, depth int) bool {
	if depth > 50 {
		return false
	}
	s, sok := c.Source()
	tg, tok := c.Target()
	if !sok || !tok {
		return false
	}
	isObj := func(o archixml.Object) bool { return o.Kind() == archixml.KindDiagramObject }
	switch {
	case isObj(s) && isObj(tg):
		sp, _ := s.Parent()
		tp, _ := tg.Parent()
		return sp.Valid() && sp.ID() == tg.ID() || tp.Valid() && tp.ID() == s.ID()
	case conns[s.ID()].Valid():
		return nestedConn(conns[s.ID()], conns, depth+1)
	case conns[tg.ID()].Valid():
		return nestedConn(conns[tg.ID()], conns, depth+1)
	}
	return false
}

// TestView_CorpusHidesNested: every corpus view is drawn without a connection Archi hides,
// and the corpus holds some (so the test can fail).
func TestView_CorpusHidesNested(t *testing.T) {
	total := 0
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
			byID := map[string]archixml.Object{}
			for _, c := range v.Connections() {
				byID[c.ID()] = c
			}
			svg, err := View(m, v.ID())
			if err != nil {
				t.Fatal(err)
			}
			got := parseSVG(t, svg)
			for id, c := range byID {
				if nestedConn(c, byID, 0) {
					total++
					if _, drawn := got[id]; drawn {
						t.Errorf("%s: view %q draws nested connection %s", filepath.Base(path), v.Name(), id)
					}
				}
			}
		}
	}
	if total == 0 {
		t.Fatal("no nested connection in the corpus: the test proves nothing")
	}
	t.Logf("%d nested connections hidden", total)
}

func TestView_Corpus(t *testing.T) {
	for _, path := range corpusFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := archixml.Load(data)
			if err != nil {
				t.Fatal(err)
			}
			m2, _ := archixml.Load(data)
			for _, v := range m.Views() {
				first := checkView(t, m, v)
				again, err := View(m2, v.ID())
				if err != nil || !bytes.Equal(first, again) {
					t.Fatalf("view %q: two renderings differ (%v)", v.Name(), err)
				}
				checkSize(t, m, v.ID(), first)
			}
		})
	}
}

func TestView_Showcase(t *testing.T) {
	m, err := archixml.Load([]byte(showcaseXML()))
	if err != nil {
		t.Fatal(err)
	}
	svg := checkView(t, m, m.Views()[0])
	golden := filepath.Join("testdata", "showcase.svg")
	if *update {
		if err := os.WriteFile(golden, svg, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", "showcase.archimate"), []byte(showcaseXML()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(svg, want) {
		t.Errorf("showcase SVG differs from %s (run with -update after checking the picture)", golden)
	}
	// every relationship type and every element type is drawn
	types := map[string]bool{}
	for _, line := range strings.Split(string(svg), "\n") {
		if i := strings.Index(line, `data-type="`); i >= 0 {
			rest := line[i+len(`data-type="`):]
			types[rest[:strings.IndexByte(rest, '"')]] = true
		}
	}
	for _, ct := range append(append([]archixml.ConceptType{}, archixml.ElementTypes...), archixml.RelationshipTypes...) {
		if !types[ct.Class] {
			t.Errorf("showcase draws no %s", ct.Class)
		}
	}
}

// A model's text cannot add markup to the SVG: names, notes, ids and colours are escaped or checked.
func TestView_Escaping(t *testing.T) {
	nasty := []string{`<script>alert(1)</script>`, `]]><svg onload="alert(1)">`, `"' onmouseover="x`, `&amp; &lt;`, "a\x01b"}
	for i, name := range nasty {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			x := esc(name)
			model := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<archimate:model xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:archimate="http://www.archimatetool.com/archimate" name="%[1]s" id="m">
  <folder name="B" id="f1" type="business">
    <element xsi:type="archimate:BusinessActor" name="%[1]s" id="a"/>
  </folder>
  <folder name="Views" id="f2" type="diagrams">
    <element xsi:type="archimate:ArchimateDiagramModel" name="%[1]s" id="v">
      <child xsi:type="archimate:DiagramObject" id="o1" archimateElement="a" fillColor="%[1]s" font="1|%[1]s|9|0">
        <bounds x="0" y="0" width="120" height="55"/>
      </child>
      <child xsi:type="archimate:Note" id="n1">
        <bounds x="200" y="0" width="200" height="80"/>
        <content>%[1]s</content>
      </child>
      <child xsi:type="archimate:Group" id="g1" name="%[1]s">
        <bounds x="0" y="100" width="200" height="80"/>
      </child>
    </element>
  </folder>
</archimate:model>`, strings.ReplaceAll(x, "\x01", ""))
			m, err := archixml.Load([]byte(model))
			if err != nil {
				t.Fatal(err)
			}
			svg := checkView(t, m, m.Views()[0])
			// parseSVG refused any element or event attribute of the model's making; the bytes hold
			// no tag and no CDATA end the model wrote
			if bytes.Contains(svg, []byte("<script")) || bytes.Contains(svg, []byte("]]>")) || bytes.Count(svg, []byte("<svg")) != 1 {
				t.Fatalf("markup from the model reached the SVG:\n%s", svg)
			}
			// the text itself is still there, as text
			var texts []string
			d := xml.NewDecoder(bytes.NewReader(svg))
			for {
				tok, err := d.Token()
				if err != nil {
					break
				}
				if cd, ok := tok.(xml.CharData); ok {
					texts = append(texts, string(cd))
				}
			}
			all := strings.Join(texts, "")
			want := strings.ReplaceAll(strings.Join(strings.Fields(strings.ReplaceAll(name, "\x01", "")), ""), " ", "")
			if !strings.Contains(strings.ReplaceAll(strings.ReplaceAll(all, " ", ""), "\n", ""), want) {
				t.Errorf("the name %q is not drawn as text: %q", name, all)
			}
		})
	}
}

// Archi's DiagramModelUtils.getAbsoluteBendpointPositions, worked by hand.
func TestBendpoint(t *testing.T) {
	src := rect{0, 0, 121, 55}     // centre 60,27 (integer halves)
	tgt := rect{400, 200, 120, 55} // centre 460,227
	tests := []struct {
		i, n                       int
		startX, startY, endX, endY int
		want                       pt
	}{
		{1, 1, 0, 0, 0, 0, pt{260, 127}},        // halfway between the centres
		{1, 1, 100, 0, -300, 0, pt{160, 127}},   // (60+100)/2 + (460-300)/2
		{1, 2, 0, 0, 0, 0, pt{193, 93}},         // 60*2/3 + 460/3 = 193.3; 27*2/3 + 227/3 = 93.7: truncated
		{2, 2, 0, 0, 0, 0, pt{326, 160}},        // 20 + 306.7; 9 + 151.3
		{1, 3, -10, -10, -10, -10, pt{150, 67}}, // 50*3/4 + 450/4; 17*3/4 + 217/4
	}
	for _, tt := range tests {
		got := bendpoint(src, tgt, tt.i, tt.n, tt.startX, tt.startY, tt.endX, tt.endY)
		w := float64(tt.i) / float64(tt.n+1)
		want := pt{float64(int(float64(60+tt.startX)*(1-w) + float64(460+tt.endX)*w)), float64(int(float64(27+tt.startY)*(1-w) + float64(227+tt.endY)*w))}
		if got != want {
			t.Errorf("bendpoint %d of %d %v: got %v, formula gives %v", tt.i, tt.n, tt, got, want)
		}
		if got != tt.want {
			t.Errorf("bendpoint %d of %d: got %v, want %v", tt.i, tt.n, got, tt.want)
		}
	}
}

// Lines end on the borders of their objects, not at their centres.
func TestView_ClippedAtBorders(t *testing.T) {
	m, err := archixml.Load([]byte(showcaseXML()))
	if err != nil {
		t.Fatal(err)
	}
	d := layoutOf(t, m, m.Views()[0].ID())
	n := 0
	for _, c := range d.conns {
		s, ok1 := d.byID[c.src]
		e, ok2 := d.byID[c.tgt]
		if !ok1 || !ok2 || len(c.pts) < 2 {
			continue
		}
		ends := []*obj{s, e}
		for i, end := range []struct {
			p pt
			r rect
		}{{c.pts[0], s.r}, {c.pts[len(c.pts)-1], e.r}} {
			onX := near(end.p.x, float64(end.r.x)) || near(end.p.x, float64(end.r.x+end.r.w))
			onY := near(end.p.y, float64(end.r.y)) || near(end.p.y, float64(end.r.y+end.r.h))
			inside := end.p.x >= float64(end.r.x)-0.5 && end.p.x <= float64(end.r.x+end.r.w)+0.5 &&
				end.p.y >= float64(end.r.y)-0.5 && end.p.y <= float64(end.r.y+end.r.h)+0.5
			if !(onX || onY) && !round(d.byID[c.src]) && !round(d.byID[c.tgt]) && !onCorner(end.p, end.r, ends[i]) || !inside {
				t.Errorf("connection %s ends at %v, not on the border of %v", c.id, end.p, end.r)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no connection checked")
	}
}

// onCorner reports whether p lies on a rounded corner of o's figure (box r), within the pixel
// Archi's integer arithmetic loses: on the quarter ellipse whose size corner gives.
func onCorner(p pt, r rect, o *obj) bool {
	cw, ch := corner(o)
	if cw == 0 || ch == 0 {
		return false
	}
	hw, hh := float64(cw)/2, float64(ch)/2
	cx, cy := float64(r.x)+hw, float64(r.y)+hh
	if p.x > float64(r.x)+float64(r.w)/2 {
		cx = float64(r.x+r.w) - hw
	}
	if p.y > float64(r.y)+float64(r.h)/2 {
		cy = float64(r.y+r.h) - hh
	}
	return math.Abs(math.Hypot((p.x-cx)/hw, (p.y-cy)/hh)-1) < 1.5/min(hw, hh)
}

func near(a, b float64) bool { return a-b < 0.51 && b-a < 0.51 }

func layoutOf(t *testing.T, m *archixml.Model, viewID string) *drawing {
	t.Helper()
	v, _ := m.Object(viewID)
	root, err := parseView(v)
	if err != nil {
		t.Fatal(err)
	}
	return layout(m, root)
}

func TestViewWith_MarksAndFocus(t *testing.T) {
	m := archixml.Example()
	v := m.Views()[0]
	objs := v.DiagramObjects()
	conns := v.Connections()
	marks := map[string]Mark{objs[0].ID(): MarkAdded, objs[1].ID(): MarkRemoved, objs[2].ID(): MarkRenamed, conns[0].ID(): MarkChanged}
	svg, err := ViewWith(m, v.ID(), Options{Marks: marks, Focus: []string{objs[0].ID()}, Margin: 20})
	if err != nil {
		t.Fatal(err)
	}
	got := parseSVG(t, svg)
	x, y, w, h := absBounds(objs[0])
	box := [4]int{x - 20, y - 20, w + 40, h + 40}
	left := 0
	for id, mk := range marks {
		g, drawn := got[id]
		if drawn && g.mark != mk.String() {
			t.Errorf("%s marked %q, want %q", id, got[id].mark, mk)
		}
		if o, ok := m.Object(id); ok && o.Kind() == archixml.KindDiagramObject {
			ox, oy, ow, oh := absBounds(o)
			outside := ox > box[0]+box[2] || oy > box[1]+box[3] || ox+ow < box[0] || oy+oh < box[1]
			if drawn == outside {
				t.Errorf("%s at %d,%d %dx%d drawn=%v in a picture cropped to %v", id, ox, oy, ow, oh, drawn, box)
			}
			if outside {
				left++
			}
		}
	}
	if _, ok := got[objs[0].ID()]; !ok {
		t.Error("the focused object is not drawn")
	}
	if left == 0 {
		t.Error("nothing lies outside the crop: the test proves nothing about cropping")
	}
	want := fmt.Sprintf(`viewBox="%d %d %d %d"`, x-20, y-20, w+40, h+40)
	if !bytes.Contains(svg, []byte(want)) {
		t.Errorf("focus on %s: no %s in\n%.300s", objs[0].ID(), want, svg)
	}
}

func TestView_Errors(t *testing.T) {
	m := archixml.Example()
	for _, id := range []string{"nope", m.Elements()[0].ID()} {
		if _, err := View(m, id); !errors.Is(err, ErrNoView) {
			t.Errorf("View(%q) = %v, want ErrNoView", id, err)
		}
		if _, _, err := Size(m, id); !errors.Is(err, ErrNoView) {
			t.Errorf("Size(%q) = %v, want ErrNoView", id, err)
		}
	}
}

// checkSize holds Size to the width and height of the SVG document View drew.
func checkSize(t *testing.T, m *archixml.Model, id string, svg []byte) {
	t.Helper()
	w, h, err := Size(m, id)
	if err != nil {
		t.Fatalf("Size(%q): %v", id, err)
	}
	sm := svgSize.FindSubmatch(svg)
	if sm == nil {
		t.Fatalf("view %q: no width and height on the SVG document", id)
	}
	if want := fmt.Sprintf("%dx%d", w, h); want != string(sm[1])+"x"+string(sm[2]) {
		t.Fatalf("view %q: Size says %s, the picture is %sx%s", id, want, sm[1], sm[2])
	}
}

var svgSize = regexp.MustCompile(`^<svg [^>]*?width="(\d+)" height="(\d+)"`)

func corpusFiles(t testing.TB) []string {
	t.Helper()
	return testenv.CorpusModels(t)
}

package render

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// bodies reads, from a rendered SVG, the first shape drawn in each diagram object's <g>: its
// figure's body, whose fill carries the object's alpha, with the paint of a <g> it sits in. Shapes
// are by object id, as attributes.
func bodies(t testing.TB, svg []byte) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for id, shapes := range objectShapes(t, svg) {
		out[id] = shapes[0]
	}
	return out
}

// objectShapes reads, from a rendered SVG, every shape (rect, path, ellipse, circle) drawn in each
// diagram object's <g>, in order, with the paint of a <g> it sits in and its tag as "tag".
func objectShapes(t testing.TB, svg []byte) map[string][]map[string]string {
	objs, _ := svgShapes(t, svg)
	return objs
}

// svgShapes reads the shapes of a rendered SVG's diagram objects and of its connections, by id.
func svgShapes(t testing.TB, svg []byte) (objs, conns map[string][]map[string]string) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	objs, conns = map[string][]map[string]string{}, map[string][]map[string]string{}
	cur, out := "", objs
	var group map[string]string // the paint of a <g> the shape sits in
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return objs, conns
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		e, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		attr := map[string]string{}
		for _, a := range e.Attr {
			attr[a.Name.Local] = a.Value
		}
		switch e.Name.Local {
		case "g":
			if id := attr["data-id"]; id != "" {
				cur, group, out = id, nil, objs
				if attr["data-kind"] == "connection" {
					out = conns
				}
			} else if cur != "" {
				group = attr
			}
		case "rect", "path", "ellipse", "circle":
			if cur != "" && attr["class"] != "mark" {
				for k, v := range group {
					if _, set := attr[k]; !set {
						attr[k] = v
					}
				}
				attr["tag"] = e.Name.Local
				out[cur] = append(out[cur], attr)
			}
		}
	}
}

// checkAlpha holds each diagram object of a view that sets alpha to its figure's fill as drawn:
// fill-opacity alpha/255 (absent when 255) on a filled body. It returns how many it checked.
func checkAlpha(t *testing.T, name string, m *archixml.Model, v archixml.Object) int {
	t.Helper()
	svg, err := View(m, v.ID())
	if err != nil {
		t.Fatal(err)
	}
	got := bodies(t, svg)
	n := 0
	for _, o := range v.DiagramObjects() {
		a := o.Attr("alpha")
		if a == "" {
			continue
		}
		body, ok := got[o.ID()]
		if !ok {
			t.Errorf("%s: %s (alpha %s) drawn with no shape", name, o.ID(), a)
			continue
		}
		if body["fill"] == "none" || body["fill"] == "" {
			continue
		}
		n++
		av, _ := strconv.Atoi(a)
		want := ""
		if av < 255 {
			want = f2(float64(max(av, 0)) / 255)
		}
		if body["fill-opacity"] != want {
			t.Errorf("%s: %s (%s, alpha %s) filled with opacity %q, want %q", name, o.ID(), o.Class(), a, body["fill-opacity"], want)
		}
	}
	return n
}

// TestView_AlphaOnEveryKind: alpha (0 here) makes the fill of every kind of diagram object
// transparent, as Archi's figures set it before filling: elements in both figures, groups, notes
// of each border type (a borderless one too), junctions and diagram references.
func TestView_AlphaOnEveryKind(t *testing.T) {
	kids := ""
	y := 0
	add := func(xsi, attrs, inner string) {
		y += 100
		kids += fmt.Sprintf(`      <child xsi:type="archimate:%s" id="o%d" alpha="0"%s>
        <bounds x="0" y="%d" width="120" height="55"/>%s
      </child>
`, xsi, y, attrs, y, inner)
	}
	add("DiagramObject", ` archimateElement="e1"`, "")
	add("DiagramObject", ` archimateElement="e1" type="1"`, "")
	add("DiagramObject", ` archimateElement="e2"`, "")
	add("DiagramObject", ` archimateElement="j1"`, "")
	add("Group", ` name="G"`, "")
	for _, bt := range []string{"", ` borderType="1"`, ` borderType="2"`} {
		add("Note", bt, `<content>0..*</content>`)
	}
	add("DiagramModelReference", ` model="v2"`, "")
	model := `<?xml version="1.0" encoding="UTF-8"?>
<archimate:model xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:archimate="http://www.archimatetool.com/archimate" name="alpha" id="m">
  <folder name="Business" id="f1" type="business">
    <element xsi:type="archimate:BusinessActor" name="Actor" id="e1"/>
    <element xsi:type="archimate:BusinessService" name="Service" id="e2"/>
  </folder>
  <folder name="Other" id="f4" type="other">
    <element xsi:type="archimate:Junction" id="j1"/>
  </folder>
  <folder name="Views" id="f2" type="diagrams">
    <element xsi:type="archimate:ArchimateDiagramModel" name="Alpha" id="v">
` + kids + `    </element>
    <element xsi:type="archimate:ArchimateDiagramModel" name="Other" id="v2"/>
  </folder>
</archimate:model>`
	m, err := archixml.Load([]byte(model))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := m.Object("v")
	checkView(t, m, v)
	if n := checkAlpha(t, "probe", m, v); n != 9 {
		t.Errorf("%d filled bodies checked, want all 9", n)
	}
}

// TestView_CorpusAlpha: every corpus object that sets alpha is filled with it.
func TestView_CorpusAlpha(t *testing.T) {
	n := 0
	eachCorpusView(t, func(file string, m *archixml.Model, v archixml.Object) {
		n += checkAlpha(t, file+": view "+strconv.Quote(v.Name()), m, v)
	})
	if n == 0 {
		t.Fatal("no object in the corpus sets alpha: the test proves nothing")
	}
	t.Logf("%d objects with alpha checked", n)
}

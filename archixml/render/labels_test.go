package render

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// labelsXML is a view of pairs of boxes joined by one connection each, labelled "serving" (and
// as the case says), the label placed as textPosition and the features say:
//
//	c0: (0,0) to (300,0), across, the label in the middle
//	c1: the same pair's shape at y 100, near the source (textPosition 0)
//	c2: at y 200, near the target (textPosition 2)
//	c3: (0,300) down to (0,500), near the source
//	c4: the same shape at x 600, near the target
//	c5: (0,700) to (300,700) through one bendpoint at (210, 800): the label on the bendpoint
//	c6: as c0 at y 900, the label above the line (textRelativePosition 1, north)
func labelsXML() string {
	type pair struct {
		sx, sy, tx, ty int
		attrs, inner   string
	}
	pairs := []pair{
		{0, 0, 300, 0, "", ""},
		{0, 100, 300, 100, ` textPosition="0"`, ""},
		{0, 200, 300, 200, ` textPosition="2"`, ""},
		{0, 300, 0, 500, ` textPosition="0"`, ""},
		{600, 300, 600, 500, ` textPosition="2"`, ""},
		{0, 700, 300, 700, "", `<bendpoint startX="150" startY="73" endX="-150" endY="73"/>`},
		{0, 900, 300, 900, "", `<feature name="textRelativePosition" value="1"/>`},
	}
	var els, kids strings.Builder
	for i, p := range pairs {
		fmt.Fprintf(&els, `    <element xsi:type="archimate:ApplicationService" name="s%d" id="s%d"/>
    <element xsi:type="archimate:ApplicationComponent" name="t%d" id="t%d"/>
    <element xsi:type="archimate:ServingRelationship" name="serving" id="r%d" source="s%d" target="t%d"/>
`, i, i, i, i, i, i, i)
		fmt.Fprintf(&kids, `      <child xsi:type="archimate:DiagramObject" id="os%d" archimateElement="s%d">
        <bounds x="%d" y="%d" width="120" height="55"/>
        <sourceConnection xsi:type="archimate:Connection" id="c%d" source="os%d" target="ot%d" archimateRelationship="r%d"%s>%s</sourceConnection>
      </child>
      <child xsi:type="archimate:DiagramObject" id="ot%d" archimateElement="t%d">
        <bounds x="%d" y="%d" width="120" height="55"/>
      </child>
`, i, i, p.sx, p.sy, i, i, i, i, p.attrs, p.inner, i, i, p.tx, p.ty)
	}
	return `<?xml version="1.0" encoding="UTF-8"?>
<archimate:model xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:archimate="http://www.archimatetool.com/archimate" name="labels" id="m">
  <folder name="Application" id="f1" type="application">
` + els.String() + `  </folder>
  <folder name="Views" id="f2" type="diagrams">
    <element xsi:type="archimate:ArchimateDiagramModel" name="Labels" id="v">
` + kids.String() + `    </element>
  </folder>
</archimate:model>`
}

// drawnLabel is a connection's label as drawn: where its text starts (x, with its anchor) and
// the baseline of each line, with the lines.
type drawnLabel struct {
	x, y   float64 // the text's x and the first line's baseline
	anchor string
	lines  []string
	path   string // the connection's line as drawn
}

// drawnLabels reads each connection's label and line from a rendered SVG.
func drawnLabels(t testing.TB, svg []byte) (map[string]*drawnLabel, [4]float64) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	out := map[string]*drawnLabel{}
	var view [4]float64
	cur := ""
	var tspan *drawnLabel
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out, view
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
			f := func(k string) float64 { v, _ := strconv.ParseFloat(attr[k], 64); return v }
			switch e.Name.Local {
			case "svg":
				for i, s := range strings.Fields(attr["viewBox"]) {
					view[i], _ = strconv.ParseFloat(s, 64)
				}
			case "g":
				if id := attr["data-id"]; id != "" {
					cur = ""
					if attr["data-kind"] == "connection" {
						cur = id
						out[cur] = &drawnLabel{}
					}
				}
			case "path":
				if cur != "" && out[cur].path == "" && attr["class"] != "mark" {
					out[cur].path = attr["d"]
				}
			case "text":
				if cur != "" {
					out[cur].x, out[cur].anchor = f("x"), attr["text-anchor"]
				}
			case "tspan":
				if cur != "" {
					if len(out[cur].lines) == 0 {
						out[cur].y = f("y")
					}
					tspan = out[cur]
				}
			}
		case xml.CharData:
			if tspan != nil {
				tspan.lines = append(tspan.lines, string(e))
				tspan = nil
			}
		case xml.EndElement:
			tspan = nil
		}
	}
}

// box is the rectangle the label's lines take, from how they are written.
func (l *drawnLabel) box(st style) [4]float64 {
	w := 0.0
	for _, s := range l.lines {
		w = math.Max(w, float64(textWidth(s, st)))
	}
	x := l.x
	switch l.anchor {
	case "middle":
		x -= w / 2
	case "end":
		x -= w
	}
	return [4]float64{x, l.y - ascent(st), w, lineHeight(st) * float64(len(l.lines))}
}

// TestView_ConnectionLabels: a connection's label is placed as Archi's locators place it (draw2d's
// ConnectionLocator MIDDLE with Archi's relative position and gap 5, ConnectionEndpointLocator
// with its 14 px along and 4 px off the line), and the line is not drawn behind it (Archi's
// default label strategy, clipped).
func TestView_ConnectionLabels(t *testing.T) {
	m, err := archixml.Load([]byte(labelsXML()))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := m.Object("v")
	svg := checkView(t, m, v)
	labels, _ := drawnLabels(t, svg)
	st := style{fontSize: defaultFontSize, font: defaultFont}
	w, h := float64(textWidth("serving", st)), lineHeight(st)
	hw, hh := float64(int(w)/2), float64(int(h)/2)
	want := map[string][4]float64{
		// the middle of the only segment, (120,27) to (300,27): (210, 27), the label centred
		"c0": {210 - hw, 27 - hh, w, h},
		// leaving the source's right side: 14 right of the end, 4 below the line
		"c1": {120 + 14, 127 + 4, w, h},
		// entering the target's left side: 14 left of the end, right-aligned there, 4 below
		"c2": {300 - 14 - w, 227 + 4, w, h},
		// leaving the source's bottom (60,355): transposed, 14 below the end, 4 right of the line
		"c3": {60 + 4, 355 + 14, w, h},
		// entering the target's top (660,500): 14 above the end, 4 right of the line
		"c4": {660 + 4, 500 - 14 - h, w, h},
		// three points: the middle one, the bendpoint (210, 800)
		"c5": {210 - hw, 800 - hh, w, h},
		// north: above the centred place by half its height and the gap of 5
		"c6": {210 - hw, 927 - hh - (hh + 5), w, h},
	}
	for id, wb := range want {
		l := labels[id]
		if l == nil || len(l.lines) == 0 {
			t.Errorf("%s: no label drawn", id)
			continue
		}
		if got := l.box(st); !nearBox(got, wb) {
			t.Errorf("%s: label at %v, want %v", id, got, wb)
		}
		// the line is not drawn behind the label: no piece of it crosses the label's box
		sub, _, _ := flatten(t, l.path)
		inner := [4]float64{wb[0] + 0.5, wb[1] + 0.5, wb[2] - 1, wb[3] - 1}
		for _, s := range sub {
			for i := 1; i < len(s); i++ {
				for k := 0; k <= 20; k++ {
					u := float64(k) / 20
					p := pt{s[i-1].x + (s[i].x-s[i-1].x)*u, s[i-1].y + (s[i].y-s[i-1].y)*u}
					if p.x > inner[0] && p.x < inner[0]+inner[2] && p.y > inner[1] && p.y < inner[1]+inner[3] {
						t.Errorf("%s: the line runs behind the label at %v", id, p)
						k, i = 21, len(s)
					}
				}
			}
		}
	}
}

// TestView_FrameHoldsLabels: a picture's frame holds every connection label whole, on a probe
// whose labels reach past its boxes and on every corpus view.
func TestView_FrameHoldsLabels(t *testing.T) {
	check := func(name string, m *archixml.Model, v archixml.Object) (labels, cut int) {
		svg, err := View(m, v.ID())
		if err != nil {
			t.Fatal(err)
		}
		ls, view := drawnLabels(t, svg)
		for id, l := range ls {
			if len(l.lines) == 0 {
				continue
			}
			labels++
			c, _ := m.Object(id)
			st := style{fontSize: defaultFontSize, font: defaultFont}
			st.applyFont(c.Attr("font"))
			b := l.box(st)
			if b[0] < view[0]-0.5 || b[1] < view[1]-0.5 || b[0]+b[2] > view[0]+view[2]+0.5 || b[1]+b[3] > view[1]+view[3]+0.5 {
				cut++
				t.Errorf("%s: view %q: label of %s at %v cut by the frame %v", name, v.Name(), id, b, view)
			}
		}
		return labels, cut
	}
	model := strings.Replace(labelsXML(), `name="serving"`, `name="a label much wider than the boxes it joins, on either side"`, -1)
	m, err := archixml.Load([]byte(model))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := m.Object("v")
	check("probe", m, v)
	labels, cut := 0, 0
	eachCorpusView(t, func(file string, m *archixml.Model, v archixml.Object) {
		l, c := check(file, m, v)
		labels, cut = labels+l, cut+c
	})
	t.Logf("%d connection labels on the corpus views, %d cut by the frame", labels, cut)
}

// TestWrap_Hyphens: a line breaks after a hyphen inside a word before it breaks the word (Java's
// line BreakIterator, under Archi's text flow), and only where the word does not fit.
func TestWrap_Hyphens(t *testing.T) {
	st := style{fontSize: defaultFontSize, font: defaultFont}
	wd := func(s string) int { return textWidth(s, st) }
	for _, c := range []struct {
		text  string
		width int
		want  []string
	}{
		{"Machine-Readable", wd("Machine-Readable"), []string{"Machine-Readable"}},
		{"Machine-Readable", wd("Machine-Readabl"), []string{"Machine-", "Readable"}},
		{"Artifact Machine-Readable name", wd("Machine-Rea"), []string{"Artifact", "Machine-", "Readable", "name"}},
		{"a Machine-Readable", wd("a Machine-"), []string{"a Machine-", "Readable"}},
		{"Multi-Step-Process", wd("Multi-Step-"), []string{"Multi-Step-", "Process"}},
		{"-flag", wd("-fla"), []string{"-fla", "g"}}, // no break after a leading hyphen: the word overflows and is broken
		{"Point-to-point link", wd("Point-to-point"), []string{"Point-to-point", "link"}},
	} {
		if got := wrap(c.text, c.width, st); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("wrap(%q, %d) = %q, want %q", c.text, c.width, got, c.want)
		}
	}
}

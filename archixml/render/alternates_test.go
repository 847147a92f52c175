package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// shapePaths reads, from a rendered SVG, the path data of every <path> and <rect> drawn for each
// diagram object (by id), in the order drawn.
func shapePaths(t testing.TB, svg []byte) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for id, shapes := range objectShapes(t, svg) {
		for _, attr := range shapes {
			switch attr["tag"] {
			case "path":
				out[id] = append(out[id], attr["d"])
			case "rect":
				f := func(k string) float64 { v, _ := strconv.ParseFloat(attr[k], 64); return v }
				out[id] = append(out[id], rectP(f("x"), f("y"), f("width"), f("height")))
			}
		}
	}
	return out
}

// flatten turns SVG path data (M L H V C A Z, absolute and relative, as the renderer writes them)
// into its subpaths' points: lines by their ends, curves sampled every 1/32 of their length.
// vertices are the points the data names (ends of segments, not samples).
// controls are the control points of the curves.
func flatten(t testing.TB, d string) (subpaths [][]pt, vertices, controls []pt) {
	t.Helper()
	var nums []float64
	var cmds []byte
	var args [][]float64
	for i := 0; i < len(d); {
		c := d[i]
		switch {
		case c == ' ' || c == ',':
			i++
		case strings.IndexByte("MLHVCAZmlhvcaz", c) >= 0:
			if len(cmds) > 0 {
				args = append(args, nums)
			}
			cmds, nums = append(cmds, c), nil
			i++
		default:
			j := i + 1
			for j < len(d) && (d[j] >= '0' && d[j] <= '9' || d[j] == '.') {
				j++
			}
			v, err := strconv.ParseFloat(d[i:j], 64)
			if err != nil {
				t.Fatalf("path %q: %v", d, err)
			}
			nums, i = append(nums, v), j
		}
	}
	args = append(args, nums)
	var cur, start pt
	var sub []pt
	add := func(p pt, vertex bool) {
		sub = append(sub, p)
		if vertex {
			vertices = append(vertices, p)
		}
		cur = p
	}
	for k, c := range cmds {
		a := args[k]
		rel := c >= 'a'
		at := func(x, y float64) pt {
			if rel {
				return pt{cur.x + x, cur.y + y}
			}
			return pt{x, y}
		}
		switch c | 0x20 {
		case 'm':
			if len(sub) > 0 {
				subpaths = append(subpaths, sub)
			}
			sub = nil
			add(at(a[0], a[1]), true)
			start = cur
			for i := 2; i+1 < len(a); i += 2 {
				add(at(a[i], a[i+1]), true)
			}
		case 'l':
			for i := 0; i+1 < len(a); i += 2 {
				add(at(a[i], a[i+1]), true)
			}
		case 'h':
			for _, v := range a {
				if rel {
					add(pt{cur.x + v, cur.y}, true)
				} else {
					add(pt{v, cur.y}, true)
				}
			}
		case 'v':
			for _, v := range a {
				if rel {
					add(pt{cur.x, cur.y + v}, true)
				} else {
					add(pt{cur.x, v}, true)
				}
			}
		case 'c':
			for i := 0; i+5 < len(a); i += 6 {
				p0, p1, p2, p3 := cur, at(a[i], a[i+1]), at(a[i+2], a[i+3]), at(a[i+4], a[i+5])
				controls = append(controls, p1, p2)
				for s := 1; s <= 32; s++ {
					u := float64(s) / 32
					w0, w1, w2, w3 := (1-u)*(1-u)*(1-u), 3*u*(1-u)*(1-u), 3*u*u*(1-u), u*u*u
					add(pt{w0*p0.x + w1*p1.x + w2*p2.x + w3*p3.x, w0*p0.y + w1*p1.y + w2*p2.y + w3*p3.y}, s == 32)
				}
			}
		case 'a':
			for i := 0; i+6 < len(a); i += 7 {
				p0, p1 := cur, at(a[i+5], a[i+6])
				for _, q := range arcPoints(p0, p1, a[i], a[i+1], a[i+3] != 0, a[i+4] != 0) {
					add(q, false)
				}
				add(p1, true)
			}
		case 'z':
			add(start, false)
		}
	}
	if len(sub) > 0 {
		subpaths = append(subpaths, sub)
	}
	return subpaths, vertices, controls
}

// arcPoints samples an SVG elliptical arc without rotation from p0 to p1 (the endpoint to centre
// conversion of the SVG specification's appendix), its end left out.
func arcPoints(p0, p1 pt, rx, ry float64, large, sweep bool) []pt {
	x1 := (p0.x - p1.x) / 2
	y1 := (p0.y - p1.y) / 2
	if l := x1*x1/(rx*rx) + y1*y1/(ry*ry); l > 1 {
		rx, ry = rx*math.Sqrt(l), ry*math.Sqrt(l)
	}
	num := rx*rx*ry*ry - rx*rx*y1*y1 - ry*ry*x1*x1
	k := math.Sqrt(math.Max(0, num/(rx*rx*y1*y1+ry*ry*x1*x1)))
	if large == sweep {
		k = -k
	}
	cx, cy := k*rx*y1/ry+(p0.x+p1.x)/2, -k*ry*x1/rx+(p0.y+p1.y)/2
	a0 := math.Atan2((p0.y-cy)/ry, (p0.x-cx)/rx)
	a1 := math.Atan2((p1.y-cy)/ry, (p1.x-cx)/rx)
	da := a1 - a0
	if sweep && da < 0 {
		da += 2 * math.Pi
	} else if !sweep && da > 0 {
		da -= 2 * math.Pi
	}
	var out []pt
	for s := 0; s < 32; s++ {
		a := a0 + da*float64(s)/32
		out = append(out, pt{cx + rx*math.Cos(a), cy + ry*math.Sin(a)})
	}
	return out
}

// distToOutline is how far p lies from the nearest segment of the subpaths.
func distToOutline(p pt, subpaths [][]pt) float64 {
	best := math.Inf(1)
	for _, s := range subpaths {
		for i := 1; i < len(s); i++ {
			a, b := s[i-1], s[i]
			dx, dy := b.x-a.x, b.y-a.y
			u := 0.0
			if l := dx*dx + dy*dy; l > 0 {
				u = math.Max(0, math.Min(1, ((p.x-a.x)*dx+(p.y-a.y)*dy)/l))
			}
			best = math.Min(best, math.Hypot(p.x-a.x-u*dx, p.y-a.y-u*dy))
		}
	}
	return best
}

// extents is the box around the subpaths' points and the curves' control points.
func extents(subpaths [][]pt, controls []pt) [4]float64 {
	subpaths = append(subpaths, controls)
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, s := range subpaths {
		for _, p := range s {
			x0, y0, x1, y1 = math.Min(x0, p.x), math.Min(y0, p.y), math.Max(x1, p.x), math.Max(y1, p.y)
		}
	}
	return [4]float64{x0, y0, x1 - x0, y1 - y0}
}

// nearBox reports whether two boxes agree within 0.05 px (the float32 of Archi's figures).
func nearBox(a, b [4]float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > 0.05 {
			return false
		}
	}
	return true
}

// alternatesXML is a view with one alternate figure (type 1) of each class, 120 x 55 at x 100
// and y 100 + 100*i, each with a box above it (connected downwards to it) and one to its left
// (connected across to it), so that Archi's orthogonal anchor ends the lines at the middle of the
// figure's top and of its left side.
func alternatesXML(classes []string) string {
	var els, kids strings.Builder
	for i, c := range classes {
		y := 100 + 200*i
		fmt.Fprintf(&els, `    <element xsi:type="archimate:%s" name="%s" id="e%d"/>
    <element xsi:type="archimate:Node" name="top" id="t%d"/>
    <element xsi:type="archimate:Node" name="left" id="l%d"/>
    <element xsi:type="archimate:AssociationRelationship" id="rt%d" source="t%d" target="e%d"/>
    <element xsi:type="archimate:AssociationRelationship" id="rl%d" source="l%d" target="e%d"/>
`, c, c, i, i, i, i, i, i, i, i, i)
		fmt.Fprintf(&kids, `      <child xsi:type="archimate:DiagramObject" id="o%d" archimateElement="e%d" type="1">
        <bounds x="300" y="%d" width="120" height="55"/>
      </child>
      <child xsi:type="archimate:DiagramObject" id="ot%d" archimateElement="t%d">
        <bounds x="300" y="%d" width="120" height="55"/>
        <sourceConnection xsi:type="archimate:Connection" id="ct%d" source="ot%d" target="o%d" archimateRelationship="rt%d"/>
      </child>
      <child xsi:type="archimate:DiagramObject" id="ol%d" archimateElement="l%d">
        <bounds x="50" y="%d" width="120" height="55"/>
        <sourceConnection xsi:type="archimate:Connection" id="cl%d" source="ol%d" target="o%d" archimateRelationship="rl%d"/>
      </child>
`, i, i, y, i, i, y-100, i, i, i, i, i, i, y, i, i, i, i)
	}
	return `<?xml version="1.0" encoding="UTF-8"?>
<archimate:model xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:archimate="http://www.archimatetool.com/archimate" name="alternates" id="m">
  <folder name="Elements" id="f1" type="other">
` + els.String() + `  </folder>
  <folder name="Views" id="f2" type="diagrams">
    <element xsi:type="archimate:ArchimateDiagramModel" name="Alternates" id="v">
` + kids.String() + `    </element>
  </folder>
</archimate:model>`
}

// altCase is one alternate figure as Archi draws it in a box at (x, y) = (300, y), 120 x 55.
type altCase struct {
	class  string
	source string // the Archi class whose geometry the numbers are read from
	// the outline's corners, for figures made of straight lines (nil for curved ones)
	corners func(x, y float64) []pt
	// the box around the outline, for the curved ones
	box func(x, y float64) [4]float64
	// the extra lines drawn over the outline (bands, folds, slashes), as their vertices
	lines func(x, y float64) []pt
	// the sides whose middle the outline passes through, where Archi's orthogonal anchor ends
	// a straight connection from above ("top") or from the left ("left") on the drawn shape
	ends []string
}

func altCases() []altCase {
	rect := func(x, y float64) []pt { return []pt{{x, y}, {x + 120, y}, {x + 120, y + 55}, {x, y + 55}} }
	return []altCase{
		// ObjectFigure: TOP_MARGIN = 12, a line across at y + 12
		{class: "BusinessObject", source: "ObjectFigure", corners: rect,
			lines: func(x, y float64) []pt { return []pt{{x, y + 12}, {x + 120, y + 12}} }, ends: []string{"top", "left"}},
		{class: "DataObject", source: "ObjectFigure", corners: rect,
			lines: func(x, y float64) []pt { return []pt{{x, y + 12}, {x + 120, y + 12}} }, ends: []string{"top", "left"}},
		// ContractFigure: ObjectFigure's line and one at bottom - TOP_MARGIN
		{class: "Contract", source: "ContractFigure", corners: rect,
			lines: func(x, y float64) []pt { return []pt{{x, y + 12}, {x + 120, y + 12}, {x, y + 43}, {x + 120, y + 43}} }, ends: []string{"top", "left"}},
		// ProductFigure: (x, y+12) to (centre x, y+12) to (centre x, y)
		{class: "Product", source: "ProductFigure", corners: rect,
			lines: func(x, y float64) []pt { return []pt{{x, y + 12}, {x + 60, y + 12}, {x + 60, y}} }, ends: []string{"top", "left"}},
		// FunctionFigure.getFigurePath: y1 = y + h/5, y2 = y + h - h/5, the peak at x + w/2
		{class: "BusinessFunction", source: "FunctionFigure", corners: func(x, y float64) []pt {
			return []pt{{x, y + 55}, {x, y + 11}, {x + 60, y}, {x + 120, y + 11}, {x + 120, y + 55}, {x + 60, y + 44}}
		}, ends: []string{"top", "left"}},
		{class: "ApplicationFunction", source: "FunctionFigure", corners: func(x, y float64) []pt {
			return []pt{{x, y + 55}, {x, y + 11}, {x + 60, y}, {x + 120, y + 11}, {x + 120, y + 55}, {x + 60, y + 44}}
		}, ends: []string{"top", "left"}},
		// ArtifactFigure: FOLD_HEIGHT = 18
		{class: "Artifact", source: "ArtifactFigure", corners: func(x, y float64) []pt {
			return []pt{{x, y}, {x + 102, y}, {x + 120, y + 18}, {x + 120, y + 55}, {x, y + 55}}
		}, lines: func(x, y float64) []pt {
			return []pt{{x + 102, y}, {x + 120, y + 18}, {x + 102, y + 18}, {x + 120, y + 18}, {x + 102, y + 18}, {x + 102, y}}
		},
			ends: []string{"top", "left"}},
		// ParallelogramFigureDelegate: FLANGE = 16; the constraint's slash from x+16+20 to x+20
		{class: "Requirement", source: "ParallelogramFigureDelegate", corners: func(x, y float64) []pt {
			return []pt{{x + 16, y}, {x + 120, y}, {x + 104, y + 55}, {x, y + 55}}
		}, ends: []string{"top"}},
		{class: "Constraint", source: "ParallelogramFigureDelegate", corners: func(x, y float64) []pt {
			return []pt{{x + 16, y}, {x + 120, y}, {x + 104, y + 55}, {x, y + 55}}
		}, lines: func(x, y float64) []pt { return []pt{{x + 36, y}, {x + 20, y + 55}} }, ends: []string{"top"}},
		// DeviceFigure: the screen, a round rectangle (arcs 30) h - h/5 + 1 high; the stand from
		// (x + lineWidth, bottom) to x + INDENT(15) + 1 and w - INDENT at bottom - h/5 + 1
		{class: "Device", source: "DeviceFigure", box: func(x, y float64) [4]float64 { return [4]float64{x, y, 120, 45} },
			lines: func(x, y float64) []pt {
				return []pt{{x + 1, y + 55}, {x + 16, y + 45}, {x + 105, y + 45}, {x + 119, y + 55}}
			},
			ends: []string{"top", "left"}},
		// ValueFigure: the oval over the bounds
		{class: "Value", source: "ValueFigure", box: func(x, y float64) [4]float64 { return [4]float64{x, y, 120, 55} }, ends: []string{"top", "left"}},
		// CylinderFigureDelegate: ends a quarter of the width (30) wide, over the bounds
		{class: "Stakeholder", source: "CylinderFigureDelegate", box: func(x, y float64) [4]float64 { return [4]float64{x, y, 120, 55} }, ends: []string{"top", "left"}},
		// PrincipleFigure: the bounds shrunk by 1, the square of their height (53) centred
		{class: "Principle", source: "PrincipleFigure", box: func(x, y float64) [4]float64 { return [4]float64{x + 33, y + 1, 53, 53} }},
		// InteractionFigure: the bounds shrunk by 1, a box of ratio 1/0.86 (61 x 53) centred,
		// the diameter min(53, 61 * 0.85); x1 = 329 + 0, x2 = (int)(x1 + d * 1.14) = 388
		{class: "BusinessInteraction", source: "InteractionFigure", box: func(x, y float64) [4]float64 { return [4]float64{x + 29, y + 1.575, 59, 51.85} }},
		// ValueStreamFigure: notch and point min(h/2, w/2) = 27 deep, from x + lineWidth/2
		{class: "ValueStream", source: "ValueStreamFigure", corners: func(x, y float64) []pt {
			return []pt{{x + 0.5, y}, {x + 27, y + 27}, {x + 0.5, y + 55}, {x + 93, y + 55}, {x + 120, y + 27}, {x + 93, y}}
		}, ends: []string{"top"}},
		// MeaningFigure: the cloud on a grid of 12 x 7 units in a box of ratio 5/3 (91 x 55)
		// centred, (120 - 91) / 2 = 14 in
		{class: "Meaning", source: "MeaningFigure", box: func(x, y float64) [4]float64 { return [4]float64{x + 14, y, 91, 55} }},
	}
}

// TestView_AlternateFigures: each alternate figure (type 1) is drawn with Archi's geometry over
// its box (the numbers read from the Archi class named with each case), and a straight
// connection ends on the drawn shape wherever Archi's orthogonal anchor puts it on the outline.
func TestView_AlternateFigures(t *testing.T) {
	cases := altCases()
	var classes []string
	for _, c := range cases {
		classes = append(classes, c.class)
	}
	m, err := archixml.Load([]byte(alternatesXML(classes)))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := m.Object("v")
	svg := checkView(t, m, v)
	paths := shapePaths(t, svg)
	lines := drawnLines(t, svg)
	for i, c := range cases {
		t.Run(c.class, func(t *testing.T) {
			x, y := 300.0, float64(100+200*i)
			ds := paths[fmt.Sprintf("o%d", i)]
			if len(ds) == 0 {
				t.Fatal("no figure drawn")
			}
			outline, vertices, controls := flatten(t, ds[0])
			if c.corners != nil {
				want := c.corners(x, y)
				if fmt.Sprint(vertices) != fmt.Sprint(want) {
					t.Errorf("outline (%s) corners %v, want %v", c.source, vertices, want)
				}
			} else if got, want := extents(outline, controls), c.box(x, y); !nearBox(got, want) {
				t.Errorf("outline (%s) spans %v, want %v", c.source, got, want)
			}
			if c.lines != nil {
				var got []pt
				for _, d := range ds[1:] {
					_, vs, _ := flatten(t, d)
					got = append(got, vs...)
				}
				if want := c.lines(x, y); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("lines over the outline (%s) %v, want %v", c.source, got, want)
				}
			}
			for _, side := range c.ends {
				id := fmt.Sprintf("ct%d", i)
				if side == "left" {
					id = fmt.Sprintf("cl%d", i)
				}
				l := lines[id]
				if len(l) < 2 {
					t.Fatalf("connection %s not drawn", id)
				}
				end := l[len(l)-1]
				if d := distToOutline(end, outline); d > 0.5 {
					t.Errorf("the connection from the %s ends at %v, %.1f px from the figure's outline", side, end, d)
				}
			}
		})
	}
}

// TestView_CorpusAlternates: on every corpus view, each alternate figure Archi draws over its
// whole box (objects, contracts, products, functions, artifacts, requirements, constraints,
// values, stakeholders, value streams) spans its bounds, its outline meeting all four sides.
func TestView_CorpusAlternates(t *testing.T) {
	fills := map[string]bool{"object": true, "contract": true, "product": true, "function": true, "artifact": true,
		"requirement": true, "constraint": true, "value": true, "stakeholder": true, "valuestream": true}
	n := 0
	eachCorpusView(t, func(file string, m *archixml.Model, v archixml.Object) {
		var objs []archixml.Object
		for _, o := range v.DiagramObjects() {
			c, ok := o.Concept()
			if ok && o.Attr("type") == "1" && fills[iconOf[c.Class()]] {
				objs = append(objs, o)
			}
		}
		if len(objs) == 0 {
			return
		}
		svg, err := View(m, v.ID())
		if err != nil {
			t.Fatal(err)
		}
		paths := shapePaths(t, svg)
		for _, o := range objs {
			n++
			x, y, w, h := absBounds(o)
			ds := paths[o.ID()]
			if len(ds) == 0 {
				t.Errorf("%s: view %q: %s drawn with no figure", file, v.Name(), o.ID())
				continue
			}
			sub, _, controls := flatten(t, ds[0])
			got := extents(sub, controls)
			want := [4]float64{float64(x), float64(y), float64(w), float64(h)}
			if got[0]-want[0] > 0.5 || got[1] != want[1] || got[0]+got[2] != want[0]+want[2] || got[1]+got[3] != want[1]+want[3] {
				c, _ := o.Concept()
				t.Errorf("%s: view %q: %s (%s) drawn over %v, its box is %v", file, v.Name(), o.ID(), c.Class(), got, want)
			}
		}
	})
	if n == 0 {
		t.Fatal("no alternate figure in the corpus: the test proves nothing")
	}
	t.Logf("%d alternate figures checked", n)
}

package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// connShapes reads, from a rendered SVG, the shapes of each connection's <g> (line first, then
// its decorations), their attributes with the tag as "tag".
func connShapes(t testing.TB, svg []byte) map[string][]map[string]string {
	_, conns := svgShapes(t, svg)
	return conns
}

// TestView_Decorations: each relationship's line style and end decorations as Archi's connection
// figures draw them (com.archimatetool.editor.diagram.figures.connections.*ConnectionFigure, and
// diagram.LineConnectionFigure for plain connections). Each connection runs left to right, from
// x 120 to x 300; a decoration is given by its points relative to its end, x back along the line
// and y across it (negative upwards), as draw2d's templates scaled.
func TestView_Decorations(t *testing.T) {
	triangle := func(back, across float64) string { // PolygonDecoration, template (0,0) (-1,1) (-1,-1)
		return fmt.Sprint([]pt{{0, 0}, {-back, across}, {-back, -across}})
	}
	open := func(back, across float64) string { // PolylineDecoration
		return fmt.Sprint([]pt{{-back, across}, {0, 0}, {-back, -across}})
	}
	diamond := fmt.Sprint([]pt{{0, 0}, {-10, 6}, {-20, 0}, {-10, -6}}) // (0,0) (-2,2) (-4,0) (-2,-2) at scale 5, 3
	cases := []struct {
		class, attrs string // a relationship's class, or "plain" and a connection's type
		dash         string // stroke-dasharray, "" solid
		source       string // the source end's decoration and fill ("" none)
		target       string
	}{
		// CompositionConnectionFigure: PathDrawnPolygonDecoration, scale 5, 3, filled
		{class: "CompositionRelationship", source: diamond + " line"},
		// AggregationConnectionFigure: the same, white
		{class: "AggregationRelationship", source: diamond + " white"},
		// AssignmentConnectionFigure: BallEndpoint radius 3 (a 7 x 7 oval) and a PolygonDecoration 7, 3
		{class: "AssignmentRelationship", source: "ball", target: triangle(7, 3) + " line"},
		// RealizationConnectionFigure: setLineDash {2}, PolygonDecoration scale 10, 7, white
		{class: "RealizationRelationship", dash: "2", target: triangle(10, 7) + " white"},
		// ServingConnectionFigure: PolylineDecoration at its default scale 7, 3
		{class: "ServingRelationship", target: open(7, 3) + " none"},
		// AccessConnectionFigure: setLineDash {2}, PolylineDecorations 7, 3 by access type
		{class: "AccessRelationship", dash: "2", target: open(7, 3) + " none"},
		{class: "AccessRelationship", attrs: ` accessType="1"`, dash: "2", source: open(7, 3) + " none"},
		{class: "AccessRelationship", attrs: ` accessType="2"`, dash: "2"},
		{class: "AccessRelationship", attrs: ` accessType="3"`, dash: "2", source: open(7, 3) + " none", target: open(7, 3) + " none"},
		// InfluenceConnectionFigure: setLineDash {6, 3}, PolylineDecoration 7, 3
		{class: "InfluenceRelationship", dash: "6 3", target: open(7, 3) + " none"},
		// TriggeringConnectionFigure: PolygonDecoration 7, 3
		{class: "TriggeringRelationship", target: triangle(7, 3) + " line"},
		// FlowConnectionFigure: setLineDash {6, 3}, PolygonDecoration 7, 3
		{class: "FlowRelationship", dash: "6 3", target: triangle(7, 3) + " line"},
		// SpecializationConnectionFigure: PolygonDecoration scale 10, 7, white
		{class: "SpecializationRelationship", target: triangle(10, 7) + " white"},
		// AssociationConnectionFigure: a PolylineDecoration of template (0,0) (-1,-1) at scale 9, 4
		{class: "AssociationRelationship"},
		{class: "AssociationRelationship", attrs: ` directed="true"`, target: fmt.Sprint([]pt{{0, 0}, {-9, -4}}) + " none"},
		// LineConnectionFigure: dashed {4}, dotted {1, 4}; filled 10, 6, line 8, 5, hollow 10, 7,
		// checked filled, line, then hollow
		{class: "plain", attrs: ` type="1"`, target: triangle(10, 6) + " line"},
		{class: "plain", attrs: ` type="66"`, dash: "4", target: open(8, 5) + " none"},
		{class: "plain", attrs: ` type="20"`, dash: "1 4", target: triangle(10, 7) + " white"},
		{class: "plain", attrs: ` type="80"`, target: open(8, 5) + " none"},
		{class: "plain", attrs: ` type="168"`, source: triangle(10, 6) + " line"},
		{class: "plain", attrs: ` type="160"`, source: open(8, 5) + " none"},
	}
	var els, kids strings.Builder
	for i, c := range cases {
		y := 100 * i
		fmt.Fprintf(&els, `    <element xsi:type="archimate:BusinessObject" name="s%d" id="s%d"/>
    <element xsi:type="archimate:BusinessProcess" name="t%d" id="t%d"/>
`, i, i, i, i)
		conn := fmt.Sprintf(`<sourceConnection xsi:type="archimate:DiagramModelConnection" id="c%d" source="ot%d" target="os%d"%s/>`, i, i, i, c.attrs)
		if c.class != "plain" {
			fmt.Fprintf(&els, `    <element xsi:type="archimate:%s" id="r%d" source="t%d" target="s%d"%s/>`+"\n", c.class, i, i, i, c.attrs)
			conn = fmt.Sprintf(`<sourceConnection xsi:type="archimate:Connection" id="c%d" source="ot%d" target="os%d" archimateRelationship="r%d"/>`, i, i, i, i)
		}
		fmt.Fprintf(&kids, `      <child xsi:type="archimate:DiagramObject" id="ot%d" archimateElement="t%d">
        <bounds x="0" y="%d" width="120" height="55"/>
        %s
      </child>
      <child xsi:type="archimate:DiagramObject" id="os%d" archimateElement="s%d">
        <bounds x="300" y="%d" width="120" height="55"/>
      </child>
`, i, i, y, conn, i, i, y)
	}
	model := `<?xml version="1.0" encoding="UTF-8"?>
<archimate:model xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:archimate="http://www.archimatetool.com/archimate" name="decorations" id="m">
  <folder name="Elements" id="f1" type="business">
` + els.String() + `  </folder>
  <folder name="Views" id="f2" type="diagrams">
    <element xsi:type="archimate:ArchimateDiagramModel" name="Decorations" id="v">
` + kids.String() + `    </element>
  </folder>
</archimate:model>`
	m, err := archixml.Load([]byte(model))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := m.Object("v")
	svg := checkView(t, m, v)
	shapes := connShapes(t, svg)
	for i, c := range cases {
		t.Run(fmt.Sprintf("%s%s", c.class, c.attrs), func(t *testing.T) {
			got := shapes[fmt.Sprintf("c%d", i)]
			if len(got) == 0 {
				t.Fatal("not drawn")
			}
			if got[0]["stroke-dasharray"] != c.dash {
				t.Errorf("dashes %q, want %q", got[0]["stroke-dasharray"], c.dash)
			}
			y := float64(100*i) + 27
			ends := map[string]string{}
			for _, s := range got[1:] {
				if s["tag"] == "circle" {
					if s["cx"] != "123" || s["r"] != "3.5" {
						t.Errorf("ball at %s radius %s, want 3 back from the source, radius 3.5", s["cx"], s["r"])
					}
					ends["source"] = "ball"
					continue
				}
				_, vs, _ := flatten(t, s["d"])
				// relative to the end the decoration is drawn at: the target at x 300, the source
				// at x 120 (a decoration there points left: x mirrored)
				end, sign := "target", 1.0
				if vs[0].x < 210 {
					end, sign = "source", -1.0
				}
				var rel []pt
				for _, p := range vs {
					if end == "target" {
						rel = append(rel, pt{p.x - 300 + 0, p.y - y + 0})
					} else {
						rel = append(rel, pt{sign*(p.x-120) + 0, -(p.y - y) + 0})
					}
				}
				fill := s["fill"]
				switch fill {
				case "#000000":
					fill = "line"
				case "#ffffff":
					fill = "white"
				}
				ends[end] = fmt.Sprint(rel) + " " + fill
			}
			if ends["source"] != c.source {
				t.Errorf("source end %q, want %q", ends["source"], c.source)
			}
			if ends["target"] != c.target {
				t.Errorf("target end %q, want %q", ends["target"], c.target)
			}
		})
	}
}

package render

import (
	"fmt"
	"strings"

	"github.com/archiplan/archiplan/archixml"
)

// showcaseXML builds the model of the golden test: one view with every element type in both its
// figures, every relationship type (access in its four types, a directed association), nesting in
// a group and in an element, a note, a diagram reference, a junction, bendpoints and custom
// colours and fonts. It is written as Archi writes a model, so that it is also a fixture Archi opens.
func showcaseXML() string {
	elems := map[string]*strings.Builder{}
	for _, ft := range archixml.TopFolderTypes {
		elems[ft] = &strings.Builder{}
	}
	var rels, view strings.Builder
	id := 0
	next := func(p string) string { id++; return fmt.Sprintf("%s-%d", p, id) }
	elem := func(class, name string, extra string) string {
		eid := next("e")
		fmt.Fprintf(elems[archixml.FolderFor(class)], `    <element xsi:type="archimate:%s" name="%s" id="%s"%s/>`+"\n", class, name, eid, extra)
		return eid
	}
	// diagram object id by element id, for the connections
	type dob struct{ id, el string }
	var objs []dob
	var conns = map[string][]string{} // source diagram object -> connection XML
	child := func(indent, el string, x, y, w, h int, attrs string, nested func(string) string) string {
		oid := next("o")
		objs = append(objs, dob{oid, el})
		inner := ""
		if nested != nil {
			inner = nested(oid)
		}
		return fmt.Sprintf(`%s<child xsi:type="archimate:DiagramObject" id="%s"%%TC:`+oid+`%%%s archimateElement="%s">`+"\n"+
			`%s  <bounds x="%d" y="%d" width="%d" height="%d"/>`+"\n%s%%CONN:%s%%%s</child>\n",
			indent, oid, attrs, el, indent, x, y, w, h, inner, oid, indent)
	}
	y := 20
	byClass := map[string]string{}
	objOf := map[string]string{}
	for row, layer := range [][]archixml.ConceptType{} {
		_, _ = row, layer
	}
	var layers [][]archixml.ConceptType
	last := ""
	for _, t := range archixml.ElementTypes {
		if t.Class == "Junction" || t.Class == "Grouping" {
			continue
		}
		if t.Folder != last {
			layers = append(layers, nil)
			last = t.Folder
		}
		layers[len(layers)-1] = append(layers[len(layers)-1], t)
	}
	for _, layer := range layers {
		x := 20
		for i, t := range layer {
			if i > 0 && i%9 == 0 {
				x = 20
				y += 70
			}
			eid := elem(t.Class, t.Label, "")
			byClass[t.Class] = eid
			view.WriteString(child("      ", eid, x, y, 120, 55, "", nil))
			objOf[eid] = objs[len(objs)-1].id
			x += 135
		}
		y += 70
	}
	// the alternate figures (type 1), a row of each
	y += 10
	x := 20
	for i, t := range archixml.ElementTypes {
		if t.Class == "Junction" || t.Class == "Grouping" {
			continue
		}
		if i > 0 && x > 1200 {
			x = 20
			y += 85
		}
		eid := byClass[t.Class]
		view.WriteString(child("      ", eid, x, y, 120, 70, ` type="1"`, nil))
		x += 135
	}
	y += 100
	// relationships of every type, in a column of pairs
	pair := func(rel, src, tgt, name, extra string, row int, bend bool) {
		a := elem(src, src+" "+fmt.Sprint(row), "")
		b := elem(tgt, tgt+" "+fmt.Sprint(row), "")
		rid := next("r")
		fmt.Fprintf(&rels, `    <element xsi:type="archimate:%s" name="%s" id="%s" source="%s" target="%s"%s/>`+"\n", rel, name, rid, a, b, extra)
		col, r := row%2, row/2
		ax, ay := 20+col*640, y+r*75
		view.WriteString(child("      ", a, ax, ay, 120, 55, "", nil))
		sa := objs[len(objs)-1].id
		view.WriteString(child("      ", b, ax+400, ay, 120, 55, "", nil))
		sb := objs[len(objs)-1].id
		cid := next("c")
		bp := ""
		if bend {
			bp = "\n" + `        <bendpoint startX="100" startY="-30" endX="-300" endY="-30"/>` + "\n" +
				`        <bendpoint startX="300" startY="-30" endX="-100" endY="-30"/>` + "\n      "
		}
		conns[sa] = append(conns[sa], fmt.Sprintf(`        <sourceConnection xsi:type="archimate:Connection" id="%s" source="%s" target="%s" archimateRelationship="%s">%s</sourceConnection>`+"\n", cid, sa, sb, rid, bp))
	}
	pair("CompositionRelationship", "ApplicationComponent", "ApplicationComponent", "composition", "", 0, false)
	pair("AggregationRelationship", "BusinessObject", "BusinessObject", "aggregation", "", 1, false)
	pair("AssignmentRelationship", "BusinessActor", "BusinessRole", "assignment", "", 2, false)
	pair("RealizationRelationship", "ApplicationComponent", "ApplicationService", "realization", "", 3, false)
	pair("ServingRelationship", "ApplicationService", "BusinessProcess", "serving", "", 4, false)
	pair("AccessRelationship", "BusinessProcess", "BusinessObject", "write access", "", 5, false)
	pair("AccessRelationship", "BusinessProcess", "BusinessObject", "read access", ` accessType="1"`, 6, false)
	pair("AccessRelationship", "BusinessProcess", "BusinessObject", "access", ` accessType="2"`, 7, false)
	pair("AccessRelationship", "BusinessProcess", "BusinessObject", "read/write access", ` accessType="3"`, 8, false)
	pair("InfluenceRelationship", "Goal", "Goal", "influence", ` strength="+"`, 9, false)
	pair("TriggeringRelationship", "BusinessEvent", "BusinessProcess", "triggering", "", 10, false)
	pair("FlowRelationship", "BusinessProcess", "BusinessProcess", "flow", "", 11, false)
	pair("SpecializationRelationship", "BusinessActor", "BusinessActor", "specialization", "", 12, false)
	pair("AssociationRelationship", "BusinessActor", "BusinessObject", "association", "", 13, false)
	pair("AssociationRelationship", "BusinessActor", "BusinessObject", "directed association", ` directed="true"`, 14, false)
	pair("FlowRelationship", "ApplicationProcess", "ApplicationProcess", "flow through bendpoints", "", 15, true)
	y += 8*75 + 30
	// a group with nested objects, an element holding another, a note, a reference, a junction
	g := next("o")
	n1 := elem("Node", "Server", "")
	n2 := elem("SystemSoftware", "Database", "")
	n3 := elem("Device", "Router", "")
	fmt.Fprintf(&view, `      <child xsi:type="archimate:Group" id="%s" name="A group, nested">
        <bounds x="20" y="%d" width="560" height="230"/>
%s      </child>
`, g, y, child("        ", n1, 20, 40, 300, 150, ` fillColor="#a0c8ff" fontColor="#1a237e" font="1|Georgia|11.0|1|WINDOWS|1|0|0|0|0|700|0|0|0|0|3|2|1|34|Georgia" textAlignment="1"`,
		func(string) string {
			return child("          ", n2, 20, 40, 120, 55, ` alpha="160" lineColor="#ff0000"`, nil)
		})+child("        ", n3, 360, 60, -1, -1, ` textPosition="1"`, nil))
	note := next("o")
	fmt.Fprintf(&view, `      <child xsi:type="archimate:Note" id="%s" textAlignment="1">
        <bounds x="620" y="%d" width="260" height="100"/>
        <content>A note, with its text wrapped inside the note as Archi wraps it.
And a second paragraph.</content>
      </child>
`, note, y)
	ref := next("o")
	fmt.Fprintf(&view, `      <child xsi:type="archimate:DiagramModelReference" id="%s" model="v-showcase">
        <bounds x="620" y="%d" width="160" height="55"/>
      </child>
`, ref, y+130)
	// a junction between an event and two processes, and a Grouping holding an element
	ev := elem("BusinessEvent", "Order received", "")
	view.WriteString(child("      ", ev, 900, y, 120, 55, "", nil))
	evo := objs[len(objs)-1].id
	j := elem("Junction", "", "")
	view.WriteString(child("      ", j, 1080, y+20, -1, -1, "", nil))
	jo := objs[len(objs)-1].id
	p1 := elem("BusinessProcess", "Check stock", "")
	view.WriteString(child("      ", p1, 1140, y-40, 120, 55, "", nil))
	p1o := objs[len(objs)-1].id
	p2 := elem("BusinessProcess", "Bill customer", "")
	view.WriteString(child("      ", p2, 1140, y+40, 120, 55, "", nil))
	p2o := objs[len(objs)-1].id
	link := func(src, srco, tgt, tgto, attrs string) {
		rid := next("r")
		fmt.Fprintf(&rels, `    <element xsi:type="archimate:TriggeringRelationship" id="%s" source="%s" target="%s"/>`+"\n", rid, src, tgt)
		conns[srco] = append(conns[srco], fmt.Sprintf(`        <sourceConnection xsi:type="archimate:Connection" id="%s" source="%s" target="%s" archimateRelationship="%s"%s/>`+"\n", next("c"), srco, tgto, rid, attrs))
	}
	link(ev, evo, j, jo, ` lineColor="#0000ff" lineWidth="2"`)
	link(j, jo, p1, p1o, "")
	link(j, jo, p2, p2o, "")
	gr := elem("Grouping", "A Grouping", "")
	inside := elem("WorkPackage", "Nested in a Grouping", "")
	view.WriteString(child("      ", gr, 900, y+110, 360, 120, "", func(string) string {
		return child("        ", inside, 20, 40, 150, 55, ` fillColor="#ffd8a8"`, nil)
	}))
	out := view.String()
	incoming := map[string][]string{}
	for _, list := range conns {
		for _, c := range list {
			var cid, tgt string
			fmt.Sscanf(c[strings.Index(c, `id="`):], `id=%q`, &cid)
			fmt.Sscanf(c[strings.Index(c, `target="`):], `target=%q`, &tgt)
			incoming[tgt] = append(incoming[tgt], cid)
		}
	}
	for _, o := range objs {
		out = strings.Replace(out, "%CONN:"+o.id+"%", strings.Join(conns[o.id], ""), 1)
		tc := ""
		if len(incoming[o.id]) > 0 {
			tc = ` targetConnections="` + strings.Join(incoming[o.id], " ") + `"`
		}
		out = strings.Replace(out, "%TC:"+o.id+"%", tc, 1)
	}
	var folders strings.Builder
	for _, ft := range archixml.TopFolderTypes[:7] {
		fmt.Fprintf(&folders, "  <folder name=\"%s\" id=\"f-%s\" type=\"%s\">\n%s  </folder>\n", ft, ft, ft, elems[ft].String())
	}
	return `<?xml version="1.0" encoding="UTF-8"?>
<archimate:model xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:archimate="http://www.archimatetool.com/archimate" name="Showcase" id="m-showcase" version="5.0.0">
` + folders.String() + `  <folder name="Relations" id="f-relations" type="relations">
` + rels.String() + `  </folder>
  <folder name="Views" id="f-views" type="diagrams">
    <element xsi:type="archimate:ArchimateDiagramModel" name="Every figure" id="v-showcase">
` + out + `    </element>
  </folder>
</archimate:model>
`
}

// Package exchange writes an Archi model (archixml) in the Open Group's ArchiMate Model Exchange
// File Format (namespace http://www.opengroup.org/xsd/archimate/3.0/, valid against
// archimate3_Diagram.xsd), following the mapping of Archi's own exporter
// (org.opengroup.archimate.xmlexchange, read, not copied). It knows nothing of git.
//
// Specializations (profiles) are written as Archi's exporter writes them: a property of the
// definition "specialization" holding the specialization's name (Import reads them back).
// What the format cannot hold of an Archi model, and so an export loses: sketch and canvas views,
// the specializations' images and those no concept has, Archi's alternate figures, text alignment and
// position, gradients, icons and label expressions, the connection router, and the folders'
// properties. Styles are written only where the model sets them (Archi writes its default
// colours and font too), so that an import gives back the defaults, not fixed copies of them.
package exchange

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/internal/diagram"
	"github.com/archiplan/archiplan/archixml/render"
)

// Namespace is the exchange format's XML namespace (ArchiMate 3.0, 3.1 and 3.2 files share it).
const Namespace = "http://www.opengroup.org/xsd/archimate/3.0/"

// SchemaLocation is where the schema a file with views follows is published.
const SchemaLocation = "http://www.opengroup.org/xsd/archimate/3.1/archimate3_Diagram.xsd"

// ErrExport means the model holds something the format cannot be written from.
var ErrExport = errors.New("cannot export")

// elementOrder is the order Archi's exporter writes elements in: by their top folder.
var elementOrder = []string{"strategy", "business", "application", "technology", "motivation", "implementation_migration", "other"}

// viewpoints maps Archi's viewpoint ids to the exchange format's names (an unlisted one is left
// out, as Archi's exporter does).
var viewpoints = map[string]string{
	"organization": "Organization", "information_structure": "Information Structure", "technology": "Technology",
	"layered": "Layered", "physical": "Physical", "product": "Product", "application_structure": "Application Structure",
	"application_usage": "Application Usage", "technology_usage": "Technology Usage",
	"business_process_cooperation": "Business Process Cooperation", "application_cooperation": "Application Cooperation",
	"service_realization": "Service Realization", "implementation_deployment": "Implementation and Deployment",
	"goal_realization": "Goal Realization", "requirements_realization": "Requirements Realization",
	"motivation": "Motivation", "strategy": "Strategy", "capability": "Capability Map",
	"outcome_realization": "Outcome Realization", "resource": "Resource Map", "project": "Project", "migration": "Migration",
}

// TypeName is the exchange format's name of an Archi class: its class without "Relationship" for
// relationships, AndJunction/OrJunction for junctions.
func TypeName(o archixml.Object) string {
	c := o.Class()
	if c == "Junction" {
		if o.Attr("type") == "or" {
			return "OrJunction"
		}
		return "AndJunction"
	}
	return strings.TrimSuffix(c, "Relationship")
}

// writer writes XML text with the few escapes the format needs, buffered.
type writer struct {
	w   *bufio.Writer
	err error
}

func (x *writer) s(parts ...string) {
	for _, p := range parts {
		if x.err == nil {
			_, x.err = x.w.WriteString(p)
		}
	}
}

// esc escapes text and attribute values: markup, quotes, and the line ends and tabs that an
// attribute would otherwise lose.
func esc(s string) string {
	if !strings.ContainsAny(s, "<>&\"\r\n\t") {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '"':
			b.WriteString("&quot;")
		case '\r':
			b.WriteString("&#xD;")
		case '\n':
			b.WriteString("&#xA;")
		case '\t':
			b.WriteString("&#x9;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// id is an identifier the format accepts (an xs:ID cannot start with a digit: Archi's exporter
// prefixes "id-", as it does here).
func id(s string) string {
	if s == "" || s[0] >= '0' && s[0] <= '9' || s[0] == '-' || s[0] == '.' {
		return "id-" + s
	}
	return s
}

// Export writes the model in the exchange format.
func Export(m *archixml.Model, out io.Writer) error {
	x := &writer{w: bufio.NewWriterSize(out, 64<<10)}
	l := listsOf(m)
	props := propertyDefs(m, l)
	x.s(`<?xml version="1.0" encoding="UTF-8"?>`, "\n",
		`<model xmlns="`, Namespace, `" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="`,
		Namespace, ` `, SchemaLocation, `" identifier="`, esc(id(m.ID())), `">`, "\n")
	x.s("  <name>", esc(m.Name()), "</name>\n")
	if p := m.Purpose(); p != "" {
		x.s("  <documentation>", esc(p), "</documentation>\n")
	}
	x.properties("  ", m.Root().Properties(), props)

	x.elements(m, l, props)
	x.relationships(m, l, props)
	x.organizations(m, l)
	x.propertyDefinitions(props)

	var views []archixml.Object
	for _, v := range l.views {
		if written(v) {
			views = append(views, v)
		}
	}
	if len(views) > 0 {
		x.s("  <views>\n    <diagrams>\n")
		for _, v := range views {
			if err := x.view(m, v, props); err != nil {
				return err
			}
		}
		x.s("    </diagrams>\n  </views>\n")
	}
	x.s("</model>\n")
	if x.err != nil {
		return x.err
	}
	return x.w.Flush()
}

// elements writes the model's elements, by top folder as Archi orders them.
func (x *writer) elements(m *archixml.Model, l lists, props *propDefs) {
	byTop := map[string][]archixml.Object{}
	for _, e := range l.elements {
		byTop[e.TopFolderType()] = append(byTop[e.TopFolderType()], e)
	}
	first := true
	for _, top := range elementOrder {
		for _, e := range byTop[top] {
			if first {
				x.s("  <elements>\n")
				first = false
			}
			x.s(`    <element identifier="`, esc(id(e.ID())), `" xsi:type="`, TypeName(e), `">`, "\n")
			x.s("      <name>", esc(e.Name()), "</name>\n")
			x.doc("      ", e.Documentation())
			x.properties("      ", e.Properties(), props, specializations(m, e)...)
			x.s("    </element>\n")
		}
	}
	if !first {
		x.s("  </elements>\n")
	}
}

// relationships writes the model's relationships, each with the attributes of its kind.
func (x *writer) relationships(m *archixml.Model, l lists, props *propDefs) {
	if rels := l.rels; len(rels) > 0 {
		x.s("  <relationships>\n")
		for _, r := range rels {
			x.s(`    <relationship identifier="`, esc(id(r.ID())), `" source="`, esc(id(r.SourceID())), `" target="`,
				esc(id(r.TargetID())), `" xsi:type="`, TypeName(r), `"`)
			switch r.Class() {
			case "InfluenceRelationship":
				if s := r.Attr("strength"); s != "" {
					x.s(` modifier="`, esc(s), `"`)
				}
			case "AccessRelationship":
				x.s(` accessType="`, accessType(r.Attr("accessType")), `"`)
			case "AssociationRelationship":
				if r.Attr("directed") == "true" {
					x.s(` isDirected="true"`)
				}
			}
			name, doc, ps, specs := r.Name(), r.Documentation(), r.Properties(), specializations(m, r)
			if name == "" && doc == "" && len(ps) == 0 && len(specs) == 0 {
				x.s("/>\n")
				continue
			}
			x.s(">\n")
			if name != "" {
				x.s("      <name>", esc(name), "</name>\n")
			}
			x.doc("      ", doc)
			x.properties("      ", ps, props, specs...)
			x.s("    </relationship>\n")
		}
		x.s("  </relationships>\n")
	}
}

// propertyDefinitions writes the definitions of the property keys used (and of Specialization,
// when a concept has one).
func (x *writer) propertyDefinitions(props *propDefs) {
	if len(props.order) > 0 || props.specialization {
		x.s("  <propertyDefinitions>\n")
		for _, k := range props.order {
			x.s(`    <propertyDefinition identifier="`, props.ids[k], `" type="string">`, "\n      <name>", esc(k), "</name>\n    </propertyDefinition>\n")
		}
		if props.specialization {
			x.s(`    <propertyDefinition identifier="`, specializationDef, `" type="string">`, "\n      <name>Specialization</name>\n    </propertyDefinition>\n")
		}
		x.s("  </propertyDefinitions>\n")
	}
}

// accessType is the format's word for Archi's accessType attribute (absent: write, Archi's
// default).
func accessType(a string) string {
	switch a {
	case "1":
		return "Read"
	case "2":
		return "Access"
	case "3":
		return "ReadWrite"
	}
	return "Write"
}

func (x *writer) doc(indent, d string) {
	if d != "" {
		x.s(indent, "<documentation>", esc(d), "</documentation>\n")
	}
}

// propDefs gives each property key of the model one definition, in the order of first use; the
// specializations have one of their own.
type propDefs struct {
	ids            map[string]string
	order          []string
	specialization bool // a concept has a specialization
}

// specializationDef is the identifier of the property definition whose values name a concept's
// specializations, as Archi's exporter writes it and Import reads it.
const specializationDef = "specialization"

// specializations are the names of the specializations (profiles) of an element or relationship.
func specializations(m *archixml.Model, o archixml.Object) []string {
	var out []string
	for _, id := range o.ProfileIDs() {
		if p, ok := m.Object(id); ok && p.Name() != "" {
			out = append(out, p.Name())
		}
	}
	return out
}

// lists are the model's objects an export goes through more than once, each list found once (a
// walk of the model each time was a tenth of an export at 10,000 elements).
type lists struct{ elements, rels, views []archixml.Object }

func listsOf(m *archixml.Model) lists {
	return lists{m.Elements(), m.Relationships(), m.Views()}
}

func propertyDefs(m *archixml.Model, l lists) *propDefs {
	p := &propDefs{ids: map[string]string{}}
	add := func(ps []archixml.Property) {
		for _, pr := range ps {
			if _, ok := p.ids[pr.Key]; !ok && pr.Key != "" {
				p.order = append(p.order, pr.Key)
				p.ids[pr.Key] = "propid-" + strconv.Itoa(len(p.order))
			}
		}
	}
	add(m.Root().Properties())
	for _, kind := range [][]archixml.Object{l.elements, l.rels, l.views} {
		for _, o := range kind {
			add(o.Properties())
			p.specialization = p.specialization || o.Kind() != archixml.KindView && len(o.ProfileIDs()) > 0
		}
	}
	return p
}

// properties writes an object's properties, then its specializations' names.
func (x *writer) properties(indent string, ps []archixml.Property, defs *propDefs, specs ...string) {
	open := false
	for _, p := range ps {
		ref, ok := defs.ids[p.Key]
		if !ok {
			continue // a property without a key: the format cannot hold it
		}
		if !open {
			x.s(indent, "<properties>\n")
			open = true
		}
		x.s(indent, `  <property propertyDefinitionRef="`, ref, `">`, "\n", indent, "    <value>", esc(p.Value), "</value>\n", indent, "  </property>\n")
	}
	for _, s := range specs {
		if !open {
			x.s(indent, "<properties>\n")
			open = true
		}
		x.s(indent, `  <property propertyDefinitionRef="`, specializationDef, `">`, "\n", indent, "    <value>", esc(s), "</value>\n", indent, "  </property>\n")
	}
	if open {
		x.s(indent, "</properties>\n")
	}
}

// written says whether the view v is in an export: an ArchiMate view is; a sketch or canvas view,
// which the format has no place for, is not.
func written(v archixml.Object) bool { return v.Class() == "ArchimateDiagramModel" }

// Dropped are the views of m an export leaves out (sketch and canvas views), in the model's order,
// so that what writes an export can name them.
func Dropped(m *archixml.Model) []archixml.Object {
	var out []archixml.Object
	for _, v := range m.Views() {
		if !written(v) {
			out = append(out, v)
		}
	}
	return out
}

// organizations writes the folders as nested items, with the ids of what each holds.
func (x *writer) organizations(m *archixml.Model, l lists) {
	children := map[string][]archixml.Object{} // folder id -> its folders and concepts, in file order
	var tops []archixml.Object
	for _, kind := range [][]archixml.Object{m.Folders(), l.elements, l.rels, l.views} {
		for _, o := range kind {
			if o.Kind() == archixml.KindView && !written(o) {
				continue // sketch and canvas views are not written
			}
			p, ok := o.Parent()
			if !ok || p.Kind() != archixml.KindFolder {
				if o.Kind() == archixml.KindFolder {
					tops = append(tops, o)
				}
				continue
			}
			children[p.ID()] = append(children[p.ID()], o)
		}
	}
	var write func(f archixml.Object, indent string)
	write = func(f archixml.Object, indent string) {
		x.s(indent, "<item>\n")
		if n := f.Name(); n != "" {
			x.s(indent, "  <label>", esc(n), "</label>\n")
		}
		x.doc(indent+"  ", f.Documentation())
		kids := children[f.ID()]
		for _, k := range kids {
			if k.Kind() == archixml.KindFolder {
				write(k, indent+"  ")
			}
		}
		for _, k := range kids {
			if k.Kind() != archixml.KindFolder {
				x.s(indent, `  <item identifierRef="`, esc(id(k.ID())), `"/>`, "\n")
			}
		}
		x.s(indent, "</item>\n")
	}
	open := false
	for _, f := range tops {
		if !hasContent(f, children) {
			continue
		}
		if !open {
			x.s("  <organizations>\n")
			open = true
		}
		write(f, "    ")
	}
	if open {
		x.s("  </organizations>\n")
	}
}

// hasContent: an empty folder tree is not written (an item needs a label or children).
func hasContent(f archixml.Object, children map[string][]archixml.Object) bool {
	for _, k := range children[f.ID()] {
		if k.Kind() != archixml.KindFolder || hasContent(k, children) {
			return true
		}
	}
	return false
}

// box is a diagram object's absolute bounds.
type box struct{ x, y, w, h int }

func (x *writer) view(m *archixml.Model, v archixml.Object, defs *propDefs) error {
	root := v.Diagram()
	l := layoutOf(m, root)
	x.s(`      <view identifier="`, esc(id(v.ID())), `" xsi:type="Diagram"`)
	if vp, ok := viewpoints[v.Attr("viewpoint")]; ok && vp != "" {
		x.s(` viewpoint="`, vp, `"`)
	}
	x.s(">\n        <name>", esc(v.Name()), "</name>\n")
	x.doc("        ", v.Documentation())
	x.properties("        ", v.Properties(), defs)
	for _, k := range root.Kids {
		if k.IsObject() {
			x.viewNode(m, k, "        ", l)
		}
	}
	x.viewConnections(root, l)
	x.s("      </view>\n")
	return x.err
}

// viewLayout is where a view's objects are: their absolute bounds, the object each is drawn in,
// and the offset that makes negative positions positive.
type viewLayout struct {
	boxes   map[string]box
	parents map[string]string
	dx, dy  int
}

// layoutOf is the layout of the view whose diagram is root; a box without a size has the size
// Archi draws it with.
func layoutOf(m *archixml.Model, root *diagram.Node) viewLayout {
	boxes := map[string]box{}
	parents := map[string]string{}
	minX, minY := 0, 0
	var place func(n *diagram.Node, ox, oy int)
	place = func(n *diagram.Node, ox, oy int) {
		for _, k := range n.Kids {
			if !k.IsObject() {
				continue
			}
			b := k.Kid("bounds")
			bx, by, bw, bh := 0, 0, -1, -1
			if b != nil {
				bx, by, bw, bh = num(b.Attr("x"), 0), num(b.Attr("y"), 0), num(b.Attr("width"), -1), num(b.Attr("height"), -1)
			}
			if bw < 0 || bh < 0 {
				class := k.Type
				if c, ok := m.Object(k.Concept()); ok {
					class = c.Class()
				}
				dw, dh := render.DefaultSize(class, num(k.Attr("type"), 0))
				if bw < 0 {
					bw = dw
				}
				if bh < 0 {
					bh = dh
				}
			}
			ab := box{ox + bx, oy + by, bw, bh}
			boxes[k.Attr("id")] = ab
			if n.IsObject() {
				parents[k.Attr("id")] = n.Attr("id")
			}
			minX, minY = min(minX, ab.x), min(minY, ab.y)
			place(k, ab.x, ab.y)
		}
	}
	place(root, 0, 0)
	return viewLayout{boxes: boxes, parents: parents, dx: -minX, dy: -minY}
}

// viewNode writes the node of diagram object n, with the nodes drawn in it.
func (x *writer) viewNode(m *archixml.Model, n *diagram.Node, indent string, l viewLayout) {
	nid := n.Attr("id")
	b := l.boxes[nid]
	geo := fmt.Sprintf(` x="%d" y="%d" w="%d" h="%d"`, b.x+l.dx, b.y+l.dy, b.w, b.h)
	switch n.Type {
	case "DiagramObject":
		x.s(indent, `<node identifier="`, esc(id(nid)), `" elementRef="`, esc(id(n.Concept())), `" xsi:type="Element"`, geo, ">\n")
		x.style(n, indent+"  ", false)
	case "Group":
		x.s(indent, `<node identifier="`, esc(id(nid)), `" xsi:type="Container"`, geo, ">\n")
		if name := n.Attr("name"); name != "" {
			x.s(indent, "  <label>", esc(name), "</label>\n")
		}
		if d := n.Kid("documentation"); d != nil && d.Text != "" {
			x.s(indent, "  <documentation>", esc(d.Text), "</documentation>\n")
		}
		x.style(n, indent+"  ", false)
	case "Note":
		x.s(indent, `<node identifier="`, esc(id(nid)), `" xsi:type="Label"`, geo, ">\n")
		if c := n.Kid("content"); c != nil && c.Text != "" {
			x.s(indent, "  <label>", esc(c.Text), "</label>\n")
		}
		x.style(n, indent+"  ", false)
	case "DiagramModelReference":
		x.s(indent, `<node identifier="`, esc(id(nid)), `" xsi:type="Label"`, geo, ">\n")
		ref, _ := m.Object(n.Attr("model"))
		if name := ref.Name(); ref.Valid() && name != "" {
			x.s(indent, "  <label>", esc(name), "</label>\n")
		}
		x.style(n, indent+"  ", false)
		if ref.Valid() && written(ref) {
			x.s(indent, `  <viewRef ref="`, esc(id(ref.ID())), `"/>`, "\n")
		}
	default:
		return // what the format has no node for
	}
	for _, k := range n.Kids {
		if k.IsObject() {
			x.viewNode(m, k, indent+"  ", l)
		}
	}
	x.s(indent, "</node>\n")
}

// viewConnections writes the view's connections in document order, but those Archi hides: an
// element's connection to the element it is drawn in, or that is drawn in it.
func (x *writer) viewConnections(root *diagram.Node, l viewLayout) {
	conns := []*diagram.Node{}
	root.Walk(func(n *diagram.Node) {
		if n.IsConnection() {
			conns = append(conns, n)
		}
	})
	isConn := map[string]bool{}
	for _, c := range conns {
		isConn[c.Attr("id")] = true
	}
	for _, c := range conns {
		src, tgt := c.Parent.Attr("id"), c.Attr("target")
		if c.Type == "Connection" && (l.parents[src] == tgt || l.parents[tgt] == src) && c.Parent.Type == "DiagramObject" {
			if t := objectByID(root, tgt); t != nil && t.Type == "DiagramObject" {
				continue
			}
		}
		if c.Type != "Connection" && c.Type != "DiagramModelConnection" && c.Type != "" {
			continue
		}
		x.s("        ", `<connection identifier="`, esc(id(c.Attr("id"))), `"`)
		if c.Type == "Connection" {
			x.s(` relationshipRef="`, esc(id(c.Concept())), `" xsi:type="Relationship"`)
		} else {
			x.s(` xsi:type="Line"`)
		}
		x.s(` source="`, esc(id(src)), `" target="`, esc(id(tgt)), `">`, "\n")
		x.style(c, "          ", true)
		if !isConn[src] && !isConn[tgt] {
			var bps []*diagram.Node
			for _, k := range c.Kids {
				if k.Tag == "bendpoint" {
					bps = append(bps, k)
				}
			}
			s, t := l.boxes[src], l.boxes[tgt]
			for i, k := range bps {
				px, py := bendpoint(s, t, i+1, len(bps), num(k.Attr("startX"), 0), num(k.Attr("startY"), 0), num(k.Attr("endX"), 0), num(k.Attr("endY"), 0))
				x.s("          ", fmt.Sprintf(`<bendpoint x="%d" y="%d"/>`, px+l.dx, py+l.dy), "\n")
			}
		}
		x.s("        </connection>\n")
	}
}

func objectByID(root *diagram.Node, id string) *diagram.Node {
	var found *diagram.Node
	root.Walk(func(n *diagram.Node) {
		if found == nil && n.IsObject() && n.Attr("id") == id {
			found = n
		}
	})
	return found
}

// bendpoint is where Archi puts the i-th of n bendpoints (DiagramModelUtils'
// getAbsoluteBendpointPositions): the weighted mix of the source's centre plus the start offset
// and the target's centre plus the end offset, weight i/(n+1), in integers.
func bendpoint(s, t box, i, n, startX, startY, endX, endY int) (int, int) {
	w := float64(i) / float64(n+1)
	px := float64(s.x+s.w/2+startX)*(1-w) + float64(t.x+t.w/2+endX)*w
	py := float64(s.y+s.h/2+startY)*(1-w) + float64(t.y+t.h/2+endY)*w
	return int(px), int(py)
}

// style writes the styles the model sets on an object or connection (none: no style element).
func (x *writer) style(n *diagram.Node, indent string, conn bool) {
	var parts []string
	lw := n.Attr("lineWidth")
	if conn && lw != "" && lw != "1" {
		lw = ` lineWidth="` + esc(lw) + `"`
	} else {
		lw = ""
	}
	if !conn {
		if c, ok := rgb(n.Attr("fillColor")); ok {
			parts = append(parts, "<fillColor"+c+alpha(n.Attr("alpha"))+"/>")
		}
	}
	if c, ok := rgb(n.Attr("lineColor")); ok {
		a := ""
		if !conn {
			if v, ok := n.Feature("lineAlpha"); ok {
				a = alpha(v)
			}
		}
		parts = append(parts, "<lineColor"+c+a+"/>")
	}
	font, fc := n.Attr("font"), n.Attr("fontColor")
	if f, ok := fontOf(font); ok || fc != "" {
		el := "<font" + f
		if c, ok := rgb(fc); ok {
			el += "><color" + c + "/></font>"
		} else {
			el += "/>"
		}
		parts = append(parts, el)
	}
	if len(parts) == 0 && lw == "" {
		return
	}
	x.s(indent, "<style", lw, ">")
	for _, p := range parts {
		x.s(p)
	}
	x.s("</style>\n")
}

// rgb reads Archi's #rrggbb as the format's r, g and b attributes.
func rgb(hex string) (string, bool) {
	if len(hex) != 7 || hex[0] != '#' {
		return "", false
	}
	v, err := strconv.ParseUint(hex[1:], 16, 32)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf(` r="%d" g="%d" b="%d"`, v>>16&0xff, v>>8&0xff, v&0xff), true
}

// alpha is Archi's 0-255 alpha as the format's percentage ("" for opaque or none).
func alpha(a string) string {
	v, err := strconv.Atoi(a)
	if err != nil || v < 0 || v >= 255 {
		return ""
	}
	return ` a="` + strconv.Itoa(int(float64(v)/255*100+0.5)) + `"`
}

// fontOf reads an SWT font string ("1|Arial|9.0|1|GTK|1|") as the format's name, size and
// style attributes.
func fontOf(s string) (string, bool) {
	f := strings.Split(s, "|")
	if len(f) < 4 || f[1] == "" {
		return "", false
	}
	size, err := strconv.ParseFloat(f[2], 64)
	if err != nil {
		return "", false
	}
	out := ` name="` + esc(f[1]) + `" size="` + strconv.Itoa(int(size+0.5)) + `"`
	style, _ := strconv.Atoi(f[3])
	var words []string
	if style&1 != 0 {
		words = append(words, "bold")
	}
	if style&2 != 0 {
		words = append(words, "italic")
	}
	if len(words) > 0 {
		out += ` style="` + strings.Join(words, " ") + `"`
	}
	return out, true
}

func num(s string, dflt int) int {
	v, err := strconv.Atoi(s)
	if err != nil {
		return dflt
	}
	return v
}

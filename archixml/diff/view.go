package diff

import (
	"fmt"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/internal/diagram"
)

// view compares a view present in both versions: its own fields, and its drawing object by object.
func (c *comparer) view(b, a archixml.Object) {
	f := c.own(b, a)
	var dia []Change
	bt, err1 := diagram.Parse(b.XML())
	at, err2 := diagram.Parse(a.XML())
	if err1 != nil || err2 != nil {
		f = append(f, Field{Name: "drawing"})
	} else {
		dia = c.drawing(bt, at)
	}
	if len(dia) > 0 {
		c.views[a.ID()] = true
		c.onView[a.ID()] = append(c.onView[a.ID()], dia...)
	}
	if len(f) == 0 && len(dia) == 0 {
		if sameXML(b.XML(), a.XML()) {
			return
		}
		f = append(f, Field{Name: "other"})
	}
	c.add(Change{Op: Changed, Kind: KindView, ID: a.ID(), Type: a.Class(), Name: a.Name(), Label: label(a), Fields: f, Diagram: dia})
}

// nodes lists a view's diagram objects and connections by id, in document order.
func nodes(root *diagram.Node) ([]*diagram.Node, map[string]*diagram.Node) {
	var list []*diagram.Node
	by := map[string]*diagram.Node{}
	root.Walk(func(n *diagram.Node) {
		if n.IsObject() || n.IsConnection() {
			id := n.Attr("id")
			if _, dup := by[id]; !dup {
				list = append(list, n)
				by[id] = n
			}
		}
	})
	return list, by
}

func (c *comparer) drawing(bt, at *diagram.Node) []Change {
	bl, bby := nodes(bt)
	al, aby := nodes(at)
	var out []Change
	for _, an := range al {
		id := an.Attr("id")
		bn, ok := bby[id]
		if !ok {
			out = append(out, c.nodeChange(Added, c.a, an, placeOf(an)))
			continue
		}
		if f := nodeFields(c, bn, an); len(f) > 0 {
			out = append(out, c.nodeChange(Changed, c.a, an, f))
		}
	}
	for _, bn := range bl {
		if _, ok := aby[bn.Attr("id")]; !ok {
			out = append(out, c.nodeChange(Removed, c.b, bn, placeOf(bn)))
		}
	}
	return out
}

// placeOf says where an added or removed object is: its bounds, or a connection's ends.
func placeOf(n *diagram.Node) []Field {
	if n.IsConnection() {
		return []Field{{Name: "source", After: n.Attr("source")}, {Name: "target", After: n.Attr("target")}}
	}
	return []Field{{Name: "bounds", After: boundsText(n)}}
}

func boundsText(n *diagram.Node) string {
	b := n.Kid("bounds")
	if b == nil {
		return ""
	}
	return fmt.Sprintf("%s,%s %sx%s", or(b.Attr("x"), "0"), or(b.Attr("y"), "0"), or(b.Attr("width"), "-1"), or(b.Attr("height"), "-1"))
}

func or(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}

// skipped attributes: identity and the bookkeeping Archi keeps of connections
var skipped = map[string]bool{"id": true, "targetConnections": true, "archimateElement": true,
	"archimateRelationship": true, "relationship": true, "source": true, "target": true}

// nodeFields compares one diagram object or connection in both versions, not what it holds.
func nodeFields(c *comparer, b, a *diagram.Node) []Field {
	var f []Field
	f = field(f, "class", b.Type, a.Type)
	if b.Concept() != a.Concept() {
		f = append(f, Field{"shows", c.endName(c.b, b.Concept()), c.endName(c.a, a.Concept())})
	}
	f = field(f, "parent", b.ContainerID(), a.ContainerID())
	if a.IsConnection() {
		f = field(f, "source", b.Attr("source"), a.Attr("source"))
		f = field(f, "target", b.Attr("target"), a.Attr("target"))
		f = field(f, "bendpoints", bendpoints(b), bendpoints(a))
	} else {
		bb, ab := b.Kid("bounds"), a.Kid("bounds")
		if bb != nil && ab != nil {
			f = field(f, "position", or(bb.Attr("x"), "0")+","+or(bb.Attr("y"), "0"), or(ab.Attr("x"), "0")+","+or(ab.Attr("y"), "0"))
			f = field(f, "size", or(bb.Attr("width"), "-1")+"x"+or(bb.Attr("height"), "-1"), or(ab.Attr("width"), "-1")+"x"+or(ab.Attr("height"), "-1"))
		} else {
			f = field(f, "bounds", boundsText(b), boundsText(a))
		}
	}
	keys := []string{}
	seen := map[string]bool{}
	for _, n := range []*diagram.Node{a, b} {
		for _, at := range n.Attrs {
			if !skipped[at.Key] && !seen[at.Key] {
				seen[at.Key] = true
				keys = append(keys, at.Key)
			}
		}
	}
	for _, k := range keys {
		f = field(f, k, b.Attr(k), a.Attr(k))
	}
	f = field(f, "content", text(b, "content"), text(a, "content"))
	f = field(f, "documentation", text(b, "documentation"), text(a, "documentation"))
	f = field(f, "features", parts(b, "feature"), parts(a, "feature"))
	f = field(f, "properties", parts(b, "property"), parts(a, "property"))
	return f
}

func text(n *diagram.Node, tag string) string {
	if k := n.Kid(tag); k != nil {
		return k.Text
	}
	return ""
}

func bendpoints(n *diagram.Node) string { return parts(n, "bendpoint") }

// parts writes the attributes of every child element with the tag, for comparison and reading.
func parts(n *diagram.Node, tag string) string {
	var s []string
	for _, k := range n.Kids {
		if k.Tag != tag {
			continue
		}
		var kv []string
		for _, a := range k.Attrs {
			kv = append(kv, a.Key+"="+a.Value)
		}
		s = append(s, strings.Join(kv, " "))
	}
	return strings.Join(s, "; ")
}

// nodeChange describes a diagram object or connection with its concept's type and name.
func (c *comparer) nodeChange(op Op, m *archixml.Model, n *diagram.Node, f []Field) Change {
	ch := Change{Op: op, ID: n.Attr("id"), Type: n.Type, Fields: f, Kind: KindDiagramObject}
	if n.IsConnection() {
		ch.Kind = KindConnection
	}
	if con, ok := m.Object(n.Concept()); ok {
		ch.Type, ch.Name, ch.Label = con.Class(), con.Name(), label(con)
	} else {
		switch n.Type {
		case "Note":
			ch.Name = firstLine(text(n, "content"))
			ch.Label = `note "` + ch.Name + `"`
		case "DiagramModelReference":
			if v, ok := m.Object(n.Attr("model")); ok {
				ch.Name = v.Name()
			}
			ch.Label = `reference to view "` + ch.Name + `"`
		default:
			ch.Name = n.Attr("name")
			ch.Label = strings.ToLower(n.Type) + ` "` + ch.Name + `"`
			if n.IsConnection() {
				ch.Label = "connection " + ch.ID
			}
		}
	}
	if n.IsConnection() {
		bm, am := c.b, c.a
		if op != Changed { // the ends are on the same side as the connection
			bm, am = m, m
		}
		for i := range ch.Fields {
			switch ch.Fields[i].Name {
			case "source", "target":
				ch.Fields[i].Before = c.objName(bm, ch.Fields[i].Before, n)
				ch.Fields[i].After = c.objName(am, ch.Fields[i].After, n)
			}
		}
	}
	return ch
}

// objName names the diagram object with the id by what it shows.
func (c *comparer) objName(m *archixml.Model, id string, _ *diagram.Node) string {
	if id == "" {
		return ""
	}
	o, ok := m.Object(id)
	if !ok {
		return id
	}
	if con, ok := o.Concept(); ok {
		return label(con)
	}
	if o.Name() != "" {
		return `"` + o.Name() + `"`
	}
	return id
}

func (c *comparer) diagramChange(op Op, m *archixml.Model, id string, o archixml.Object) Change {
	root, err := diagram.Parse(o.XML())
	if err != nil {
		return Change{Op: op, ID: id, Kind: kindOf(o)}
	}
	return c.nodeChange(op, m, root, placeOf(root))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40]) + "..."
	}
	return strings.TrimSpace(s)
}

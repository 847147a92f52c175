package archixml

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/beevik/etree"
)

// Routers are the connection routers of a view as Archi writes connectionRouterType: manual
// (bendpoints, Archi's default) is written as no attribute.
var Routers = map[string]string{"manual": "", "manhattan": "2"}

// SetConnectionRouter sets how a view routes its connections ("" removes the attribute: manual).
func (m *Model) SetConnectionRouter(viewID, value string) error {
	v, err := m.get(viewID, KindView)
	if err != nil {
		return err
	}
	if value == "" {
		m.removeAttr(v, "connectionRouterType")
		return nil
	}
	m.setAttr(v, "connectionRouterType", value)
	return nil
}

// MoveInto moves a diagram object, note or group (with what it holds and its connections) into
// another container on its view: a group or diagram object, or the view itself (parentID the
// view's id), at x, y relative to it (nil keeps the coordinate).
func (m *Model) MoveInto(id, parentID string, x, y *int) error {
	e, err := m.get(id, KindDiagramObject)
	if err != nil {
		return err
	}
	v := viewOf(e)
	var p *etree.Element
	if parentID == v.SelectAttrValue("id", "") {
		p = v
	} else if p, err = m.container(v, parentID); err != nil {
		return err
	}
	for q := p; q != nil; q = q.Parent() {
		if q == e {
			return fmt.Errorf("%q cannot go inside itself or what it holds: %w", id, ErrWrongKind)
		}
	}
	if e.Parent() != p {
		m.removeChild(e)
		m.forgetSource(e)
		m.insertChild(p, e)
		m.indexTree(e, KindDiagramObject)
	}
	return m.SetBounds(id, x, y, nil, nil)
}

// DuplicateView copies a view with everything drawn on it into the view's folder, as Archi's
// Duplicate does: new ids for the view, its objects and connections, the concepts shared. name ""
// names the copy as Archi does: the view's name and " (copy)". It returns the copy's id.
func (m *Model) DuplicateView(viewID, name string) (string, error) {
	v, err := m.get(viewID, KindView)
	if err != nil {
		return "", err
	}
	if name == "" {
		name = v.SelectAttrValue("name", "") + " (copy)"
	}
	if err := checkText(name); err != nil {
		return "", err
	}
	ids := map[string]string{}
	var walk func(e *etree.Element)
	walk = func(e *etree.Element) {
		if old := e.SelectAttrValue("id", ""); old != "" && kindOf(e) != kindNone {
			ids[old] = m.newID("duplicate", viewID, old)
		}
		for _, c := range e.ChildElements() {
			walk(c)
		}
	}
	walk(v)
	c := copyTree(v, ids)
	if a := c.SelectAttr("name"); a != nil {
		a.Value = name
	} else {
		c.CreateAttr("name", name)
	}
	m.add(v.Parent(), c, KindView)
	return ids[viewID], nil
}

// copyTree copies an element and what it holds, without the layout text between elements, with
// ids (and references to them: source, target, targetConnections) renamed by ids.
func copyTree(e *etree.Element, ids map[string]string) *etree.Element {
	c := etree.NewElement(e.Tag)
	c.Space = e.Space
	for _, a := range e.Attr {
		val := a.Value
		switch a.FullKey() {
		case "id", "source", "target":
			if n, ok := ids[val]; ok {
				val = n
			}
		case "targetConnections":
			f := strings.Fields(val)
			for i, x := range f {
				if n, ok := ids[x]; ok {
					f[i] = n
				}
			}
			val = strings.Join(f, " ")
		}
		c.CreateAttr(a.FullKey(), val)
	}
	kids := e.ChildElements()
	if len(kids) == 0 {
		if t := e.Text(); t != "" {
			c.SetText(t)
		}
	}
	for _, k := range kids {
		c.AddChild(copyTree(k, ids))
	}
	return c
}

// Bendpoint is one bendpoint of a connection as Archi keeps it: offsets from the centres of the
// connection's source and target (DiagramModelBendpoint).
type Bendpoint struct{ StartX, StartY, EndX, EndY int }

// SetBendpoints replaces a connection's bendpoints, written as Archi writes them (an offset of 0
// as no attribute).
func (m *Model) SetBendpoints(connID string, bps []Bendpoint) error {
	c, err := m.get(connID, KindConnection)
	if err != nil {
		return err
	}
	for _, old := range c.SelectElements("bendpoint") {
		m.removeChild(old)
	}
	for _, bp := range bps {
		e := etree.NewElement("bendpoint")
		for _, a := range []struct {
			k string
			v int
		}{{"startX", bp.StartX}, {"startY", bp.StartY}, {"endX", bp.EndX}, {"endY", bp.EndY}} {
			if a.v != 0 {
				e.CreateAttr(a.k, strconv.Itoa(a.v))
			}
		}
		m.insertChild(c, e)
	}
	return nil
}

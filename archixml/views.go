package archixml

import (
	"fmt"
	"strconv"

	"github.com/beevik/etree"
)

// DeleteView deletes a view with everything drawn on it, and removes the references to it
// (DiagramModelReference objects on other views, with their connections), as Archi's delete does.
func (m *Model) DeleteView(id string) (Deleted, error) {
	v, err := m.get(id, KindView)
	if err != nil {
		return Deleted{}, err
	}
	var refs []*etree.Element
	for _, other := range m.All(KindView) {
		if other.e == v {
			continue
		}
		m.walk(other.e, func(e *etree.Element) {
			if kindOf(e) == KindDiagramObject && e.SelectAttrValue("model", "") == id {
				refs = append(refs, e)
			}
		})
	}
	var del Deleted
	del.DiagramObjects, del.Connections = m.removeDiagramComponents(refs)
	m.removeChild(v)
	return del, nil
}

// ConnectOnView draws relationship relID on the view between every two diagram objects that show
// its ends and that no connection of it joins yet, as Archi draws a relationship whose ends are
// both shown. It returns the new connections' ids.
func (m *Model) ConnectOnView(viewID, relID string) ([]string, error) {
	v, err := m.get(viewID, KindView)
	if err != nil {
		return nil, err
	}
	rel, err := m.get(relID, KindRelationship)
	if err != nil {
		return nil, err
	}
	onView := func(concept string) []*etree.Element {
		var out []*etree.Element
		for _, e := range m.refsTo[concept] {
			if kindOf(e) == KindDiagramObject && viewOf(e) == v {
				out = append(out, e)
			}
		}
		return out
	}
	joined := map[[2]string]bool{}
	for _, c := range onViewConns(m, v, relID) {
		joined[[2]string{c.SelectAttrValue("source", ""), c.SelectAttrValue("target", "")}] = true
	}
	s, t := rel.SelectAttrValue("source", ""), rel.SelectAttrValue("target", "")
	var conns []string
	for _, so := range onView(s) {
		for _, to := range onView(t) {
			if s == t && so != to {
				continue // a relationship of an element with itself joins each object to itself
			}
			key := [2]string{so.SelectAttrValue("id", ""), to.SelectAttrValue("id", "")}
			if joined[key] {
				continue
			}
			joined[key] = true
			conns = append(conns, m.connect(so, to, relID))
		}
	}
	return conns, nil
}

func onViewConns(m *Model, v *etree.Element, relID string) []*etree.Element {
	var out []*etree.Element
	for _, e := range m.refsTo[relID] {
		if kindOf(e) == KindConnection && viewOf(e) == v {
			out = append(out, e)
		}
	}
	return out
}

// viewOf is the view a diagram component is drawn on, or nil.
func viewOf(e *etree.Element) *etree.Element {
	for p := e.Parent(); p != nil; p = p.Parent() {
		if kindOf(p) == KindView {
			return p
		}
	}
	return nil
}

// Named returns the elements or views of the class (an Archi class name) that have exactly this
// name, looking only in the top-level folder where objects of the class belong.
func (m *Model) Named(class, name string) []Object {
	top, ok := m.TopFolder(FolderFor(class))
	if !ok {
		return nil
	}
	var out []Object
	m.walk(top.e, func(e *etree.Element) {
		if e.Tag == "element" && e.SelectAttrValue("name", "") == name && (Object{m, e}).Class() == class {
			out = append(out, Object{m, e})
		}
	})
	return out
}

// default sizes Archi gives new notes and groups
var (
	noteSize  = Bounds{Width: 185, Height: 80}
	groupSize = Bounds{Width: 400, Height: 140}
)

// CreateNote puts a note with the text on a view (in parentID when given), at the bounds or on a
// free cell, and returns its id.
func (m *Model) CreateNote(viewID, parentID, text string, bounds *Bounds) (string, error) {
	if err := checkText(text); err != nil {
		return "", err
	}
	return m.addBox(viewID, parentID, "Note", bounds, noteSize, func(e *etree.Element) {
		if text != "" {
			c := etree.NewElement("content")
			c.SetText(text)
			e.AddChild(c)
		}
	}, "note", text)
}

// CreateGroup puts a group (a visual box) with the name on a view (in parentID when given) and
// returns its id.
func (m *Model) CreateGroup(viewID, parentID, name string, bounds *Bounds) (string, error) {
	if err := checkText(name); err != nil {
		return "", err
	}
	return m.addBox(viewID, parentID, "Group", bounds, groupSize, nil, "group", name)
}

func (m *Model) addBox(viewID, parentID, cls string, bounds *Bounds, size Bounds, fill func(*etree.Element), what, text string) (string, error) {
	v, err := m.get(viewID, KindView)
	if err != nil {
		return "", err
	}
	parent, err := m.container(v, parentID)
	if err != nil {
		return "", err
	}
	b := size
	if bounds != nil {
		b = *bounds
	} else {
		b = m.freeCell(parent)
		b.Width, b.Height = size.Width, size.Height
	}
	id := m.newID(what, viewID, parentID, text)
	name := ""
	if cls == "Group" {
		name = text
	}
	// Archi makes notes and groups left-aligned
	e := newEl("child", "xsi:type", "archimate:"+cls, "id", id, "name", name, "textAlignment", "1")
	e.AddChild(boundsEl(b))
	if fill != nil {
		fill(e)
	}
	m.add(parent, e, KindDiagramObject)
	return id, nil
}

// ConnectObjects draws a connection from one diagram object to another on the same view: of the
// relationship relID, whose ends the objects must show, or, with relID "", a plain connection,
// which must touch a note or a group (Archi cannot open an ArchiMate connection without a
// relationship). It returns the connection's id.
func (m *Model) ConnectObjects(sourceID, targetID, relID string) (string, error) {
	src, err := m.get(sourceID, KindDiagramObject)
	if err != nil {
		return "", fmt.Errorf("source: %w", err)
	}
	tgt, err := m.get(targetID, KindDiagramObject)
	if err != nil {
		return "", fmt.Errorf("target: %w", err)
	}
	if viewOf(src) != viewOf(tgt) {
		return "", fmt.Errorf("%q and %q are on different views: %w", sourceID, targetID, ErrWrongKind)
	}
	if relID == "" {
		if !plainEnd(src) && !plainEnd(tgt) {
			return "", fmt.Errorf("a connection without a relationship must touch a note or a group: %w", ErrNotAllowed)
		}
		return m.connect(src, tgt, ""), nil
	}
	rel, err := m.get(relID, KindRelationship)
	if err != nil {
		return "", err
	}
	if src.SelectAttrValue("archimateElement", "") != rel.SelectAttrValue("source", "") ||
		tgt.SelectAttrValue("archimateElement", "") != rel.SelectAttrValue("target", "") {
		return "", fmt.Errorf("the objects do not show the ends of relationship %q: %w", relID, ErrWrongKind)
	}
	return m.connect(src, tgt, relID), nil
}

func plainEnd(e *etree.Element) bool {
	c := class(e)
	return c == "Note" || c == "Group"
}

// RemoveFromView removes a diagram object (with what it holds) or a connection from its view, and
// every connection attached to what goes; the concepts stay in the model.
func (m *Model) RemoveFromView(id string) (Deleted, error) {
	e, err := m.get(id, KindDiagramObject, KindConnection)
	if err != nil {
		return Deleted{}, err
	}
	var del Deleted
	del.DiagramObjects, del.Connections = m.removeDiagramComponents([]*etree.Element{e})
	return del, nil
}

// SetBounds moves or resizes a diagram object: the values given replace those it has.
func (m *Model) SetBounds(id string, x, y, width, height *int) error {
	e, err := m.get(id, KindDiagramObject)
	if err != nil {
		return err
	}
	b := e.SelectElement("bounds")
	if b == nil {
		cur := Bounds{Width: -1, Height: -1}
		b = boundsEl(cur)
		m.insertChild(e, b)
	}
	for _, kv := range []struct {
		key string
		v   *int
	}{{"x", x}, {"y", y}, {"width", width}, {"height", height}} {
		if kv.v != nil {
			m.setAttr(b, kv.key, strconv.Itoa(*kv.v))
		}
	}
	return nil
}

// Style attributes of diagram objects and connections, as Archi names them.
var styleAttrs = map[string]bool{"fillColor": true, "lineColor": true, "fontColor": true, "font": true,
	"textAlignment": true, "textPosition": true}

// SetStyle sets one style attribute (fillColor, lineColor, fontColor, font, textAlignment,
// textPosition) of a diagram object or connection; an empty value removes it (Archi's default).
func (m *Model) SetStyle(id, attr, value string) error {
	e, err := m.get(id, KindDiagramObject, KindConnection)
	if err != nil {
		return err
	}
	if !styleAttrs[attr] {
		return fmt.Errorf("%q is no style attribute: %w", attr, ErrUnknownType)
	}
	if kindOf(e) == KindConnection && (attr == "fillColor" || attr == "textAlignment") {
		return fmt.Errorf("a connection has no %s: %w", attr, ErrWrongKind)
	}
	if err := checkText(value); err != nil {
		return err
	}
	if value == "" {
		m.removeAttr(e, attr)
		return nil
	}
	m.setAttr(e, attr, value)
	return nil
}

func itoa(i int) string { return strconv.Itoa(i) }

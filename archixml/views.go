package archixml

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/beevik/etree"
)

// CreateView creates an ArchiMate view in the folder (the Views folder when folderID is empty),
// with an optional viewpoint ("layered", "application_cooperation", ...), and returns its id.
func (m *Model) CreateView(name, folderID, viewpoint string) (string, error) {
	if err := checkText(name); err != nil {
		return "", err
	}
	if err := checkText(viewpoint); err != nil {
		return "", err
	}
	f, err := m.folderIn(FolderDiagrams, folderID)
	if err != nil {
		return "", err
	}
	id := m.newID("view", name)
	m.add(f, newEl("element", "xsi:type", "archimate:ArchimateDiagramModel", "name", name, "id", id,
		"viewpoint", viewpoint), KindView)
	return id, nil
}

// removeDiagramComponents removes diagram objects and connections, everything they hold, and
// every connection that ends at anything removed, keeping targetConnections true. It returns the
// ids of the objects and connections removed.
func (m *Model) removeDiagramComponents(start []*etree.Element) (objs, conns []string) {
	if len(start) == 0 {
		return nil, nil
	}
	gone := map[string]bool{}
	var tops []*etree.Element
	views := map[*etree.Element]bool{}
	var mark func(e *etree.Element)
	mark = func(e *etree.Element) {
		id := e.SelectAttrValue("id", "")
		if gone[id] {
			return
		}
		gone[id] = true
		if kindOf(e) == KindConnection {
			conns = append(conns, id)
		} else {
			objs = append(objs, id)
		}
		for _, t := range e.Child {
			if c, ok := t.(*etree.Element); ok && (c.Tag == "child" || c.Tag == "sourceConnection") {
				mark(c)
			}
		}
	}
	for _, e := range start {
		if !gone[e.SelectAttrValue("id", "")] {
			tops = append(tops, e)
			mark(e)
		}
		if v, ok := (Object{m, e}).View(); ok {
			views[v.e] = true
		}
	}
	// connections ending at something removed go too, until nothing more is reached
	for changed := true; changed; {
		changed = false
		for v := range views {
			for _, c := range (Object{m, v}).Connections() {
				id := c.ID()
				if !gone[id] && (gone[c.SourceID()] || gone[c.TargetID()]) {
					tops = append(tops, c.e)
					mark(c.e)
					changed = true
				}
			}
		}
	}
	// what stays must not list removed connections as arriving
	for v := range views {
		m.walk(v, func(e *etree.Element) {
			if gone[e.SelectAttrValue("id", "")] {
				return
			}
			tc := e.SelectAttr("targetConnections")
			if tc == nil {
				return
			}
			var keep []string
			for _, c := range strings.Fields(tc.Value) {
				if !gone[c] {
					keep = append(keep, c)
				}
			}
			if len(keep) == 0 {
				m.removeAttr(e, "targetConnections")
			} else if j := strings.Join(keep, " "); j != tc.Value {
				m.setAttr(e, "targetConnections", j)
			}
		})
	}
	for _, e := range tops {
		if p := e.Parent(); p != nil && !gone[p.SelectAttrValue("id", "")] {
			m.removeChild(e)
		}
	}
	return objs, conns
}

// DefaultSize is the size Archi gives a new element on a view, and the size of an object whose
// bounds say -1 (Archi's "default").
var DefaultSize = Bounds{Width: 120, Height: 55}

// AddToView puts an element on a view at the bounds given, or, with nil bounds, on the first free
// cell of a grid (rows of 10 cells, 144 by 80, from the top left). It draws a connection for every
// relationship between the element and an element already on the view, and returns the new diagram
// object's id and the connections' ids.
func (m *Model) AddToView(viewID, elementID string, bounds *Bounds) (string, []string, error) {
	return m.AddToViewIn(viewID, "", elementID, bounds)
}

// AddToViewIn is AddToView nesting the new object in a diagram object or group of the view
// (parentID; "" for the view itself), with bounds relative to it.
func (m *Model) AddToViewIn(viewID, parentID, elementID string, bounds *Bounds) (string, []string, error) {
	return m.addToView(viewID, parentID, elementID, bounds, true)
}

// AddToViewAlone is AddToViewIn drawing no connection: for plans that draw their own.
func (m *Model) AddToViewAlone(viewID, parentID, elementID string, bounds *Bounds) (string, error) {
	id, _, err := m.addToView(viewID, parentID, elementID, bounds, false)
	return id, err
}

func (m *Model) addToView(viewID, parentID, elementID string, bounds *Bounds, connect bool) (string, []string, error) {
	v, err := m.get(viewID, KindView)
	if err != nil {
		return "", nil, err
	}
	if class(v) != "ArchimateDiagramModel" {
		return "", nil, fmt.Errorf("view %q is %s, which cannot show ArchiMate elements: %w", viewID, Article(TypeWords(class(v))), ErrWrongKind)
	}
	if _, err := m.get(elementID, KindElement); err != nil {
		return "", nil, err
	}
	parent, err := m.container(v, parentID)
	if err != nil {
		return "", nil, err
	}
	b := m.typicalSize(v, elementID)
	switch {
	case bounds != nil:
		b = *bounds
	case parentID == "":
		if holder, near, ok := m.placeInHolder(v, elementID, b); ok {
			parent, b = holder, near
		} else if near, ok := m.placeNear(parent, elementID, b, nil); ok {
			b = near
		} else {
			b = m.freeCellSized(parent, b)
		}
	default:
		b = m.placeInside(parent, elementID, b)
	}
	id := m.newID("diagram-object", viewID, elementID)
	obj := newEl("child", "xsi:type", "archimate:DiagramObject", "id", id, "archimateElement", elementID)
	obj.AddChild(boundsEl(b))
	m.add(parent, obj, KindDiagramObject)
	if !connect {
		return id, nil, nil
	}

	// every diagram object on this view by the element it shows
	onView := map[string][]*etree.Element{}
	m.walk(v, func(e *etree.Element) {
		if kindOf(e) == KindDiagramObject {
			if c := e.SelectAttrValue("archimateElement", ""); c != "" {
				onView[c] = append(onView[c], e)
			}
		}
	})
	var conns []string
	for _, rel := range m.relsByEnd[elementID] {
		relID := rel.SelectAttrValue("id", "")
		s, t := rel.SelectAttrValue("source", ""), rel.SelectAttrValue("target", "")
		var pairs [][2]*etree.Element
		switch {
		case s == elementID && t == elementID:
			pairs = append(pairs, [2]*etree.Element{obj, obj})
		case s == elementID:
			for _, o := range onView[t] {
				pairs = append(pairs, [2]*etree.Element{obj, o})
			}
		default:
			for _, o := range onView[s] {
				pairs = append(pairs, [2]*etree.Element{o, obj})
			}
		}
		if s == elementID && t == elementID && len(pairs) > 0 {
			pairs = pairs[:1]
		}
		for _, p := range pairs {
			if nested(p[0], p[1]) {
				continue // Archi hides a connection between an object and the one it sits in
			}
			cid := m.connect(p[0], p[1], relID)
			conns = append(conns, cid)
		}
	}
	return id, conns, nil
}

// container returns what a new diagram object goes in: the view, or a diagram object or group on
// it that can hold others (not a note, not a reference to another view).
func (m *Model) container(v *etree.Element, parentID string) (*etree.Element, error) {
	if parentID == "" {
		return v, nil
	}
	p, err := m.get(parentID, KindDiagramObject)
	if err != nil {
		return nil, err
	}
	if viewOf(p) != v {
		return nil, fmt.Errorf("diagram object %q is not on view %q: %w", parentID, v.SelectAttrValue("id", ""), ErrWrongKind)
	}
	switch class(p) {
	case "DiagramObject", "Group":
		return p, nil
	}
	return nil, fmt.Errorf("%s cannot hold other objects: %w", Article(TypeWords(class(p))), ErrWrongKind)
}

// connect draws a connection for relationship relID from diagram object src to tgt.
func (m *Model) connect(src, tgt *etree.Element, relID string) string {
	sid, tid := src.SelectAttrValue("id", ""), tgt.SelectAttrValue("id", "")
	cid := m.newID("connection", sid, tid, relID)
	c := newEl("sourceConnection", "xsi:type", "archimate:Connection", "id", cid, "source", sid,
		"target", tid, "archimateRelationship", relID)
	if relID == "" {
		// a plain connection (to a note or group): the feature's own class, which EMF writes
		// without an xsi:type
		c = newEl("sourceConnection", "id", cid, "source", sid, "target", tid)
	}
	m.add(src, c, KindConnection)
	tc := strings.TrimSpace(tgt.SelectAttrValue("targetConnections", "") + " " + cid)
	m.setAttr(tgt, "targetConnections", tc)
	return cid
}

// nested reports whether one diagram object sits directly in the other: Archi hides a connection
// between the two (DiagramModelUtils.shouldBeHiddenConnection, with its default preferences), so
// none is drawn.
func nested(a, b *etree.Element) bool {
	return a != b && (a.Parent() == b || b.Parent() == a)
}

// freeCell finds the first grid cell on a view that overlaps none of its top-level objects.
func (m *Model) freeCell(v *etree.Element) Bounds { return m.freeCellSized(v, DefaultSize) }

// freeCellSized is freeCell for an object of the size: cells as large as it, with gaps.
func (m *Model) freeCellSized(v *etree.Element, size Bounds) Bounds {
	var taken []Bounds
	for _, t := range v.Child {
		if c, ok := t.(*etree.Element); ok && c.Tag == "child" {
			if b, ok := (Object{m, c}).Bounds(); ok {
				taken = append(taken, sized(b))
			}
		}
	}
	const cols, margin = 10, 12
	cellW, cellH := max(144, size.Width+24), max(80, size.Height+25)
	for i := 0; ; i++ {
		c := Bounds{X: margin + (i%cols)*cellW, Y: margin + (i/cols)*cellH, Width: size.Width, Height: size.Height}
		if clearOf(c, taken) {
			return c
		}
	}
}

// DeleteView deletes a view with everything drawn on it, and removes the references to it
// (DiagramModelReference objects on other views, with their connections), as Archi's delete does.
func (m *Model) DeleteView(id string) (Deleted, error) {
	v, err := m.get(id, KindView)
	if err != nil {
		return Deleted{}, err
	}
	var refs []*etree.Element
	if top, ok := m.TopFolder(FolderDiagrams); ok {
		m.walk(top.e, func(e *etree.Element) {
			if e.Tag == "child" && e.SelectAttrValue("model", "") == id && viewOf(e) != v {
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
			if joined[key] || nested(so, to) {
				continue
			}
			joined[key] = true
			conns = append(conns, m.connect(so, to, relID))
		}
	}
	return conns, nil
}

// ConnectionsOnView are the ids of the connections drawn on a view for a relationship.
func (m *Model) ConnectionsOnView(viewID, relID string) []string {
	v, ok := m.byID[viewID]
	if !ok {
		return nil
	}
	var ids []string
	for _, c := range onViewConns(m, v, relID) {
		ids = append(ids, c.SelectAttrValue("id", ""))
	}
	return ids
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
// name, ordered by id (the index's own order depends on the edits and undos it saw).
func (m *Model) Named(class, name string) []Object {
	if m.byName == nil {
		// built on first use, not by Load: most loads never ask; sized for the elements and
		// views among the objects, so that it does not grow (and rehash) a dozen times
		m.byName = make(map[string][]*etree.Element, len(m.byID)/2)
		m.eachNamed(m.root, func(e *etree.Element) {
			n := e.SelectAttrValue("name", "")
			m.byName[n] = append(m.byName[n], e)
		})
	}
	var out []Object
	for _, e := range m.byName[name] {
		if o := (Object{m, e}); o.Class() == class {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID() < out[j].ID() })
	return out
}

// eachNamed calls fn on every element and view under e (the model or a folder), in document
// order: they are only ever in folders, so the diagram objects of views, most of a large model's
// objects, are not walked.
func (m *Model) eachNamed(e *etree.Element, fn func(*etree.Element)) {
	for _, t := range e.Child {
		if c, ok := t.(*etree.Element); ok {
			switch kindOf(c) {
			case KindFolder:
				m.eachNamed(c, fn)
			case KindElement, KindView:
				fn(c)
			}
		}
	}
}

// A Fold is the key names are compared by in Alike (plans: a name's UTS #39 skeleton, which reads
// "Сustomer" with a Cyrillic С as "Customer"). Its index is kept per *Fold: pass the same one.
type Fold func(name string) string

// Alike returns the elements or views of the class whose names fold as name does, in document
// order: an index kept up to date with every edit, so a model checked again and again (the
// daemon's) folds each name once, not once a check (15 ms at 10,000 elements).
func (m *Model) Alike(class, name string, fold *Fold) []Object {
	idx := m.alike[fold]
	if idx == nil {
		idx = make(map[string][]*etree.Element, len(m.byID)/2) // sized as byName
		m.eachNamed(m.root, func(e *etree.Element) {
			f := (*fold)(e.SelectAttrValue("name", ""))
			idx[f] = append(idx[f], e)
		})
		if m.alike == nil {
			m.alike = map[*Fold]map[string][]*etree.Element{}
		}
		m.alike[fold] = idx
	}
	var out []Object
	for _, e := range idx[(*fold)(name)] {
		if o := (Object{m, e}); o.Class() == class {
			out = append(out, o)
		}
	}
	return out
}

// The sizes Archi gives new notes and groups.
var (
	NoteSize  = Bounds{Width: 185, Height: 80}
	GroupSize = Bounds{Width: 400, Height: 140}
)

// CreateNote puts a note with the text on a view (in parentID when given), at the bounds or on a
// free cell, and returns its id.
func (m *Model) CreateNote(viewID, parentID, text string, bounds *Bounds) (string, error) {
	if err := checkText(text); err != nil {
		return "", err
	}
	return m.addBox(viewID, parentID, "Note", bounds, NoteSize, func(e *etree.Element) {
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
	return m.addBox(viewID, parentID, "Group", bounds, GroupSize, nil, "group", name)
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
	switch {
	case bounds != nil:
		b = *bounds
	case parent != v:
		b = m.placeInside(parent, "", size)
	default:
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

// ConnectionBetween is the id of a connection already drawn from the diagram object sourceID to
// targetID for relationship relID ("" for a plain connection), if any.
func (m *Model) ConnectionBetween(sourceID, targetID, relID string) (string, bool) {
	src, ok := m.byID[sourceID]
	if !ok {
		return "", false
	}
	for _, t := range src.Child {
		c, ok := t.(*etree.Element)
		if !ok || c.Tag != "sourceConnection" {
			continue
		}
		if c.SelectAttrValue("target", "") == targetID && c.SelectAttrValue("archimateRelationship", "") == relID {
			return c.SelectAttrValue("id", ""), true
		}
	}
	return "", false
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
	"textAlignment": true, "textPosition": true, "alpha": true, "lineWidth": true}

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
	if kindOf(e) == KindConnection && (attr == "fillColor" || attr == "textAlignment" || attr == "alpha") {
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

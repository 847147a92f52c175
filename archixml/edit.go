package archixml

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/beevik/etree"
)

// Deleted lists what a delete took with it, as Archi takes it: relationships that lost an end
// (and relationships on those), the diagram objects that showed a deleted concept (with what they
// held), and the connections attached to any of them.
type Deleted struct {
	Relationships  []string
	DiagramObjects []string
	Connections    []string
}

// SetIDSeed makes the ids of objects created from now on derive from seed (for example a plan's
// hash) instead of the model's bytes. The same seed and the same edits give the same ids.
func (m *Model) SetIDSeed(seed string) {
	m.idSeed = seed
	m.idSeq = 0
}

// newID returns a fresh id in Archi's form (id- and 32 hex digits), a hash of the seed, the number
// of ids made so far, and what the id is for: deterministic for the same edits on the same model.
func (m *Model) newID(parts ...string) string {
	if m.idSeed == "" {
		d := m.Digest()
		m.idSeed = hex.EncodeToString(d[:])
	}
	for {
		m.idSeq++
		h := sha256.New()
		h.Write([]byte(m.idSeed))
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(m.idSeq)))
		for _, p := range parts {
			h.Write([]byte{0})
			h.Write([]byte(p))
		}
		id := "id-" + hex.EncodeToString(h.Sum(nil)[:16])
		if _, taken := m.byID[id]; !taken {
			return id
		}
	}
}

// markDirty records that e's own tag or children changed, and that everything above it must be
// walked when saving.
func (m *Model) markDirty(e *etree.Element) {
	m.state[e] |= stateDirty
	for p := e.Parent(); p != nil && p != &m.doc.Element; p = p.Parent() {
		if m.state[p]&stateTouched != 0 {
			break
		}
		m.state[p] |= stateTouched
	}
}

// forgetSource makes e and everything below it be written anew (after a move changes its depth).
func (m *Model) forgetSource(e *etree.Element) {
	delete(m.spans, e)
	for _, t := range e.Child {
		if c, ok := t.(*etree.Element); ok {
			m.forgetSource(c)
		}
	}
}

func (m *Model) get(id string, kinds ...Kind) (*etree.Element, error) {
	e, ok := m.byID[id]
	if !ok {
		return nil, fmt.Errorf("%q: %w", id, ErrNotFound)
	}
	if len(kinds) == 0 {
		return e, nil
	}
	k := kindOf(e)
	for _, want := range kinds {
		if k == want {
			return e, nil
		}
	}
	return nil, fmt.Errorf("%q is a %s, not a %s: %w", id, k, kinds[0], ErrWrongKind)
}

const unknownAttr = 45

// Attribute and child orders, as EMF writes them (the feature order of Archi's metamodel).
var (
	// attributes not in a table rank unknownAttr: after the known ones before it
	conceptAttrs = map[string]int{"xsi:type": 0, "name": 10, "id": 20, "profiles": 30, "source": 50, "target": 60,
		"accessType": 70, "strength": 70, "directed": 70}
	folderAttrs  = map[string]int{"name": 0, "id": 10, "type": 20}
	diagramAttrs = map[string]int{"xsi:type": 0, "id": 10, "name": 20, "targetConnections": 30,
		"font": 41, "fontColor": 42, "lineWidth": 43, "lineColor": 44, "textAlignment": 45, "fillColor": 46,
		"alpha": 47, "lineAlpha": 48, "gradient": 49, "textPosition": 50,
		"source": 60, "target": 70, "archimateElement": 80, "archimateRelationship": 80, "model": 80, "type": 90}

	conceptChildren = map[string]int{"feature": 0, "documentation": 1, "property": 2}
	folderChildren  = map[string]int{"feature": 0, "folder": 1, "documentation": 2, "property": 3, "element": 4}
	viewChildren    = map[string]int{"feature": 0, "child": 1, "documentation": 2, "property": 3}
	objectChildren  = map[string]int{"bounds": 0, "feature": 1, "sourceConnection": 2, "child": 3,
		"content": 4, "documentation": 4, "property": 5}
	connChildren  = map[string]int{"feature": 0, "property": 1, "documentation": 2, "bendpoint": 3}
	modelChildren = map[string]int{"folder": 0, "feature": 1, "property": 2, "purpose": 3, "metadata": 4, "profile": 5}
)

func (m *Model) attrOrder(e *etree.Element) map[string]int {
	switch kindOf(e) {
	case KindFolder:
		return folderAttrs
	case KindDiagramObject, KindConnection:
		return diagramAttrs
	}
	return conceptAttrs
}

func (m *Model) childOrder(e *etree.Element) map[string]int {
	switch kindOf(e) {
	case KindFolder:
		return folderChildren
	case KindView:
		return viewChildren
	case KindDiagramObject:
		return objectChildren
	case KindConnection:
		return connChildren
	case KindModel:
		return modelChildren
	}
	return conceptChildren
}

// setAttr sets an attribute, putting a new one where EMF would write it. Attributes not in the
// order table go after the known ones they follow.
func (m *Model) setAttr(e *etree.Element, key, value string) {
	m.markDirty(e)
	if linkedAttr(key) && m.byID[e.SelectAttrValue("id", "")] == e {
		m.unlink(e)
		defer m.link(e)
	}
	a := e.SelectAttr(key)
	if m.rec != nil {
		id, path := m.ref(e)
		s := Step{Op: "attr", ID: id, Path: path, Key: key}
		if a != nil {
			old := a.Value
			s.Old = &old
		}
		m.record(s)
	}
	if a != nil {
		a.Value = value
		return
	}
	order := m.attrOrder(e)
	rank, known := order[key]
	if !known {
		rank = unknownAttr
	}
	e.CreateAttr(key, value)
	at := len(e.Attr) - 1
	pos := 0
	for i := 0; i < at; i++ {
		r, ok := order[e.Attr[i].FullKey()]
		if !ok {
			r = unknownAttr
		}
		if r <= rank {
			pos = i + 1
		}
	}
	added := e.Attr[at]
	copy(e.Attr[pos+1:], e.Attr[pos:at])
	e.Attr[pos] = added
}

func (m *Model) removeAttr(e *etree.Element, key string) {
	if a := e.SelectAttr(key); a != nil {
		if linkedAttr(key) && m.byID[e.SelectAttrValue("id", "")] == e {
			m.unlink(e)
			defer m.link(e)
		}
		if m.rec != nil {
			id, path := m.ref(e)
			old := a.Value
			m.record(Step{Op: "attr", ID: id, Path: path, Key: key, Old: &old})
		}
		e.RemoveAttr(key)
		m.markDirty(e)
	}
}

// insertChild adds c to p where EMF would write it: after p's last child of the same or an
// earlier feature.
func (m *Model) insertChild(p, c *etree.Element) {
	order := m.childOrder(p)
	rank := order[c.Tag]
	// from the end: new children mostly go last, and folders hold many
	pos, first := -1, -1
	for i := len(p.Child) - 1; i >= 0; i-- {
		pc, ok := p.Child[i].(*etree.Element)
		if !ok {
			continue
		}
		first = i
		if order[pc.Tag] <= rank {
			pos = i + 1
			break
		}
	}
	switch {
	case pos >= 0:
	case first >= 0:
		pos = first
	default:
		pos = len(p.Child)
	}
	p.InsertChildAt(pos, c)
	m.markDirty(p)
	if m.rec != nil {
		id, path := m.ref(c)
		m.record(Step{Op: "insert", ID: id, Path: path})
	}
}

// setText replaces an element's text.
func (m *Model) setText(e *etree.Element, text string) {
	if m.rec != nil {
		id, path := m.ref(e)
		old := e.Text()
		m.record(Step{Op: "text", ID: id, Path: path, Old: &old})
	}
	e.SetText(text)
	m.markDirty(e)
}

func (m *Model) removeChild(e *etree.Element) {
	p := e.Parent()
	if m.rec != nil {
		id, path := m.ref(p)
		m.record(Step{Op: "remove", ID: id, Path: path, Index: elementIndex(e), XML: m.fragment(e)})
	}
	m.unindex(e)
	p.RemoveChild(e)
	m.markDirty(p)
	dropLayout(p)
}

// dropLayout removes the indentation left in an element whose last child went, so it is written
// as an empty element again.
func dropLayout(p *etree.Element) {
	for _, t := range p.Child {
		switch t := t.(type) {
		case *etree.Element:
			return
		case *etree.CharData:
			if strings.TrimSpace(t.Data) != "" {
				return
			}
		}
	}
	for len(p.Child) > 0 {
		p.RemoveChildAt(0)
	}
}

func newEl(tag string, attrs ...string) *etree.Element {
	e := etree.NewElement(tag)
	for i := 0; i+1 < len(attrs); i += 2 {
		if attrs[i+1] != "" || attrs[i] == "key" {
			e.CreateAttr(attrs[i], attrs[i+1])
		}
	}
	return e
}

// Rename sets an object's name; an empty name removes it, as Archi writes no name for unnamed
// objects.
func (m *Model) Rename(id, name string) error {
	e, err := m.get(id, KindElement, KindRelationship, KindView, KindFolder, KindDiagramObject, KindProfile, KindConnection)
	if err != nil {
		return err
	}
	if err := checkText(name); err != nil {
		return err
	}
	if name == "" {
		m.removeAttr(e, "name")
		return nil
	}
	m.setAttr(e, "name", name)
	return nil
}

// SetProperty sets the value of the first property with the key, or adds a property after the
// others.
func (m *Model) SetProperty(id, key, value string) error {
	e, err := m.get(id)
	if err != nil {
		return err
	}
	if err := checkText(key); err != nil {
		return err
	}
	if err := checkText(value); err != nil {
		return err
	}
	for _, p := range e.SelectElements("property") {
		if p.SelectAttrValue("key", "") == key {
			if value == "" {
				m.removeAttr(p, "value")
			} else {
				m.setAttr(p, "value", value)
			}
			return nil
		}
	}
	m.insertChild(e, newEl("property", "key", key, "value", value))
	return nil
}

// RemoveProperty removes every property with the key; ErrNotFound when there is none.
func (m *Model) RemoveProperty(id, key string) error {
	e, err := m.get(id)
	if err != nil {
		return err
	}
	removed := false
	for _, p := range e.SelectElements("property") {
		if p.SelectAttrValue("key", "") == key {
			m.removeChild(p)
			removed = true
		}
	}
	if !removed {
		return fmt.Errorf("property %q on %q: %w", key, id, ErrNotFound)
	}
	return nil
}

// SetDocumentation sets an object's documentation; empty text removes it.
func (m *Model) SetDocumentation(id, text string) error {
	e, err := m.get(id)
	if err != nil {
		return err
	}
	if err := checkText(text); err != nil {
		return err
	}
	d := e.SelectElement("documentation")
	switch {
	case text == "" && d != nil:
		m.removeChild(d)
	case text == "":
	case d != nil:
		m.setText(d, text)
	default:
		d = etree.NewElement("documentation")
		d.SetText(text)
		m.insertChild(e, d)
	}
	return nil
}

// resolveType accepts Archi's class name or jArchi's label.
func resolveType(typ string, relationship bool) (*ConceptType, error) {
	t := LookupType(typ)
	if t == nil || t.IsRelationship() != relationship {
		what := "element"
		if relationship {
			what = "relationship"
		}
		return nil, fmt.Errorf("%q is no ArchiMate %s type: %w", typ, what, ErrUnknownType)
	}
	return t, nil
}

// folderIn returns the folder to put an object of folder type ft in: folderID when given (which
// must lie under the top-level folder of that type), else the top-level folder.
func (m *Model) folderIn(ft, folderID string) (*etree.Element, error) {
	if folderID == "" {
		top, ok := m.TopFolder(ft)
		if !ok {
			return nil, fmt.Errorf("the model has no %s folder: %w", ft, ErrNotModel)
		}
		return top.e, nil
	}
	f, err := m.get(folderID, KindFolder)
	if err != nil {
		return nil, err
	}
	if got := (Object{m, f}).TopFolderType(); got != ft {
		return nil, fmt.Errorf("folder %q is in the %s folder, not %s: %w", folderID, got, ft, ErrWrongFolder)
	}
	return f, nil
}

func (m *Model) add(parent, e *etree.Element, k Kind) {
	m.insertChild(parent, e)
	m.indexTree(e, k)
}

// CreateElement creates an element of the type (class name or label) in the folder (its layer's
// top-level folder when folderID is empty) and returns its id.
func (m *Model) CreateElement(typ, name, folderID string) (string, error) {
	t, err := resolveType(typ, false)
	if err != nil {
		return "", err
	}
	if err := checkText(name); err != nil {
		return "", err
	}
	f, err := m.folderIn(t.Folder, folderID)
	if err != nil {
		return "", err
	}
	id := m.newID("element", t.Class, name)
	m.add(f, newEl("element", "xsi:type", "archimate:"+t.Class, "name", name, "id", id), KindElement)
	return id, nil
}

// CreateRelationship creates a relationship of the type (class name or label) from source to
// target, if the ArchiMate relationship table allows it, and returns its id.
func (m *Model) CreateRelationship(typ, sourceID, targetID, name string) (string, error) {
	t, err := resolveType(typ, true)
	if err != nil {
		return "", err
	}
	if err := checkText(name); err != nil {
		return "", err
	}
	src, err := m.get(sourceID, KindElement, KindRelationship)
	if err != nil {
		return "", fmt.Errorf("source: %w", err)
	}
	tgt, err := m.get(targetID, KindElement, KindRelationship)
	if err != nil {
		return "", fmt.Errorf("target: %w", err)
	}
	sc, tc := (Object{m, src}).Class(), (Object{m, tgt}).Class()
	if !relationshipTable.Allowed(t.Class, sc, tc) {
		return "", fmt.Errorf("%s from %s to %s (allowed: %s): %w", t.Label, sc, tc,
			labels(relationshipTable.AllowedTypes(sc, tc)), ErrNotAllowed)
	}
	if err := m.CheckJunction(t.Class, sourceID, targetID); err != nil {
		return "", err
	}
	f, err := m.folderIn(FolderRelations, "")
	if err != nil {
		return "", err
	}
	id := m.newID("relationship", t.Class, sourceID, targetID, name)
	m.add(f, newEl("element", "xsi:type", "archimate:"+t.Class, "name", name, "id", id,
		"source", sourceID, "target", targetID), KindRelationship)
	return id, nil
}

func labels(classes []string) string {
	if len(classes) == 0 {
		return "none"
	}
	out := make([]string, len(classes))
	for i, c := range classes {
		out[i] = relationshipByClass[c].Label
	}
	return strings.Join(out, ", ")
}

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

// DeleteElement deletes an element with its relationships, and removes it from every view with
// the connections attached, as Archi's delete does.
func (m *Model) DeleteElement(id string) (Deleted, error) {
	e, err := m.get(id, KindElement)
	if err != nil {
		return Deleted{}, err
	}
	return m.deleteConcepts([]*etree.Element{e}), nil
}

// DeleteRelationship deletes a relationship, relationships attached to it, and their connections.
func (m *Model) DeleteRelationship(id string) (Deleted, error) {
	e, err := m.get(id, KindRelationship)
	if err != nil {
		return Deleted{}, err
	}
	return m.deleteConcepts([]*etree.Element{e}), nil
}

func (m *Model) deleteConcepts(start []*etree.Element) Deleted {
	var del Deleted
	gone := map[*etree.Element]bool{}
	first := map[*etree.Element]bool{}
	for _, e := range start {
		first[e] = true
	}
	queue := append([]*etree.Element(nil), start...)
	var concepts []*etree.Element
	for len(queue) > 0 {
		e := queue[0]
		queue = queue[1:]
		if gone[e] {
			continue
		}
		gone[e] = true
		concepts = append(concepts, e)
		if !first[e] {
			del.Relationships = append(del.Relationships, e.SelectAttrValue("id", ""))
		}
		queue = append(queue, m.relsByEnd[e.SelectAttrValue("id", "")]...)
	}
	var shown []*etree.Element
	for _, e := range concepts {
		shown = append(shown, m.refsTo[e.SelectAttrValue("id", "")]...)
	}
	objs, conns := m.removeDiagramComponents(shown)
	del.DiagramObjects, del.Connections = objs, conns
	for _, e := range concepts {
		m.removeChild(e)
	}
	return del
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

// defaultSize is the size Archi gives a new element on a view.
var defaultSize = Bounds{Width: 120, Height: 55}

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
	v, err := m.get(viewID, KindView)
	if err != nil {
		return "", nil, err
	}
	if class(v) != "ArchimateDiagramModel" {
		return "", nil, fmt.Errorf("view %q is a %s, which cannot show ArchiMate elements: %w", viewID, class(v), ErrWrongKind)
	}
	if _, err := m.get(elementID, KindElement); err != nil {
		return "", nil, err
	}
	parent, err := m.container(v, parentID)
	if err != nil {
		return "", nil, err
	}
	b := defaultSize
	if bounds != nil {
		b = *bounds
	} else if near, ok := m.placeNear(parent, elementID, defaultSize); ok {
		b = near
	} else {
		b = m.freeCell(parent)
	}
	id := m.newID("diagram-object", viewID, elementID)
	obj := newEl("child", "xsi:type", "archimate:DiagramObject", "id", id, "archimateElement", elementID)
	obj.AddChild(boundsEl(b))
	m.add(parent, obj, KindDiagramObject)

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
	return nil, fmt.Errorf("a %s cannot hold other objects: %w", class(p), ErrWrongKind)
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

func boundsEl(b Bounds) *etree.Element {
	e := etree.NewElement("bounds")
	e.CreateAttr("x", strconv.Itoa(b.X))
	e.CreateAttr("y", strconv.Itoa(b.Y))
	if b.Width != -1 {
		e.CreateAttr("width", strconv.Itoa(b.Width))
	}
	if b.Height != -1 {
		e.CreateAttr("height", strconv.Itoa(b.Height))
	}
	return e
}

// freeCell finds the first grid cell on a view that overlaps none of its top-level objects.
func (m *Model) freeCell(v *etree.Element) Bounds {
	var taken []Bounds
	for _, t := range v.Child {
		if c, ok := t.(*etree.Element); ok && c.Tag == "child" {
			if b, ok := (Object{m, c}).Bounds(); ok {
				if b.Width < 0 {
					b.Width = defaultSize.Width
				}
				if b.Height < 0 {
					b.Height = defaultSize.Height
				}
				taken = append(taken, b)
			}
		}
	}
	const cols, cellW, cellH, margin = 10, 144, 80, 12
	for i := 0; ; i++ {
		c := Bounds{X: margin + (i%cols)*cellW, Y: margin + (i/cols)*cellH, Width: defaultSize.Width, Height: defaultSize.Height}
		free := true
		for _, b := range taken {
			if c.X < b.X+b.Width && b.X < c.X+c.Width && c.Y < b.Y+b.Height && b.Y < c.Y+c.Height {
				free = false
				break
			}
		}
		if free {
			return c
		}
	}
}

// EnsureFolder returns the id of the folder at path ("Business/Customers/Key accounts": the
// top-level folder's name or type first, then user folders), creating the user folders that are
// missing.
func (m *Model) EnsureFolder(path string) (string, error) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	var cur *etree.Element
	for _, c := range m.root.SelectElements("folder") {
		if c.SelectAttrValue("name", "") == parts[0] || c.SelectAttrValue("type", "") == parts[0] {
			cur = c
			break
		}
	}
	if cur == nil {
		return "", fmt.Errorf("no top-level folder %q: %w", parts[0], ErrWrongFolder)
	}
	for _, name := range parts[1:] {
		if name == "" {
			return "", fmt.Errorf("empty folder name in %q: %w", path, ErrWrongFolder)
		}
		if err := checkText(name); err != nil {
			return "", err
		}
		var next *etree.Element
		for _, c := range cur.SelectElements("folder") {
			if c.SelectAttrValue("name", "") == name {
				next = c
				break
			}
		}
		if next == nil {
			id := m.newID("folder", cur.SelectAttrValue("id", ""), name)
			next = newEl("folder", "name", name, "id", id)
			m.add(cur, next, KindFolder)
		}
		cur = next
	}
	return cur.SelectAttrValue("id", ""), nil
}

// MoveToFolder moves an element, relationship or view into the folder at path (see EnsureFolder),
// creating missing user folders; the folder must lie under the top-level folder the object
// belongs in. It returns the folder's id.
func (m *Model) MoveToFolder(id, path string) (string, error) {
	e, err := m.get(id, KindElement, KindRelationship, KindView)
	if err != nil {
		return "", err
	}
	want := FolderFor((Object{m, e}).Class())
	top := strings.SplitN(strings.Trim(path, "/"), "/", 2)[0]
	tf, ok := m.TopFolder(want)
	if !ok || (top != tf.Name() && top != want) {
		return "", fmt.Errorf("%s %q belongs under %q, not %q: %w", (Object{m, e}).Class(), id, tf.Name(), path, ErrWrongFolder)
	}
	fid, err := m.EnsureFolder(path)
	if err != nil {
		return "", err
	}
	f := m.byID[fid]
	if e.Parent() == f {
		return fid, nil
	}
	// a move is a removal and an insertion: journaled as such, and indexed again below
	m.removeChild(e)
	m.forgetSource(e)
	m.insertChild(f, e)
	m.indexTree(e, kindOf(e))
	return fid, nil
}

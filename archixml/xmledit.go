package archixml

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/beevik/etree"
)

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
	m.gen++
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
	m.gen++
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
	return nil, fmt.Errorf("%q is %s, not %s: %w", id, Article(k.String()), Article(kinds[0].String()), ErrWrongKind)
}

const unknownAttr = 45

// Attribute and child orders, as EMF writes them (the feature order of Archi's metamodel).
var (
	// attributes not in a table rank unknownAttr: after the known ones before it
	conceptAttrs = map[string]int{"xsi:type": 0, "name": 10, "id": 20, "profiles": 30, "source": 50, "target": 60,
		"accessType": 70, "strength": 70, "directed": 70, "connectionRouterType": 35, "viewpoint": 40}
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

func (m *Model) attrOrder(e *etree.Element) map[string]int { return attrOrderOf(kindOf(e)) }

// attrOrderOf is the attribute order of an element of a kind.
func attrOrderOf(k Kind) map[string]int {
	switch k {
	case KindFolder:
		return folderAttrs
	case KindDiagramObject, KindConnection:
		return diagramAttrs
	}
	return conceptAttrs
}

func (m *Model) childOrder(e *etree.Element) map[string]int { return childOrderOf(kindOf(e)) }

// childOrderOf is the order of the children of an element of a kind.
func childOrderOf(k Kind) map[string]int {
	switch k {
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
	untagClass(e)
	if linkedAttr(key) && m.byID[e.SelectAttrValue("id", "")] == e {
		m.unlink(e, key)
		defer m.link(e, key)
	}
	a := e.SelectAttr(key)
	if m.rec != nil {
		id, path := m.ref(e)
		s := Step{Op: "attr", ID: id, Path: path, Key: key}
		if a != nil {
			old := a.Value
			s.Old = &old
		}
		m.record(s, e)
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
		untagClass(e)
		if linkedAttr(key) && m.byID[e.SelectAttrValue("id", "")] == e {
			m.unlink(e, key)
			defer m.link(e, key)
		}
		if m.rec != nil {
			id, path := m.ref(e)
			old := a.Value
			pos := attrIndex(e, key)
			m.record(Step{Op: "attr", ID: id, Path: path, Key: key, Old: &old, Pos: &pos}, e)
		}
		e.RemoveAttr(key)
		m.markDirty(e)
	}
}

// attrIndex is the position of an attribute among e's attributes.
func attrIndex(e *etree.Element, key string) int {
	for i, a := range e.Attr {
		if a.FullKey() == key {
			return i
		}
	}
	return len(e.Attr)
}

// insertAttrAt puts back an attribute that was removed, at the position it had (undo of a
// removal, so that files in another order than EMF's come back byte for byte).
func (m *Model) insertAttrAt(e *etree.Element, key, value string, pos int) {
	m.setAttr(e, key, value) // indexes, links and journals as any set
	at := attrIndex(e, key)
	rest := make([]etree.Attr, 0, len(e.Attr))
	rest = append(append(rest, e.Attr[:at]...), e.Attr[at+1:]...)
	if pos > len(rest) {
		pos = len(rest)
	}
	out := make([]etree.Attr, 0, len(e.Attr))
	out = append(append(append(out, rest[:pos]...), e.Attr[at]), rest[pos:]...)
	e.Attr = out
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
		m.record(Step{Op: "insert", ID: id, Path: path}, c)
	}
}

// setText replaces an element's text.
func (m *Model) setText(e *etree.Element, text string) {
	if m.rec != nil {
		id, path := m.ref(e)
		old := e.Text()
		m.record(Step{Op: "text", ID: id, Path: path, Old: &old}, e)
	}
	e.SetText(text)
	m.markDirty(e)
}

func (m *Model) removeChild(e *etree.Element) {
	p := e.Parent()
	if m.rec != nil {
		id, path := m.ref(p)
		m.record(Step{Op: "remove", ID: id, Path: path, Index: elementIndex(e), XML: m.fragment(e)}, e)
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

func (m *Model) add(parent, e *etree.Element, k Kind) {
	m.insertChild(parent, e)
	m.indexTree(e, k)
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

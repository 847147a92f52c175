package archixml

import (
	"fmt"
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
	if !relationshipTable().Allowed(t.Class, sc, tc) {
		return "", fmt.Errorf("%s from %s to %s (allowed: %s): %w", t.Label, sc, tc,
			labels(relationshipTable().AllowedTypes(sc, tc)), ErrNotAllowed)
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

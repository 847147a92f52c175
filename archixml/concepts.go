package archixml

import (
	"fmt"

	"github.com/beevik/etree"
)

// relationshipAttrs says which relationship class carries each relationship attribute.
var relationshipAttrs = map[string]string{
	"accessType": "AccessRelationship",
	"strength":   "InfluenceRelationship",
	"directed":   "AssociationRelationship",
}

// AccessTypes are the values of an access relationship's accessType as Archi writes them; write,
// Archi's default, is written as no attribute.
var AccessTypes = map[string]string{"write": "", "read": "1", "access": "2", "readwrite": "3"}

// SetRelationshipAttr sets accessType (Access), strength (Influence) or directed (Association) on
// a relationship; an empty value removes the attribute (Archi's default).
func (m *Model) SetRelationshipAttr(id, key, value string) error {
	e, err := m.get(id, KindRelationship)
	if err != nil {
		return err
	}
	want, ok := relationshipAttrs[key]
	if !ok {
		return fmt.Errorf("%q is no relationship attribute: %w", key, ErrUnknownType)
	}
	if c := (Object{m, e}).Class(); c != want {
		return fmt.Errorf("%s is set on %s, not %s: %w", key, Article(TypeWords(want)), Article(TypeWords(c)), ErrWrongKind)
	}
	if err := checkText(value); err != nil {
		return err
	}
	if value == "" {
		m.removeAttr(e, key)
		return nil
	}
	m.setAttr(e, key, value)
	return nil
}

// SetSpecialization gives a concept the specialization (Archi profile) of that name for its type,
// creating the profile when the model has none; an empty name takes the concept's away. It returns
// the profile's id ("" when removed) and whether it created it.
func (m *Model) SetSpecialization(id, name string) (string, bool, error) {
	e, err := m.get(id, KindElement, KindRelationship)
	if err != nil {
		return "", false, err
	}
	if err := checkText(name); err != nil {
		return "", false, err
	}
	if name == "" {
		m.removeAttr(e, "profiles")
		return "", false, nil
	}
	cls := (Object{m, e}).Class()
	pid, created := "", false
	for _, p := range m.root.SelectElements("profile") {
		if p.SelectAttrValue("name", "") == name && p.SelectAttrValue("conceptType", "") == cls {
			pid = p.SelectAttrValue("id", "")
			break
		}
	}
	if pid == "" {
		pid = m.newID("profile", cls, name)
		m.add(m.root, newEl("profile", "name", name, "id", pid, "conceptType", cls), KindProfile)
		created = true
	}
	m.setAttr(e, "profiles", pid)
	return pid, created, nil
}

// ChangeType changes an element's type in place, as Archi's "Change type" does: the id,
// relationships, appearances on views, properties and documentation stay; the element stays in
// its folder when that lies under its new layer's top-level folder, and moves to that top-level
// folder otherwise; a specialization of the old type goes.
// Every relationship of the element must be allowed with the new type.
func (m *Model) ChangeType(id, typ string) error {
	e, err := m.get(id, KindElement)
	if err != nil {
		return err
	}
	t, err := resolveType(typ, false)
	if err != nil {
		return err
	}
	for _, rel := range m.relsByEnd[id] {
		rc := (Object{m, rel}).Class()
		sc, tc := m.classOf(rel.SelectAttrValue("source", "")), m.classOf(rel.SelectAttrValue("target", ""))
		if rel.SelectAttrValue("source", "") == id {
			sc = t.Class
		}
		if rel.SelectAttrValue("target", "") == id {
			tc = t.Class
		}
		if !relationshipTable().Allowed(rc, sc, tc) {
			return fmt.Errorf("relationship %q (%s from %s to %s) would not be allowed: %w",
				rel.SelectAttrValue("id", ""), relationshipByClass[rc].Label, sc, tc, ErrNotAllowed)
		}
	}
	if p := e.SelectAttrValue("profiles", ""); p != "" {
		m.removeAttr(e, "profiles")
	}
	m.setAttr(e, "xsi:type", "archimate:"+t.Class)
	// Archi keeps the element in its folder when that folder lies under the new type's top-level
	// folder (SetConceptTypeCommandFactory.getFolderForNewConcept), else puts it at the top
	if (Object{m, e}).TopFolderType() != t.Folder {
		f, err := m.folderIn(t.Folder, "")
		if err != nil {
			return err
		}
		m.removeChild(e)
		m.forgetSource(e)
		m.insertChild(f, e)
		m.indexTree(e, kindOf(e))
	}
	return nil
}

func (m *Model) classOf(id string) string {
	if e, ok := m.byID[id]; ok {
		return (Object{m, e}).Class()
	}
	return ""
}

// Merged says what a merge moved to the surviving element.
type Merged struct {
	Relationships  []string // relationships whose end moved
	DiagramObjects []string // diagram objects that now show the survivor
	Properties     []string // property keys copied
}

// Merge merges element mergedID into survivorID (of the same type): its relationships and its
// diagram objects move to the survivor, the properties whose keys the survivor lacks are copied,
// its documentation is kept when the survivor has none, and it is deleted.
func (m *Model) Merge(survivorID, mergedID string) (Merged, error) {
	s, err := m.get(survivorID, KindElement)
	if err != nil {
		return Merged{}, err
	}
	d, err := m.get(mergedID, KindElement)
	if err != nil {
		return Merged{}, err
	}
	if s == d {
		return Merged{}, fmt.Errorf("an element cannot be merged into itself: %w", ErrWrongKind)
	}
	if sc, dc := (Object{m, s}).Class(), (Object{m, d}).Class(); sc != dc {
		return Merged{}, fmt.Errorf("%s cannot be merged into %s: %w", Article(TypeWords(dc)), Article(TypeWords(sc)), ErrWrongKind)
	}
	var out Merged
	for _, rel := range append([]*etree.Element(nil), m.relsByEnd[mergedID]...) {
		for _, end := range []string{"source", "target"} {
			if rel.SelectAttrValue(end, "") == mergedID {
				m.setAttr(rel, end, survivorID)
			}
		}
		out.Relationships = append(out.Relationships, rel.SelectAttrValue("id", ""))
	}
	for _, ref := range append([]*etree.Element(nil), m.refsTo[mergedID]...) {
		m.setAttr(ref, "archimateElement", survivorID)
		out.DiagramObjects = append(out.DiagramObjects, ref.SelectAttrValue("id", ""))
	}
	has := map[string]bool{}
	for _, p := range s.SelectElements("property") {
		has[p.SelectAttrValue("key", "")] = true
	}
	for _, p := range d.SelectElements("property") {
		k := p.SelectAttrValue("key", "")
		if !has[k] {
			has[k] = true
			m.insertChild(s, newEl("property", "key", k, "value", p.SelectAttrValue("value", "")))
			out.Properties = append(out.Properties, k)
		}
	}
	if doc := childText(d, "documentation"); doc != "" && childText(s, "documentation") == "" {
		if err := m.SetDocumentation(survivorID, doc); err != nil {
			return Merged{}, err
		}
	}
	m.removeChild(d)
	return out, nil
}

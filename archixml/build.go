package archixml

import (
	"fmt"
	"slices"

	"github.com/beevik/etree"
)

// Node is one XML element of a model made outside archixml's edits (an import from another
// format): its tag ("folder", "element", "child", "bounds", "property", ...), its attributes as
// name, value pairs ("xsi:type", "archimate:BusinessActor", "name", "Actor", ...), its text and
// its children. Build puts attributes and children in the order EMF writes them.
type Node struct {
	Tag   string
	Attrs []string
	Text  string
	Kids  []*Node
}

// Build makes the model whose folders, profiles and other children of the archimate:model root
// are kids, named name, with the id and Archi's version: written by Save as Archi writes a model,
// attributes and children in EMF's order, one a line, indented by two spaces. Ids are the
// caller's; Build refuses a tree whose ids are not unique.
func Build(name, id string, kids []*Node) (*Model, error) {
	doc := etree.NewDocument()
	m := &Model{doc: doc, nl: "\n", spans: map[*etree.Element]span{}, state: map[*etree.Element]uint8{},
		idSeed: "built model\x00" + id}
	root := newEl("archimate:model",
		"xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance",
		"xmlns:archimate", "http://www.archimatetool.com/archimate",
		"name", name, "id", id, "version", ModelVersion)
	doc.SetRoot(root)
	m.root = root
	m.attach(root, kids)
	m.reindex()
	if len(m.dupIDs) > 0 {
		return nil, fmt.Errorf("id %q is used more than once: %w", m.dupIDs[0], ErrDuplicate)
	}
	return m, nil
}

// attach adds the nodes under parent, each element's attributes and children in the order EMF
// writes them (the tables the edits use), keeping the given order among equals.
func (m *Model) attach(parent *etree.Element, kids []*Node) {
	if len(kids) > 1 {
		order := m.childOrder(parent)
		slices.SortStableFunc(kids, func(a, b *Node) int { return order[a.Tag] - order[b.Tag] })
	}
	for _, n := range kids {
		e := etree.NewElement(n.Tag)
		if len(n.Attrs) > 1 {
			e.Attr = make([]etree.Attr, 0, len(n.Attrs)/2) // one allocation, not growth
		}
		for i := 0; i+1 < len(n.Attrs); i += 2 {
			e.CreateAttr(n.Attrs[i], n.Attrs[i+1])
		}
		parent.AddChild(e)
		if len(e.Attr) > 1 {
			// sorted without reflection: sort.SliceStable's swapper was an allocation an element
			order := m.attrOrder(e)
			rank := func(a etree.Attr) int {
				key := a.Key
				if a.Space != "" { // a.FullKey(), without a string made each comparison
					var buf [64]byte
					if r, ok := order[string(append(append(append(buf[:0], a.Space...), ':'), a.Key...))]; ok {
						return r
					}
					return unknownAttr
				}
				if r, ok := order[key]; ok {
					return r
				}
				return unknownAttr
			}
			slices.SortStableFunc(e.Attr, func(a, b etree.Attr) int { return rank(a) - rank(b) })
		}
		if n.Text != "" {
			e.SetText(n.Text)
		}
		m.attach(e, n.Kids)
	}
}

// TopFolderName is the name Archi gives the top-level folder of a type in a new model.
func TopFolderName(folderType string) string { return topFolderNames[folderType] }

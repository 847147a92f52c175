package archixml

import (
	"fmt"
	"slices"
	"strings"

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
	root := newEl("archimate:model", rootAttrs(name, id)...)
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

// rootAttrs are the attributes of a built model's root, in their order.
func rootAttrs(name, id string) []string {
	return []string{"xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance",
		"xmlns:archimate", "http://www.archimatetool.com/archimate",
		"name", name, "id", id, "version", ModelVersion}
}

// Write is what Save writes of the model Build makes of the same arguments, written from the
// nodes in one pass without making the model (an import needs only the bytes): the same
// attributes and children in EMF's order (kids are sorted in place, as Build sorts them), the
// same escaping and indentation. size is about how many bytes it will write. A model that would
// pass MaxModelBytes is refused (ErrTooLarge) as soon as it does; ids are not checked.
func Write(name, id string, kids []*Node, size int) ([]byte, error) {
	w := &nodeWriter{}
	w.o.buf.Grow(size)
	w.o.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	w.write(&Node{Tag: "archimate:model", Attrs: rootAttrs(name, id), Kids: kids}, "", 0)
	w.o.WriteString("\n")
	if w.o.Len() > MaxModelBytes {
		return nil, fmt.Errorf("the model would be at least %d bytes, over the limit of %d: %w", w.o.Len(), MaxModelBytes, ErrTooLarge)
	}
	return w.o.buf.Bytes(), nil
}

type nodeWriter struct {
	o    output
	rank []int // the attributes' order, reused
}

// nodeKind is kindOf of the element n would be under a parent tagged parent.
func nodeKind(n *Node, parent string) Kind {
	switch n.Tag {
	case "archimate:model":
		return KindModel
	case "element":
		if parent != "folder" {
			return kindNone
		}
		for i := 0; i+1 < len(n.Attrs); i += 2 {
			if n.Attrs[i] == "xsi:type" {
				_, c, ok := strings.Cut(n.Attrs[i+1], ":")
				if !ok {
					c = n.Attrs[i+1]
				}
				return classKind(c)
			}
		}
		return classKind("")
	case "folder":
		return KindFolder
	case "child":
		return KindDiagramObject
	case "sourceConnection":
		return KindConnection
	}
	return kindNone
}

// write writes n at depth as writeCanonical writes the element attach makes of it, and stops
// once the output passes MaxModelBytes.
func (w *nodeWriter) write(n *Node, parent string, depth int) {
	k := nodeKind(n, parent)
	o := &w.o
	o.WriteByte('<')
	o.WriteString(n.Tag)
	if n.Tag == "archimate:model" { // Build's root: its attributes as given, empty ones left out
		for i := 0; i+1 < len(n.Attrs); i += 2 {
			if n.Attrs[i+1] != "" {
				w.attr(n.Attrs[i], n.Attrs[i+1])
			}
		}
	} else {
		w.attrs(n, k)
	}
	if len(n.Kids) == 0 {
		if n.Text == "" {
			o.WriteString("/>")
			return
		}
		o.WriteByte('>')
		escape(o, n.Text, false)
		o.WriteString("</")
		o.WriteString(n.Tag)
		o.WriteByte('>')
		return
	}
	o.WriteByte('>')
	if len(n.Kids) > 1 {
		order := childOrderOf(k)
		slices.SortStableFunc(n.Kids, func(a, b *Node) int { return order[a.Tag] - order[b.Tag] })
	}
	for _, c := range n.Kids {
		o.WriteByte('\n')
		indent(o, depth+1)
		w.write(c, n.Tag, depth+1)
		if o.Len() > MaxModelBytes {
			return
		}
	}
	o.WriteByte('\n')
	indent(o, depth)
	o.WriteString("</")
	o.WriteString(n.Tag)
	o.WriteByte('>')
}

func (w *nodeWriter) attr(key, value string) {
	w.o.WriteByte(' ')
	w.o.WriteString(key)
	w.o.WriteString(`="`)
	escape(&w.o, value, true)
	w.o.WriteByte('"')
}

// attrs writes n's attributes in the order attach sorts them: by the rank of kind's table, the
// given order among equals, a name given twice at its first place with its last value.
func (w *nodeWriter) attrs(n *Node, k Kind) {
	order := attrOrderOf(k)
	w.rank = w.rank[:0]
	for i := 0; i+1 < len(n.Attrs); i += 2 {
		w.rank = append(w.rank, i)
	}
	rank := func(i int) int {
		if r, ok := order[n.Attrs[i]]; ok {
			return r
		}
		return unknownAttr
	}
	if len(w.rank) > 1 {
		slices.SortStableFunc(w.rank, func(a, b int) int { return rank(a) - rank(b) })
	}
	for j, i := range w.rank {
		key, value, first := n.Attrs[i], n.Attrs[i+1], true
		for _, p := range w.rank[:j] {
			first = first && n.Attrs[p] != key
		}
		if !first {
			continue
		}
		for q := i + 2; q+1 < len(n.Attrs); q += 2 { // CreateAttr: a later one sets the value
			if n.Attrs[q] == key {
				value = n.Attrs[q+1]
			}
		}
		w.attr(key, value)
	}
}

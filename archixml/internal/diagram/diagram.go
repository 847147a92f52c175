// Package diagram reads the XML of one view (as archixml's Object.XML gives it) into a small tree of
// diagram objects, connections and their parts, for the packages that draw views and compare them.
// It is internal to archixml: only archixml's own sub-packages read views this way.
package diagram

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/beevik/etree"
)

// ErrMalformed is returned for XML that does not parse.
var ErrMalformed = errors.New("malformed view XML")

// Attr is one attribute, in file order.
type Attr struct{ Key, Value string }

// Node is one XML element of a view: the view itself, a diagram object ("child"), a connection
// ("sourceConnection"), or one of their parts ("bounds", "bendpoint", "feature", "content",
// "documentation", "property").
type Node struct {
	Tag    string
	Type   string // the xsi:type without its prefix ("DiagramObject", "Connection", "Note")
	Attrs  []Attr
	Kids   []*Node
	Text   string
	Parent *Node
}

// Attr returns the value of an attribute ("" when absent).
func (n *Node) Attr(key string) string {
	for _, a := range n.Attrs {
		if a.Key == key {
			return a.Value
		}
	}
	return ""
}

// Has reports whether the attribute is present.
func (n *Node) Has(key string) bool {
	for _, a := range n.Attrs {
		if a.Key == key {
			return true
		}
	}
	return false
}

// Kid returns the first child element with the tag, or nil.
func (n *Node) Kid(tag string) *Node {
	for _, k := range n.Kids {
		if k.Tag == tag {
			return k
		}
	}
	return nil
}

// Feature returns the value of a <feature name=key value=.../> (Archi 4.9+ keeps some styles there).
func (n *Node) Feature(key string) (string, bool) {
	for _, k := range n.Kids {
		if k.Tag == "feature" && k.Attr("name") == key {
			return k.Attr("value"), true
		}
	}
	return "", false
}

// IsObject reports whether n is a diagram object (a <child>).
func (n *Node) IsObject() bool { return n.Tag == "child" }

// IsConnection reports whether n is a connection.
func (n *Node) IsConnection() bool { return n.Tag == "sourceConnection" }

// Concept is the id of the element or relationship the node shows ("" for notes, groups, ...).
func (n *Node) Concept() string {
	if v := n.Attr("archimateElement"); v != "" {
		return v
	}
	if v := n.Attr("archimateRelationship"); v != "" {
		return v
	}
	if n.IsConnection() {
		return n.Attr("relationship") // Archi 2.x
	}
	return ""
}

// Parse reads the XML of a view.
func Parse(src string) (*Node, error) {
	d := xml.NewDecoder(strings.NewReader(src))
	var root, cur *Node
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%v: %w", err, ErrMalformed)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &Node{Tag: t.Name.Local, Parent: cur}
			for _, a := range t.Attr {
				if a.Name.Local == "type" && a.Name.Space == "xsi" {
					_, c, ok := strings.Cut(a.Value, ":")
					if !ok {
						c = a.Value
					}
					n.Type = c
					continue
				}
				if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
					continue
				}
				n.Attrs = append(n.Attrs, Attr{a.Name.Local, a.Value})
			}
			if cur == nil {
				if root != nil {
					return nil, fmt.Errorf("more than one root: %w", ErrMalformed)
				}
				root = n
			} else {
				cur.Kids = append(cur.Kids, n)
			}
			cur = n
			text.Reset()
		case xml.CharData:
			if cur != nil && len(cur.Kids) == 0 {
				text.Write(t)
			}
		case xml.EndElement:
			if len(cur.Kids) == 0 {
				cur.Text = text.String()
			}
			text.Reset()
			cur = cur.Parent
		}
	}
	if root == nil {
		return nil, fmt.Errorf("empty: %w", ErrMalformed)
	}
	return root, nil
}

// FromElement is the tree Parse reads from the XML of e, made from e itself: what a view's
// writer would write and Parse read again (a tenth of an export at 10,000 elements) is not.
// Text is kept only where Parse keeps it, in elements without children: the character data of
// their tokens, comments and processing instructions left out.
func FromElement(e *etree.Element) *Node {
	n := 0
	count(e, &n)
	b := &builder{nodes: make([]Node, n)}
	return b.node(e, nil)
}

func count(e *etree.Element, n *int) {
	*n++
	for _, t := range e.Child {
		if c, ok := t.(*etree.Element); ok {
			count(c, n)
		}
	}
}

// builder cuts a tree's nodes, and their lists of attributes, from blocks made once.
type builder struct {
	nodes []Node
	attrs []Attr
}

func (b *builder) node(e *etree.Element, parent *Node) *Node {
	n := &b.nodes[0]
	b.nodes = b.nodes[1:]
	n.Tag, n.Parent = e.Tag, parent
	if len(b.attrs) < len(e.Attr) {
		b.attrs = make([]Attr, max(len(e.Attr), attrBlock))
	}
	attrs := b.attrs[:0:len(e.Attr)]
	for _, a := range e.Attr {
		switch {
		case a.Space == "xsi" && a.Key == "type":
			_, c, ok := strings.Cut(a.Value, ":")
			if !ok {
				c = a.Value
			}
			n.Type = c
		case a.Space == "xmlns" || a.Space == "" && a.Key == "xmlns":
		default:
			attrs = append(attrs, Attr{a.Key, a.Value})
		}
	}
	if len(attrs) > 0 {
		n.Attrs, b.attrs = attrs, b.attrs[len(attrs):]
	}
	kids := 0
	for _, t := range e.Child {
		if _, ok := t.(*etree.Element); ok {
			kids++
		}
	}
	if kids == 0 {
		n.Text = text(e)
		return n
	}
	n.Kids = make([]*Node, 0, kids)
	for _, t := range e.Child {
		if c, ok := t.(*etree.Element); ok {
			n.Kids = append(n.Kids, b.node(c, n))
		}
	}
	return n
}

// attrBlock is how many attributes a builder allocates at once.
const attrBlock = 256

// text is the character data of e's tokens, joined.
func text(e *etree.Element) string {
	var s string
	var joined *strings.Builder
	for _, t := range e.Child {
		cd, ok := t.(*etree.CharData)
		if !ok {
			continue
		}
		switch {
		case joined != nil:
			joined.WriteString(cd.Data)
		case s == "":
			s = cd.Data
		default:
			joined = &strings.Builder{}
			joined.WriteString(s)
			joined.WriteString(cd.Data)
		}
	}
	if joined != nil {
		return joined.String()
	}
	return s
}

// Walk calls fn for n and every element below it, parents first, in document order.
func (n *Node) Walk(fn func(*Node)) {
	fn(n)
	for _, k := range n.Kids {
		k.Walk(fn)
	}
}

// ContainerID is the id of the diagram object or view that holds n.
func (n *Node) ContainerID() string {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.IsObject() || p.Parent == nil {
			return p.Attr("id")
		}
	}
	return ""
}

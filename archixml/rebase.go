package archixml

import (
	"unsafe"

	"github.com/beevik/etree"
)

// Rebase makes m the model Load(data) gives, without building the tree again, when data reads
// back as exactly the tree m holds (as it does when Save wrote data from m): data is read once and
// compared, token by token, with m's tree (names, attributes in order, text, comments, processing
// instructions) and every object's id with m's index; when all agree, m keeps its tree and takes
// data as its source, every element's bytes in it, and no pending edit, so that what is edited and
// saved from then on is what a model loaded from data would give. It reports false and leaves m
// as it was when anything differs, when m was read from Archi's zipped form, holds duplicate ids,
// or is recording: the caller then loads data.
//
// Rebase keeps data (no copy): it must not change afterwards.
func (m *Model) Rebase(data []byte) bool {
	if m.archive != nil || len(m.dupIDs) > 0 || m.rec != nil || zipped(data) || len(data) > MaxModelBytes {
		return false
	}
	src := unsafe.String(unsafe.SliceData(data), len(data))
	c := &compare{m: m, spans: make([]spanOf, 0, len(m.spans)+16)}
	c.stack = append(c.stack, cursor{e: &m.doc.Element, indexed: true})
	if err := readInto(src, c); err != nil || c.differs || len(c.stack) != 1 ||
		c.stack[0].next != len(m.doc.Child) || c.ids != len(m.byID) {
		return false
	}
	for _, s := range c.spans {
		m.spans[s.e] = s.span
	}
	if len(m.spans) != len(c.spans) { // elements no longer in the tree: start afresh
		m.spans = make(map[*etree.Element]span, len(c.spans))
		for _, s := range c.spans {
			m.spans[s.e] = s.span
		}
	}
	m.src, m.nl = src, detectNewline(src)
	m.state = map[*etree.Element]uint8{}
	m.idSeed, m.idSeq = "", 0
	return true
}

type spanOf struct {
	e *etree.Element
	span
}

// cursor is an element of m's tree being compared, and the place of the next token among its
// children.
type cursor struct {
	e       *etree.Element
	next    int
	attrs   int
	indexed bool // Load indexes it (and what of the objects below it it indexes)
}

// compare is the sink that reads a file against a model's tree, noting each element's span.
type compare struct {
	m       *Model
	stack   []cursor
	spans   []spanOf
	ids     int // objects with an id whose index entry is the very element read
	differs bool
}

// token is the next child token of the open element, or nil when there is none.
func (c *compare) token() etree.Token {
	top := &c.stack[len(c.stack)-1]
	if top.next >= len(top.e.Child) {
		return nil
	}
	t := top.e.Child[top.next]
	top.next++
	return t
}

func (c *compare) start(name string) {
	if c.differs {
		return
	}
	e, ok := c.token().(*etree.Element)
	space, tag := splitName(name)
	if !ok || e.Space != space || e.Tag != tag {
		c.differs = true
		return
	}
	c.stack = append(c.stack, cursor{e: e})
}

func (c *compare) attr(key, value string) bool {
	if c.differs {
		return true
	}
	top := &c.stack[len(c.stack)-1]
	if top.attrs >= len(top.e.Attr) {
		c.differs = true
		return true
	}
	a := top.e.Attr[top.attrs]
	top.attrs++
	if space, k := splitName(key); a.Space != space || a.Key != k || a.Value != value {
		c.differs = true
	}
	return true
}

func (c *compare) opened() {
	if c.differs {
		return
	}
	top := &c.stack[len(c.stack)-1]
	if top.attrs != len(top.e.Attr) {
		c.differs = true
		return
	}
	// what Load indexes: an object below the model, and the objects below an indexed one
	parent := c.stack[len(c.stack)-2]
	k := kindOf(top.e)
	if len(c.stack) == 2 {
		top.indexed = k == KindModel
	} else {
		top.indexed = parent.indexed && k != kindNone
	}
	if top.indexed {
		if id := top.e.SelectAttrValue("id", ""); id != "" {
			if c.m.byID[id] != top.e {
				c.differs = true // another element, or a duplicate Load would not index
				return
			}
			c.ids++
		}
	}
}

func (c *compare) end(start, tagEnd, end int) {
	if c.differs {
		return
	}
	top := c.stack[len(c.stack)-1]
	if top.next != len(top.e.Child) {
		c.differs = true
		return
	}
	c.spans = append(c.spans, spanOf{top.e, span{start: start, tagEnd: tagEnd, end: end}})
	c.stack = c.stack[:len(c.stack)-1]
}

func (c *compare) text(s string) {
	if c.differs {
		return
	}
	// as the reader makes it: plain text, no CDATA or whitespace mark
	if t, ok := c.token().(*etree.CharData); !ok || t.Data != s || t.IsCData() || t.IsWhitespace() {
		c.differs = true
	}
}

func (c *compare) comment(s string) {
	if c.differs {
		return
	}
	if t, ok := c.token().(*etree.Comment); !ok || t.Data != s {
		c.differs = true
	}
}

func (c *compare) procInst(target, inst string) {
	if c.differs {
		return
	}
	if t, ok := c.token().(*etree.ProcInst); !ok || t.Target != target || t.Inst != inst {
		c.differs = true
	}
}

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
	if m.rebaseSaved(data) {
		return true
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
	m        *Model
	fragment bool // reading one element written anew, under the parent at the stack's bottom
	stack    []cursor
	spans    []spanOf
	ids      int // objects with an id whose index entry is the very element read
	differs  bool
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

func (c *compare) start(name string, _ int) {
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
	if len(c.stack) == 2 && !c.fragment {
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

// rebaseSaved is Rebase of the very bytes the last Save returned, with no edit since: the spans
// come from where Save put each element, and only what Save wrote anew (the objects an edit
// changed, and what it made) is read back and compared with the tree, as Rebase compares a whole
// file; what Save copied from the source is the source's bytes, read when the model was loaded.
// At 100,000 elements this is a few milliseconds where reading the whole file again takes half a
// second. It reports false (m as it was) when data is not that output or a piece does not read
// back; Rebase then compares the whole file.
func (m *Model) rebaseSaved(data []byte) bool {
	s := m.saved
	m.saved = nil
	if s == nil || s.gen != m.gen || len(data) == 0 || len(data) != len(s.out) || &data[0] != &s.out[0] {
		return false
	}
	src := unsafe.String(unsafe.SliceData(data), len(data))
	for _, f := range s.fresh {
		if !m.readsBack(src, f) {
			return false
		}
	}
	n := 0
	for _, a := range s.at {
		m.spans[a.e] = a.span
		n++
	}
	for _, mv := range s.moved {
		n += m.shift(mv.e, mv.delta)
	}
	if n != len(m.spans) { // elements no longer in the tree: keep only the tree's
		spans := make(map[*etree.Element]span, n)
		var keep func(e *etree.Element)
		keep = func(e *etree.Element) {
			spans[e] = m.spans[e]
			for _, t := range e.Child {
				if c, ok := t.(*etree.Element); ok {
					keep(c)
				}
			}
		}
		keep(m.root)
		m.spans = spans
	}
	m.src, m.nl = src, detectNewline(src)
	m.state = map[*etree.Element]uint8{}
	m.idSeed, m.idSeq = "", 0
	return true
}

// shift moves the spans of e and every element below it by delta; it returns how many it moved.
func (m *Model) shift(e *etree.Element, delta int) int {
	sp := m.spans[e]
	m.spans[e] = span{start: sp.start + delta, tagEnd: sp.tagEnd + delta, end: sp.end + delta}
	n := 1
	for _, t := range e.Child {
		if c, ok := t.(*etree.Element); ok {
			n += m.shift(c, delta)
		}
	}
	return n
}

// readsBack reads the bytes Save wrote anew for an element (f) as a file of their own and
// compares them with the element's subtree, ids and the index included, as Rebase does. (The
// spans Save noted are proved by their use: an apply's proof saves the model undone and done
// again from them, byte for byte.)
func (m *Model) readsBack(src string, f spanOf) bool {
	if f.start < 0 || f.end > len(src) || f.start >= f.end {
		return false
	}
	parent := &etree.Element{Child: []etree.Token{f.e}}
	c := &compare{m: m, fragment: true}
	c.stack = append(c.stack, cursor{e: parent, indexed: m.indexedByLoad(f.e.Parent())})
	err := readInto(src[f.start:f.end], c)
	return err == nil && !c.differs && len(c.stack) == 1 && c.stack[0].next == 1
}

// indexedByLoad reports whether Load indexes the objects below e (see compare.opened): e is the
// model, or an object below it with every element between them one.
func (m *Model) indexedByLoad(e *etree.Element) bool {
	if e == nil || e == &m.doc.Element {
		return false
	}
	if e == m.root {
		return kindOf(e) == KindModel
	}
	return kindOf(e) != kindNone && m.indexedByLoad(e.Parent())
}

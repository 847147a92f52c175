package archixml

import (
	"fmt"

	"github.com/beevik/etree"
)

// Step is one low-level change an edit made, recorded so that it can be undone later, also in
// another process: nodes are named by the nearest object with an id and a path of element-child
// positions below it, and what a removal took is kept as XML.
type Step struct {
	Op    string  `json:"op"`              // "attr", "text", "insert" or "remove"
	ID    string  `json:"id"`              // the object at or above the node ("" for the model root)
	Path  []int   `json:"path,omitempty"`  // element-child positions from that object down to the node
	Key   string  `json:"key,omitempty"`   // attr: the attribute
	Old   *string `json:"old,omitempty"`   // attr, text: the value before; absent when there was none
	Index int     `json:"index,omitempty"` // remove: the removed node's position among the element children
	// Pos is, for an attr step that removed an attribute, its position among the element's
	// attributes, so that undo puts it back where it was (Archi 2.6 files keep another order
	// than EMF's). Absent in older inverses: the attribute then goes where EMF writes it.
	Pos *int   `json:"pos,omitempty"`
	XML string `json:"xml,omitempty"` // remove: the removed node, as XML
}

// Steps returns how many steps are recorded so far (while recording): where the next edit's
// steps begin.
func (m *Model) Steps() int {
	if m.rec == nil {
		return 0
	}
	return len(*m.rec)
}

// StepsBetween returns the steps recorded in [from, to) while recording, without stopping it:
// what one edit, or one action of a plan, did.
func (m *Model) StepsBetween(from, to int) []Step {
	if m.rec == nil || from < 0 || to > len(*m.rec) || from > to {
		return nil
	}
	return (*m.rec)[from:to]
}

// Record starts recording the steps of every edit; Recorded returns them.
func (m *Model) Record() { m.rec = &[]Step{} }

// Recorded stops recording and returns the steps recorded since Record, in the order made.
func (m *Model) Recorded() []Step {
	if m.rec == nil {
		return nil
	}
	s := *m.rec
	m.rec = nil
	return s
}

func (m *Model) record(s Step) {
	if m.rec != nil {
		*m.rec = append(*m.rec, s)
	}
}

// ref names a node by its nearest object with an id and the element-child positions below it.
func (m *Model) ref(e *etree.Element) (string, []int) {
	var path []int
	for n := e; n != nil; n = n.Parent() {
		if n == m.root {
			break
		}
		if id := n.SelectAttrValue("id", ""); id != "" && kindOf(n) != kindNone {
			reverse(path)
			return id, path
		}
		path = append(path, elementIndex(n))
	}
	reverse(path)
	return "", path
}

func reverse(p []int) {
	for i, j := 0, len(p)-1; i < j; i, j = i+1, j-1 {
		p[i], p[j] = p[j], p[i]
	}
}

// elementIndex is e's position among its parent's element children.
func elementIndex(e *etree.Element) int {
	i := 0
	for _, t := range e.Parent().Child {
		if c, ok := t.(*etree.Element); ok {
			if c == e {
				return i
			}
			i++
		}
	}
	return -1
}

func elementAt(p *etree.Element, index int) *etree.Element {
	i := 0
	for _, t := range p.Child {
		if c, ok := t.(*etree.Element); ok {
			if i == index {
				return c
			}
			i++
		}
	}
	return nil
}

func (m *Model) resolve(id string, path []int) (*etree.Element, error) {
	e := m.root
	if id != "" {
		var ok bool
		if e, ok = m.byID[id]; !ok {
			return nil, fmt.Errorf("undo: %q: %w", id, ErrNotFound)
		}
	}
	for _, i := range path {
		if e = elementAt(e, i); e == nil {
			return nil, fmt.Errorf("undo: no node at %v under %q: %w", path, id, ErrNotFound)
		}
	}
	return e, nil
}

// fragment is e and everything below it as XML.
func (m *Model) fragment(e *etree.Element) string {
	var b output
	m.writeElement(&b, e, 0)
	return b.buf.String()
}

// Undo reverts recorded steps, last first. Steps that are not ones an edit could have recorded
// (ValidateSteps) are refused before anything changes (ErrBadStep). It stops at the first step
// that no longer fits the model (an object a later edit removed, or ErrBadStep for one that names
// the wrong kind of node); the model may then be partly reverted, so callers undo on a copy they
// can throw away.
func (m *Model) Undo(steps []Step) error {
	_, err := m.UndoTags(steps)
	return err
}

// UndoTags is Undo that also says which element of Archi's model each step changed, by its tag:
// the element whose attribute or text it set, the element it inserted, the element it removed
// (for an attr step, the tag of the element holding the attribute). An inverse's check compares
// them with what the ops of its plan declare they change.
func (m *Model) UndoTags(steps []Step) ([]string, error) {
	if err := ValidateSteps(steps); err != nil {
		return nil, fmt.Errorf("undo: %w", err)
	}
	tags := make([]string, len(steps))
	for i := len(steps) - 1; i >= 0; i-- {
		s := steps[i]
		e, err := m.resolve(s.ID, s.Path)
		if err != nil {
			return tags, fmt.Errorf("undo: step %d (%s): %w", i, s.Op, err)
		}
		if err := m.checkUndoTarget(s, e); err != nil {
			return tags, fmt.Errorf("undo: step %d (%s): %v: %w", i, s.Op, err, ErrBadStep)
		}
		tags[i] = e.Tag
		switch s.Op {
		case "attr":
			switch {
			case s.Old == nil:
				m.removeAttr(e, s.Key)
			case s.Pos != nil && e.SelectAttr(s.Key) == nil:
				m.insertAttrAt(e, s.Key, *s.Old, *s.Pos)
			default:
				m.setAttr(e, s.Key, *s.Old)
			}
		case "text":
			old := ""
			if s.Old != nil {
				old = *s.Old
			}
			m.setText(e, old)
		case "insert":
			if e == m.root {
				return tags, fmt.Errorf("undo: cannot remove the model: %w", ErrWrongKind)
			}
			m.removeChild(e)
		case "remove":
			doc, _, err := read(s.XML)
			if err != nil {
				return tags, fmt.Errorf("undo: removed XML: %w", err)
			}
			c := doc.Root()
			tags[i] = c.Tag
			doc.RemoveChild(c)
			m.insertChildAt(e, c, s.Index)
			if k := kindOf(c); k != kindNone {
				m.indexTree(c, k)
			}
		default:
			return tags, fmt.Errorf("undo: unknown step %q: %w", s.Op, ErrWrongKind)
		}
	}
	return tags, nil
}

// insertChildAt puts c at the index among p's element children.
func (m *Model) insertChildAt(p, c *etree.Element, index int) {
	pos := len(p.Child)
	if at := elementAt(p, index); at != nil {
		pos = at.Index()
	}
	p.InsertChildAt(pos, c)
	m.markDirty(p)
	if m.rec != nil {
		id, path := m.ref(c)
		m.record(Step{Op: "insert", ID: id, Path: path})
	}
}

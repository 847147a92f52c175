package archixml

import (
	"errors"
	"fmt"
	"strings"

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
func (m *Model) Record() { m.rec, m.touches = &[]Step{}, nil }

// Recorded stops recording and returns the steps recorded since Record, in the order made.
func (m *Model) Recorded() []Step {
	if m.rec == nil {
		return nil
	}
	s := *m.rec
	m.rec = nil // the touches stay, so that Resume takes up the journal with them
	return s
}

// Resume records again after steps (what Recorded returned): the edits made between Recorded and
// Resume, which must leave the model as it was, are not kept.
func (m *Model) Resume(steps []Step) { m.rec = &steps }

// Touch is what one recorded step changed, for what a change is shown as (its pictures): the step,
// the tag of the element it changed (whose attribute or text it set, that it inserted or that it
// removed), and the id of the object it inserted or removed ("" for a node that is no object).
type Touch struct {
	Step
	Tag  string
	Node string
	Kind Kind // of the object inserted or removed
}

// Touches returns what the steps from..to recorded so far changed (while recording).
func (m *Model) Touches(from, to int) []Touch {
	if m.rec == nil || from < 0 || to > len(m.touches) || from > to {
		return nil
	}
	out := make([]Touch, 0, to-from)
	for i := from; i < to; i++ {
		t := m.touches[i]
		t.Step = (*m.rec)[i]
		out = append(out, t)
	}
	return out
}

func (m *Model) record(s Step, e *etree.Element) {
	if m.rec != nil {
		*m.rec = append(*m.rec, s)
		t := Touch{Tag: e.Tag}
		if k := kindOf(e); (s.Op == "insert" || s.Op == "remove") && k != kindNone {
			t.Node, t.Kind = e.SelectAttrValue("id", ""), k
		}
		m.touches = append(m.touches, t)
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
		m.record(Step{Op: "insert", ID: id, Path: path}, c)
	}
}

// ErrChangedSince means a step's node no longer holds what the edit that recorded it left there:
// a later change touched the same field.
var ErrChangedSince = errors.New("changed since")

// ChangedError is the ErrChangedSince of one step: the object (its type, name and id, as the
// edits left it), its id, and how the field the step restores differs.
type ChangedError struct {
	Object string
	ID     string
	How    string
}

func (e *ChangedError) Error() string { return e.Object + " changed since: " + e.How }

func (e *ChangedError) Unwrap() error { return ErrChangedSince }

// UndoAlong undoes steps on m, a model that may hold changes made after them, alongside made,
// the model their edits made (made is undone with it, step by step, and left the model before the
// edits). Before each step, the node it changes must hold on m what it holds on made: the
// attribute or text it restores, the whole element it takes out; for an element it puts back, the
// parent must be there and none of its ids. So what changed since elsewhere, or in other fields of
// the same object, is kept, and a revert applies in any order. The first step whose node differs
// stops it with an error that wraps ErrChangedSince and names the object and the field; m may
// then be partly undone (callers undo on a copy they can throw away).
func (m *Model) UndoAlong(made *Model, steps []Step) error {
	if err := ValidateSteps(steps); err != nil {
		return fmt.Errorf("undo: %w", err)
	}
	for i := len(steps) - 1; i >= 0; i-- {
		s := steps[i]
		want, err := made.resolve(s.ID, s.Path)
		if err != nil {
			return fmt.Errorf("undo: step %d (%s): %w", i, s.Op, err)
		}
		what := made.describe(s.ID)
		have, err := m.resolve(s.ID, s.Path)
		if err != nil {
			return &ChangedError{Object: what, ID: s.ID, How: "it is gone"}
		}
		if err := m.sameForStep(s, have, want, made); err != nil {
			return &ChangedError{Object: what, ID: s.ID, How: err.Error()}
		}
		one := []Step{s}
		if err := made.Undo(one); err != nil {
			return err
		}
		if err := m.Undo(one); err != nil {
			return err
		}
	}
	return nil
}

// describe names an object for a person: its type, name and id.
func (m *Model) describe(id string) string {
	if id == "" {
		return "the model"
	}
	o, ok := m.Object(id)
	if !ok {
		return fmt.Sprintf("%q", id)
	}
	if o.Name() == "" {
		return fmt.Sprintf("%s %s", TypeWords(o.Class()), id)
	}
	return fmt.Sprintf("%s %q (%s)", TypeWords(o.Class()), o.Name(), id)
}

// sameForStep says how have (the step's node on m) differs from want (on made) in what step s
// changes, or nil.
func (m *Model) sameForStep(s Step, have, want *etree.Element, made *Model) error {
	field := func(name string) string {
		if len(s.Path) > 0 {
			return want.Tag + " " + name // bounds x, property value
		}
		return name
	}
	if have.Tag != want.Tag {
		return fmt.Errorf("its <%s> is now a <%s>", want.Tag, have.Tag)
	}
	switch s.Op {
	case "attr":
		a, b := have.SelectAttr(s.Key), want.SelectAttr(s.Key)
		switch {
		case a == nil && b == nil:
		case a == nil:
			return fmt.Errorf("%s was removed (the revert expects %q)", field(s.Key), b.Value)
		case b == nil:
			return fmt.Errorf("%s is now %q (the revert expects none)", field(s.Key), a.Value)
		case a.Value != b.Value:
			return fmt.Errorf("%s is now %q (the revert expects %q)", field(s.Key), a.Value, b.Value)
		}
	case "text":
		if a, b := have.Text(), want.Text(); a != b {
			return fmt.Errorf("%s is now %q (the revert expects %q)", field(want.Tag), a, b)
		}
	case "insert":
		// the revert takes the element out: what it takes must be what the edit put in
		if m.fragment(have) != made.fragment(want) {
			why := firstDifference(have, want)
			if why == "" {
				why = "its layout"
			}
			return fmt.Errorf("the %s it added was changed since: %s", want.Tag, why)
		}
	case "remove":
		node, err := removedNode(s.XML)
		if err != nil {
			return err
		}
		var back error
		var walk func(*etree.Element)
		walk = func(c *etree.Element) {
			if id := c.SelectAttrValue("id", ""); id != "" && back == nil {
				if _, ok := m.byID[id]; ok {
					back = fmt.Errorf("the %s it would bring back (%s) is in the model again", c.Tag, m.describe(id))
				}
			}
			for _, k := range c.ChildElements() {
				walk(k)
			}
		}
		walk(node)
		return back
	}
	return nil
}

// firstDifference names the first attribute, text or child in which two elements of one tag
// differ ("" when none does).
func firstDifference(a, b *etree.Element) string {
	for _, x := range b.Attr {
		if y := a.SelectAttr(x.FullKey()); y == nil {
			return fmt.Sprintf("%s %s removed", b.Tag, x.FullKey())
		} else if y.Value != x.Value {
			return fmt.Sprintf("%s %s is now %q, was %q", b.Tag, x.FullKey(), y.Value, x.Value)
		}
	}
	for _, y := range a.Attr {
		if b.SelectAttr(y.FullKey()) == nil {
			return fmt.Sprintf("%s %s is now %q", a.Tag, y.FullKey(), y.Value)
		}
	}
	ac, bc := a.ChildElements(), b.ChildElements()
	for i := range bc {
		if i >= len(ac) {
			return "a " + bc[i].Tag + " in " + b.Tag + " removed"
		}
		if ac[i].Tag != bc[i].Tag {
			return "a " + ac[i].Tag + " in " + b.Tag + " where a " + bc[i].Tag + " was"
		}
		if d := firstDifference(ac[i], bc[i]); d != "" {
			return d
		}
	}
	if len(ac) > len(bc) {
		return "a " + ac[len(bc)].Tag + " added in " + a.Tag
	}
	if len(bc) == 0 && strings.TrimSpace(a.Text()) != strings.TrimSpace(b.Text()) {
		return fmt.Sprintf("%s is now %q, was %q", b.Tag, a.Text(), b.Text())
	}
	return ""
}

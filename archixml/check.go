package archixml

import (
	"errors"
	"fmt"
	"strings"

	"github.com/beevik/etree"
)

// ErrInvalidModel means the model holds what Archi's model checker refuses when it opens a file
// (Archi then does not open it): objects without ids, ids used twice, types Archi does not know,
// references to objects that are not there or not of the kind referred to.
var ErrInvalidModel = errors.New("the model is not one Archi can open")

// Problem is one thing in a model that Archi refuses.
type Problem struct {
	What    string // "missing id", "duplicate id", "unknown type", "dangling reference"
	ID      string // the object the problem is in (its parent's, for an object without an id)
	Message string
}

func (p Problem) String() string { return p.What + ": " + p.Message }

// diagramChildTypes are the xsi:types of a view's <child> (archimate.ecore and canvas.ecore).
var diagramChildTypes = set("archimate:DiagramObject", "archimate:Group", "archimate:Note",
	"archimate:DiagramModelReference", "archimate:DiagramModelImage", "archimate:SketchModelSticky",
	"archimate:SketchModelActor", "canvas:CanvasModelSticky", "canvas:CanvasModelBlock", "canvas:CanvasModelImage")

// Problems lists what Archi would refuse in the model, in document order (at most 100).
func (m *Model) Problems() []Problem {
	pl := &problemList{m: m}
	for _, id := range m.dupIDs {
		pl.add("duplicate id", id, "the id %q names more than one object", id)
	}
	pl.walk(m.root)
	return pl.out
}

// problemList collects a model's problems in document order, at most 100.
type problemList struct {
	m   *Model
	out []Problem
}

func (pl *problemList) add(what, id, format string, args ...any) {
	if len(pl.out) < 100 {
		pl.out = append(pl.out, Problem{What: what, ID: id, Message: fmt.Sprintf(format, args...)})
	}
}

// refKind checks that a reference names an object of one of the kinds given.
func (pl *problemList) refKind(from, attr, ref string, kinds ...Kind) {
	e, ok := pl.m.byID[ref]
	if !ok {
		pl.add("dangling reference", from, "%s of %q names %q, which is not in the model", attr, from, ref)
		return
	}
	k := kindOf(e)
	for _, want := range kinds {
		if k == want {
			return
		}
	}
	pl.add("dangling reference", from, "%s of %q names %q, %s, not %s", attr, from, ref, Article(k.String()), Article(kinds[0].String()))
}

// walk checks e's id and type, then its references, then its children.
func (pl *problemList) walk(e *etree.Element) {
	k := kindOf(e)
	id := e.SelectAttrValue("id", "")
	if k != kindNone && k != KindModel && id == "" {
		pid := ""
		if p := e.Parent(); p != nil {
			pid = p.SelectAttrValue("id", "")
		}
		pl.add("missing id", pid, "a <%s> in %q has no id", e.Tag, pid)
	}
	typ := e.SelectAttrValue("xsi:type", "")
	switch {
	case e.Tag == "element" && e.Parent() != nil && e.Parent().Tag == "folder":
		if k == KindOther {
			pl.add("unknown type", id, "%q is of type %q, which Archi does not know", id, typ)
		}
	case k == KindDiagramObject:
		if !diagramChildTypes[typ] {
			pl.add("unknown type", id, "the diagram object %q is of type %q, which Archi does not know", id, typ)
		}
	}
	pl.references(e, k, id, typ)
	if k == KindElement || k == KindRelationship || k == KindView {
		for _, p := range strings.Fields(e.SelectAttrValue("profiles", "")) {
			pl.refKind(id, "profiles", p, KindProfile)
		}
	}
	for _, c := range e.ChildElements() {
		pl.walk(c)
	}
}

// references checks what e, of kind k, names: a relationship's ends, what a diagram object shows,
// a connection's relationship and ends.
func (pl *problemList) references(e *etree.Element, k Kind, id, typ string) {
	switch k {
	case KindRelationship:
		for _, end := range []string{"source", "target"} {
			if v := e.SelectAttrValue(end, ""); v == "" {
				pl.add("dangling reference", id, "the relationship %q has no %s", id, end)
			} else {
				pl.refKind(id, end, v, KindElement, KindRelationship)
			}
		}
	case KindDiagramObject:
		switch typ {
		case "archimate:DiagramObject":
			if v := e.SelectAttrValue("archimateElement", ""); v == "" {
				pl.add("dangling reference", id, "the diagram object %q shows no element", id)
			} else {
				pl.refKind(id, "archimateElement", v, KindElement)
			}
		case "archimate:DiagramModelReference":
			if v := e.SelectAttrValue("model", ""); v != "" {
				pl.refKind(id, "model", v, KindView)
			}
		}
		for _, c := range strings.Fields(e.SelectAttrValue("targetConnections", "")) {
			pl.refKind(id, "targetConnections", c, KindConnection)
		}
	case KindConnection:
		if typ == "archimate:Connection" {
			if v := conceptRef(e); v == "" {
				pl.add("dangling reference", id, "the connection %q shows no relationship", id)
			} else {
				pl.refKind(id, "archimateRelationship", v, KindRelationship)
			}
		}
		for _, end := range []string{"source", "target"} {
			if v := e.SelectAttrValue(end, ""); v != "" {
				pl.refKind(id, end, v, KindDiagramObject, KindConnection)
			} else if end == "target" {
				pl.add("dangling reference", id, "the connection %q has no target", id)
			}
		}
		for _, c := range strings.Fields(e.SelectAttrValue("targetConnections", "")) {
			pl.refKind(id, "targetConnections", c, KindConnection)
		}
	}
}

// Check reports a model Archi would not open: nil, or an error wrapping ErrInvalidModel that says
// how many problems there are and names the first ones. Call it on the model at HEAD before
// validating or applying a plan against it, and on a model an edit or an undo made before
// committing it.
func Check(m *Model) error {
	ps := m.Problems()
	if len(ps) == 0 {
		return nil
	}
	var b strings.Builder
	for i, p := range ps {
		if i == 3 {
			fmt.Fprintf(&b, "; and more")
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	n := fmt.Sprint(len(ps))
	if len(ps) == 100 {
		n = "100 or more"
	}
	return fmt.Errorf("%s problems: %s: %w", n, b.String(), ErrInvalidModel)
}

package plans

import (
	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/schemas"
)

// ViewChange is one change an action makes to what a view draws. It is read from what the
// action's edits recorded (the journal, the op's Effect), through schemas.Pictured, never from the
// op's name: an op that moves, restyles, reroutes or re-nests is pictured like one that renames.
type ViewChange struct {
	Action int
	View   string // the view's id
	// Object is the diagram object or connection changed; "" for the view itself (its router),
	// or, with What added or removed, for the whole view
	Object string
	What   string // the legend's word: added, removed, re-nested, moved, restyled, renamed, ...
	// Shown: the change is to the concept the object shows (a rename, a type), not to the
	// object itself
	Shown bool
}

// The words of a ViewChange for drawn objects themselves.
const (
	ViewAdded    = "added"
	ViewRemoved  = "removed"
	ViewRenested = "moved into another parent"
)

// viewChanges reads, while the model is as the plan leaves it, what each action's edits changed
// on views.
func (e *engine) viewChanges() []ViewChange {
	var out []ViewChange
	seen := map[ViewChange]bool{}
	emit := func(c ViewChange) {
		if c.View != "" && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	viewOf := func(id string) string {
		o, ok := e.m.Object(id)
		if !ok {
			return ""
		}
		if o.Kind() == archixml.KindView {
			return id
		}
		if v, ok := o.View(); ok {
			return v.ID()
		}
		return ""
	}
	for _, r := range e.results {
		var touches []archixml.Touch
		for _, rg := range r.steps {
			touches = append(touches, e.m.Touches(rg[0], rg[1])...)
		}
		inserted, removed := map[string]bool{}, map[string]bool{}
		for _, t := range touches {
			switch t.Op {
			case "insert":
				inserted[t.Node] = true
			case "remove":
				removed[t.Node] = true
			}
		}
		for _, t := range touches {
			if t.Node != "" && (t.Op == "insert" || t.Op == "remove") {
				switch {
				case t.Kind == archixml.KindView:
					w := ViewAdded
					if t.Op == "remove" {
						w = ViewRemoved
					}
					emit(ViewChange{Action: r.Index, View: t.Node, What: w})
				case t.Kind != archixml.KindDiagramObject && t.Kind != archixml.KindConnection:
				case inserted[t.Node] && removed[t.Node]:
					if t.Op == "insert" {
						emit(ViewChange{Action: r.Index, View: viewOf(t.Node), Object: t.Node, What: ViewRenested})
					}
				case t.Op == "insert":
					emit(ViewChange{Action: r.Index, View: viewOf(t.Node), Object: t.Node, What: ViewAdded})
				default:
					// gone: on the view that held it, when what held it is still there
					emit(ViewChange{Action: r.Index, View: viewOf(t.ID), Object: t.Node, What: ViewRemoved})
				}
				continue
			}
			key := t.Tag
			if t.Op == "attr" {
				key = t.Key
			}
			word := schemas.Pictured[key]
			if word == "" || word == schemas.PictureObject {
				continue
			}
			o, ok := e.m.Object(t.ID)
			if !ok {
				continue // removed by a later edit: its removal is pictured
			}
			switch o.Kind() {
			case archixml.KindView:
				emit(ViewChange{Action: r.Index, View: o.ID(), What: word})
			case archixml.KindDiagramObject, archixml.KindConnection:
				emit(ViewChange{Action: r.Index, View: viewOf(o.ID()), Object: o.ID(), What: word})
			case archixml.KindElement, archixml.KindRelationship:
				for _, ref := range e.m.ReferencesTo(o.ID()) {
					if k := ref.Kind(); k == archixml.KindDiagramObject || k == archixml.KindConnection {
						emit(ViewChange{Action: r.Index, View: viewOf(ref.ID()), Object: ref.ID(), What: word, Shown: true})
					}
				}
			}
		}
	}
	return out
}

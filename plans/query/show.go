package query

import (
	"fmt"
	"sort"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/plans/planctx"
)

// Property is a key and value, in the order the model holds them (keys may repeat).
type Property struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Related is a relationship of a shown object, with the other end.
type Related struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Direction string `json:"direction"` // out: the shown object is the source; in: the target
	Name      string `json:"name,omitempty"`
	Other     Ref    `json:"other"`
}

// Appearance is a view showing an object, and the diagram object (or connection) there.
type Appearance struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Object string `json:"object"`
}

// Shown is an object with what surrounds it: for an element or relationship its properties,
// documentation, relationships both ways and the views showing it; for a view its viewpoint and
// contents.
type Shown struct {
	FormatVersion string `json:"format_version"`
	Ref
	Documentation  string                `json:"documentation"`
	Properties     []Property            `json:"properties"`
	Specialization string                `json:"specialization,omitempty"`
	SourceRef      *Ref                  `json:"source_end,omitempty"`
	TargetRef      *Ref                  `json:"target_end,omitempty"`
	Relationships  []Related             `json:"relationships"`
	Views          []Appearance          `json:"views"`
	Viewpoint      *ViewpointName        `json:"viewpoint,omitempty"`
	Contents       *planctx.ViewContents `json:"contents,omitempty"`
	Impact         *Impact               `json:"impact,omitempty"`
}

// ViewpointName is a view's viewpoint as the file holds it and as Archi names it.
type ViewpointName struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ViewpointOf names a view's viewpoint.
func ViewpointOf(v archixml.Object) ViewpointName {
	return ViewpointName{ID: v.Attr("viewpoint"), Name: archixml.ViewpointOf(v.Attr("viewpoint")).Name}
}

// Impact is what deleting or changing an object would touch, as the delete cascade computes it
// (the same cascade a plan's delete runs: relationships attached, and relationships attached to
// those, their diagram objects and connections on every view).
type Impact struct {
	Delete ImpactDelete `json:"delete"`
	// Change: where a rename or a property change shows (the views drawing it, the
	// relationships naming it as an end).
	Change ImpactChange `json:"change"`
}

// ImpactDelete is what a delete takes with it.
type ImpactDelete struct {
	Relationships  []Ref        `json:"relationships"`
	DiagramObjects int          `json:"diagram_objects"`
	Connections    int          `json:"connections"`
	Views          []ViewImpact `json:"views"` // the views that lose something
	// Takes names what the delete takes along, as a plan's preview does: each relationship by type
	// and ends, each object drawn inside an appearance and each other connection by what it shows
	Takes []string `json:"takes,omitempty"`
}

// ViewImpact is one view a delete changes.
type ViewImpact struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	DiagramObjects int    `json:"diagram_objects"`
	Connections    int    `json:"connections"`
}

// ImpactChange is where a change of the object shows.
type ImpactChange struct {
	Views         int `json:"views"`
	Relationships int `json:"relationships"`
}

// Show shows one element, relationship or view; impact adds what deleting or changing it touches.
func Show(m *archixml.Model, id string, impact bool) (*Shown, error) {
	o, ok := m.Object(id)
	if !ok {
		return nil, fmt.Errorf("%w: %q is no id of the model", ErrNotFound, id)
	}
	s := &Shown{FormatVersion: FormatVersion, Ref: RefOf(o), Documentation: o.Documentation(), Properties: []Property{},
		Relationships: []Related{}, Views: []Appearance{}}
	for _, p := range o.Properties() {
		s.Properties = append(s.Properties, Property{p.Key, p.Value})
	}
	switch o.Kind() {
	case archixml.KindView:
		vp := ViewpointOf(o)
		s.Viewpoint = &vp
		s.Contents = planctx.ViewContentsOf(o)
		// the views that refer to this one
		for _, v := range m.Views() {
			for _, d := range v.DiagramObjects() {
				if d.Class() == "DiagramModelReference" && d.Attr("model") == o.ID() {
					s.Views = append(s.Views, Appearance{ID: v.ID(), Name: v.Name(), Object: d.ID()})
				}
			}
		}
	case archixml.KindElement, archixml.KindRelationship:
		for _, pid := range o.ProfileIDs() {
			if p, ok := m.Object(pid); ok {
				s.Specialization = p.Name()
			}
		}
		if o.Kind() == archixml.KindRelationship {
			if e, ok := o.Source(); ok {
				r := RefOf(e)
				s.SourceRef = &r
			}
			if e, ok := o.Target(); ok {
				r := RefOf(e)
				s.TargetRef = &r
			}
		}
		for _, r := range m.RelationshipsOf(o.ID()) {
			x := Related{ID: r.ID(), Type: RefOf(r).Type, Name: r.Name(), Direction: "out"}
			other := r.TargetID()
			if r.TargetID() == o.ID() && r.SourceID() != o.ID() {
				x.Direction, other = "in", r.SourceID()
			}
			if e, ok := m.Object(other); ok {
				x.Other = RefOf(e)
			}
			s.Relationships = append(s.Relationships, x)
		}
		for _, ref := range m.ReferencesTo(o.ID()) {
			if v, ok := ref.View(); ok {
				s.Views = append(s.Views, Appearance{ID: v.ID(), Name: v.Name(), Object: ref.ID()})
			}
		}
	default:
		return nil, fmt.Errorf("%w: %q is a %s; show takes elements, relationships and views", ErrWrongKind, id, o.Kind())
	}
	if impact {
		imp, err := impactOf(m, o)
		if err != nil {
			return nil, err
		}
		s.Impact = imp
	}
	return s, nil
}

// impactOf runs the delete on the model, records what it took, and puts the model back.
func impactOf(m *archixml.Model, o archixml.Object) (*Impact, error) {
	views := map[string]bool{}
	for _, ref := range m.ReferencesTo(o.ID()) {
		if v, ok := ref.View(); ok {
			views[v.ID()] = true
		}
	}
	imp := &Impact{Change: ImpactChange{Views: len(views), Relationships: len(m.RelationshipsOf(o.ID()))}}
	// where each diagram object and connection is, before the delete takes them away
	m.Record()
	takes, del, err := plans.DeleteTakes(m, o, func() (archixml.Deleted, error) {
		switch o.Kind() {
		case archixml.KindElement:
			return m.DeleteElement(o.ID())
		case archixml.KindRelationship:
			return m.DeleteRelationship(o.ID())
		case archixml.KindView:
			return m.DeleteView(o.ID())
		}
		return archixml.Deleted{}, nil
	})
	if uerr := m.Undo(m.Recorded()); uerr != nil {
		return nil, fmt.Errorf("impact of %s: undo: %w", o.ID(), uerr)
	}
	if err != nil {
		return nil, fmt.Errorf("impact of %s: %w", o.ID(), err)
	}
	imp.Delete = ImpactDelete{Relationships: []Ref{}, Views: []ViewImpact{}, DiagramObjects: len(del.DiagramObjects), Connections: len(del.Connections),
		Takes: takes}
	for _, id := range del.Relationships {
		if r, ok := m.Object(id); ok {
			imp.Delete.Relationships = append(imp.Delete.Relationships, RefOf(r))
		}
	}
	byView := map[string]*ViewImpact{}
	count := func(ids []string, conn bool) {
		for _, id := range ids {
			d, ok := m.Object(id)
			if !ok {
				continue
			}
			v, ok := d.View()
			if !ok || v.ID() == o.ID() {
				continue
			}
			vi := byView[v.ID()]
			if vi == nil {
				vi = &ViewImpact{ID: v.ID(), Name: v.Name()}
				byView[v.ID()] = vi
			}
			if conn {
				vi.Connections++
			} else {
				vi.DiagramObjects++
			}
		}
	}
	count(del.DiagramObjects, false)
	count(del.Connections, true)
	for _, vi := range byView {
		imp.Delete.Views = append(imp.Delete.Views, *vi)
	}
	sort.Slice(imp.Delete.Views, func(i, j int) bool {
		a, b := imp.Delete.Views[i], imp.Delete.Views[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.ID < b.ID
	})
	return imp, nil
}

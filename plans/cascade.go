package plans

import (
	"fmt"

	"github.com/archiplan/archiplan/archixml"
)

// cascade is what a delete or a removal from a view may take along, named while it is still
// there: once the edit is made, the relationships, diagram objects and connections it took are
// ids of nothing. After the edit, takes names each of them that went, and unviewed lists the
// concepts whose appearances went with them (those the plan leaves on no view are warned about).
type cascade struct {
	words map[string]string // id -> how the preview names it
	shows map[string]string // diagram object or connection id -> the concept it shows
	self  string            // the deleted concept: its own appearances are counted, not listed
	root  string            // the diagram object or connection removed: its action names it
}

// newCascade names what deleting o, or removing the diagram object or connection o from its
// view, may take: o's relationships (and theirs), every diagram object showing one of them with
// what is drawn inside it, and the connections attached to those.
func newCascade(m *archixml.Model, o archixml.Object) *cascade {
	c := &cascade{words: map[string]string{}, shows: map[string]string{}}
	var shown []archixml.Object
	switch o.Kind() {
	case archixml.KindDiagramObject, archixml.KindConnection:
		shown, c.root = []archixml.Object{o}, o.ID()
	case archixml.KindView:
		for _, d := range o.DiagramObjects() {
			c.note(d)
		}
		for _, cn := range o.Connections() {
			c.note(cn)
		}
		return c
	default:
		c.self = o.ID()
		queue, seen := []archixml.Object{o}, map[string]bool{o.ID(): true}
		for len(queue) > 0 {
			x := queue[0]
			queue = queue[1:]
			for _, ref := range m.ReferencesTo(x.ID()) {
				if _, ok := ref.View(); ok {
					shown = append(shown, ref)
				}
			}
			for _, r := range m.RelationshipsOf(x.ID()) {
				if !seen[r.ID()] {
					seen[r.ID()] = true
					c.words[r.ID()] = relWords(r)
					queue = append(queue, r)
				}
			}
		}
	}
	inside := map[string]bool{}
	var views []archixml.Object
	viewSeen := map[string]bool{}
	var walk func(d archixml.Object)
	walk = func(d archixml.Object) {
		if inside[d.ID()] {
			return
		}
		inside[d.ID()] = true
		c.note(d)
		for _, ch := range d.Children() {
			if ch.Kind() == archixml.KindDiagramObject {
				walk(ch)
			}
		}
	}
	for _, d := range shown {
		if v, ok := d.View(); ok && !viewSeen[v.ID()] {
			viewSeen[v.ID()] = true
			views = append(views, v)
		}
		if d.Kind() == archixml.KindDiagramObject {
			walk(d)
		} else {
			c.note(d)
		}
	}
	for _, v := range views {
		for _, cn := range v.Connections() {
			if inside[cn.SourceID()] || inside[cn.TargetID()] {
				c.note(cn)
			}
		}
	}
	return c
}

// note names a diagram object or connection: what it shows, on which view, inside what.
func (c *cascade) note(d archixml.Object) {
	if _, ok := c.words[d.ID()]; ok {
		return
	}
	what := diagramLabel(d)
	if d.Class() == "DiagramModelReference" {
		if v, ok := d.Model().Object(d.Attr("model")); ok {
			what = words("the reference to view %q (%s)", v.Name(), d.ID())
		}
	}
	if x, ok := d.Concept(); ok {
		c.shows[d.ID()] = x.ID()
		if x.Kind() == archixml.KindRelationship {
			what = "the connection of " + relWords(x)
		} else {
			what = label(x)
		}
	}
	if v, ok := d.View(); ok {
		what += words(" from view %q", v.Name())
	}
	if p, ok := d.Parent(); ok && d.Kind() == archixml.KindDiagramObject && p.Kind() == archixml.KindDiagramObject {
		if x, ok := p.Concept(); ok {
			what += words(", drawn inside %q", x.Name())
		} else if p.Name() != "" {
			what += words(", drawn inside %q", p.Name())
		}
	}
	c.words[d.ID()] = what
}

// relWords names a relationship by its type, its name when it has one, and its two ends.
func relWords(r archixml.Object) string {
	t := r.Class()
	if ty := r.Type(); ty != nil {
		t = ty.Label
	}
	name := ""
	if r.Name() != "" {
		name = words(" %q", r.Name())
	}
	end := func(o archixml.Object, ok bool, id string) string {
		if !ok {
			return id
		}
		if o.Kind() == archixml.KindRelationship {
			return "the " + labelOf(o) + " relationship " + o.ID()
		}
		n := o.Name()
		if n == "" {
			n = "(unnamed)"
		}
		return words("%s %q", labelOf(o), n)
	}
	s, sok := r.Source()
	g, gok := r.Target()
	return fmt.Sprintf("%s%s from %s to %s (%s)", t, name, end(s, sok, r.SourceID()), end(g, gok, r.TargetID()), r.ID())
}

// takes names what an edit took, in the order the edit gives: each relationship it deleted,
// each diagram object and connection it removed but those showing the deleted concept itself
// (counted in the action's description) and the connections of relationships it deleted (named
// with them). It also records the concepts whose appearances went.
func (c *cascade) takes(del archixml.Deleted, r *ActionResult) {
	gone := map[string]bool{c.self: true}
	for _, id := range del.Relationships {
		gone[id] = true
		r.Takes = append(r.Takes, "also deletes the relationship "+c.name(id))
	}
	for _, ids := range [][]string{del.DiagramObjects, del.Connections} {
		for _, id := range ids {
			x := c.shows[id]
			if x != "" && !gone[x] {
				r.unviewed = append(r.unviewed, x)
			}
			if x != "" && gone[x] || id == c.root {
				continue
			}
			r.Takes = append(r.Takes, "also removes "+c.name(id))
		}
	}
}

// unviewedOf records the concepts a view's delete took off it.
func (c *cascade) unviewedOf(r *ActionResult) {
	seen := map[string]bool{}
	for _, x := range c.shows {
		if !seen[x] {
			seen[x] = true
			r.unviewed = append(r.unviewed, x)
		}
	}
}

func (c *cascade) name(id string) string {
	if w, ok := c.words[id]; ok {
		return w
	}
	return id
}

// ownAppearances counts the diagram objects del took that showed the deleted concept itself.
func (c *cascade) ownAppearances(del archixml.Deleted) int {
	n := 0
	for _, id := range del.DiagramObjects {
		if c.self != "" && c.shows[id] == c.self {
			n++
		}
	}
	return n
}

// DeleteTakes runs edit, a delete of o (or a removal of o from its view), and names what it took,
// in the words a preview uses: each relationship by type and ends, each other diagram object and
// connection by what it shows and where. The read side's impact says it as a plan's preview would.
func DeleteTakes(m *archixml.Model, o archixml.Object, edit func() (archixml.Deleted, error)) ([]string, archixml.Deleted, error) {
	c := newCascade(m, o)
	del, err := edit()
	if err != nil {
		return nil, del, err
	}
	var r ActionResult
	c.takes(del, &r)
	return r.Takes, del, nil
}

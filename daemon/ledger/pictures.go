package ledger

import (
	"fmt"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/render"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/plans"
)

// MaxPictures is how many views a preview draws; a plan that changes more says how many it did
// not draw.
const MaxPictures = 8

// pictures draws, before and after, the views a plan changes: views it creates or edits, and
// views that show what it renames, deletes or connects. It is made in two halves around a
// check: after (while the model is as the plan leaves it) and before (once it is put back).
type pictures struct {
	name   string
	views  []string // ids, in the order found
	more   int      // changed views not drawn
	after  map[string][]byte
	before map[string][]byte
	titles map[string]string
	marks  map[string]render.Mark // diagram objects and connections, by id
}

func newPictures(name string) *pictures {
	return &pictures{name: name, after: map[string][]byte{}, before: map[string][]byte{}, titles: map[string]string{},
		marks: map[string]render.Mark{}}
}

// changedViews finds the views an outcome changes, in the model as the plan leaves it.
func (p *pictures) changedViews(o *plans.Outcome, m *archixml.Model) {
	seen := map[string]bool{}
	add := func(v archixml.Object) {
		id := v.ID()
		if id == "" || seen[id] {
			return
		}
		seen[id] = true
		if len(p.views) >= MaxPictures {
			p.more++
			return
		}
		p.views = append(p.views, id)
		p.titles[id] = v.Name()
	}
	for _, r := range o.Results {
		for _, id := range r.Created {
			p.marks[id] = render.MarkAdded
		}
		if r.Deleted != nil {
			for _, ids := range [][]string{r.Deleted.DiagramObjects, r.Deleted.Connections} {
				for _, id := range ids {
					p.marks[id] = render.MarkRemoved
				}
			}
		}
	}
	for _, id := range o.Reads() {
		obj, ok := m.Object(id)
		if !ok {
			continue
		}
		switch obj.Kind() {
		case archixml.KindView:
			add(obj)
		case archixml.KindDiagramObject, archixml.KindConnection:
			if v, ok := obj.View(); ok {
				add(v)
			}
		case archixml.KindElement, archixml.KindRelationship:
			for _, ref := range m.ReferencesTo(id) {
				if _, marked := p.marks[ref.ID()]; !marked && changes(o, id) {
					p.marks[ref.ID()] = render.MarkChanged
				}
				if v, ok := ref.View(); ok {
					add(v)
				}
			}
		}
	}
}

// changes says whether an outcome changes an object itself (not only reads it).
func changes(o *plans.Outcome, id string) bool {
	for _, r := range o.Results {
		switch r.Op {
		case "create_relationship", "add_to_view", "create_view":
			continue
		}
		if r.Before != "" || r.After != "" {
			for _, c := range r.Created {
				if c == id {
					return true
				}
			}
			if strings.Contains(r.Description, id) {
				return true
			}
		}
	}
	return false
}

// draw draws the changed views as the model is now, into after or before.
func (p *pictures) draw(m *archixml.Model, after bool) {
	into := p.before
	if after {
		into = p.after
	}
	for _, id := range p.views {
		if _, ok := m.Object(id); !ok {
			continue // a view the plan creates has no before, one it deletes no after
		}
		svg, err := render.ViewWith(m, id, render.Options{Marks: p.marks})
		if err != nil {
			continue
		}
		into[id] = svg
	}
}

// files are the pictures as inbox files, and the preview's section showing them.
func (p *pictures) files() (map[string][]byte, string) {
	if len(p.views) == 0 {
		return nil, ""
	}
	files := map[string][]byte{}
	var refs []string
	var b strings.Builder
	b.WriteString("\n## Views\n\nThe views this plan changes, before and after (changed objects outlined, removed ones faint).\n\n")
	for i, id := range p.views {
		fmt.Fprintf(&b, "### %s\n\n", plans.MDEscape(p.titles[id]))
		for _, side := range []struct {
			after bool
			svg   map[string][]byte
			label string
		}{{false, p.before, "before"}, {true, p.after, "after"}} {
			data, ok := side.svg[id]
			if !ok {
				fmt.Fprintf(&b, "- %s: (none)\n", side.label)
				continue
			}
			f := inbox.PictureFile(p.name, i+1, side.after)
			files[f] = data
			// a reference, defined below: the preview holds no inline link syntax at all
			fmt.Fprintf(&b, "- %s: ![%s][%s]\n", side.label, side.label, f)
			refs = append(refs, fmt.Sprintf("[%s]: %s\n", f, f))
		}
		b.WriteString("\n")
	}
	if p.more > 0 {
		fmt.Fprintf(&b, "It changes %d more view(s), not drawn here.\n\n", p.more)
	}
	for _, r := range refs {
		b.WriteString(r)
	}
	return files, b.String()
}

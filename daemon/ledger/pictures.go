package ledger

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/render"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/schemas"
)

// MaxPictures is how many views a preview draws; a plan that changes more says how many it did
// not draw.
const MaxPictures = 8

// maxCandidates bounds the views drawn to find those whose picture changed.
const maxCandidates = 4 * MaxPictures

// cropMargin is the context kept around the changed objects in a cropped picture.
const cropMargin = 60

// pictures draws, before and after, the views a plan changes: views it creates or edits, and
// views that show what it renames, deletes or connects. It is made in two halves around a
// check: after (while the model is as the plan leaves it) and before (once it is put back).
// Each view is drawn whole and cropped to what changed on it; a view whose two pictures are the
// same is left out, and the views the plan names itself come first.
type pictures struct {
	name   string
	views  []string // ids, the views the plan names first, then in the order found
	rank   map[string]int
	more   []string // the names of candidate views not drawn at all
	after  map[string]drawnView
	before map[string]drawnView
	titles map[string]string
	marks  map[string]render.Mark // diagram objects and connections, by id
	focus  []string               // the marked ids, for cropping
}

// drawnView is one side of a view: cropped to the change, and whole on the side linked. Every
// change is marked, so the crop holds all of them: two crops that are the same mean a view that
// looks the same.
type drawnView struct{ whole, cropped []byte }

func newPictures(name string) *pictures {
	return &pictures{name: name, after: map[string]drawnView{}, before: map[string]drawnView{}, titles: map[string]string{},
		marks: map[string]render.Mark{}, rank: map[string]int{}}
}

// changedViews finds the views an outcome changes, in the model as the plan leaves it.
func (p *pictures) changedViews(o *plans.Outcome, m *archixml.Model) {
	add := func(v archixml.Object, rank int) {
		id := v.ID()
		if id == "" {
			return
		}
		if r, seen := p.rank[id]; seen {
			p.rank[id] = min(r, rank)
			return
		}
		if len(p.views) >= maxCandidates {
			p.more = append(p.more, v.Name())
			return
		}
		p.rank[id] = rank
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
			add(obj, 0)
		case archixml.KindDiagramObject, archixml.KindConnection:
			if v, ok := obj.View(); ok {
				add(v, 0)
			}
		case archixml.KindElement, archixml.KindRelationship:
			for _, ref := range m.ReferencesTo(id) {
				if _, marked := p.marks[ref.ID()]; !marked && changes(o, id) {
					p.marks[ref.ID()] = render.MarkChanged
				}
				if v, ok := ref.View(); ok {
					add(v, 1)
				}
			}
		}
	}
	sort.SliceStable(p.views, func(i, j int) bool { return p.rank[p.views[i]] < p.rank[p.views[j]] })
	for id := range p.marks {
		p.focus = append(p.focus, id)
	}
	sort.Strings(p.focus)
}

// changes says whether an outcome changes an object itself (not only reads it).
func changes(o *plans.Outcome, id string) bool {
	for _, r := range o.Results {
		if op, _ := schemas.OpByName(schemas.Newest, r.Op); !op.Effect.Changes {
			continue // it changes only what it creates (the op table says so, for every op)
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
		// the whole view is linked from the after side (the before side when the plan deletes it)
		_, hasAfter := p.after[id]
		cropped, whole, err := render.ViewAndCrop(m, id, render.Options{Marks: p.marks, Focus: p.focus, Margin: cropMargin}, after || !hasAfter)
		if err != nil {
			continue
		}
		into[id] = drawnView{whole, cropped}
	}
}

// files are the pictures as inbox files, and the preview's section showing them: for each view
// whose picture changed, the change cropped with some context, before and after, and a link to
// the whole view.
func (p *pictures) files() (map[string][]byte, string) {
	var shown, same []string
	more := p.more
	for _, id := range p.views {
		b, hasB := p.before[id]
		a, hasA := p.after[id]
		switch {
		case !hasA && !hasB:
			continue
		case hasA && hasB && bytes.Equal(a.cropped, b.cropped):
			same = append(same, p.titles[id]) // drawn the same before and after: nothing to see
			continue
		}
		if len(shown) >= MaxPictures {
			more = append(more, p.titles[id])
			continue
		}
		shown = append(shown, id)
	}
	if len(shown) == 0 {
		return nil, ""
	}
	files := map[string][]byte{}
	var refs []string
	var b strings.Builder
	b.WriteString("\n## Views\n\nThe views this plan changes, before and after, cropped to what changes " +
		"(changed objects outlined, removed ones faint), each with a link to the whole view.\n\n")
	for i, id := range shown {
		fmt.Fprintf(&b, "### %s\n\n", plans.MDEscape(p.titles[id]))
		whole, hasWhole := p.after[id]
		if !hasWhole {
			whole = p.before[id]
		}
		for _, side := range []struct {
			after bool
			svg   map[string]drawnView
			label string
		}{{false, p.before, "before"}, {true, p.after, "after"}} {
			data, ok := side.svg[id]
			if !ok {
				fmt.Fprintf(&b, "- %s: (none)\n", side.label)
				continue
			}
			f := inbox.PictureFile(p.name, i+1, side.after)
			files[f] = data.cropped
			// a reference, defined below: the preview holds no inline link syntax at all
			fmt.Fprintf(&b, "- %s: ![%s][%s]\n", side.label, side.label, f)
			refs = append(refs, fmt.Sprintf("[%s]: %s\n", f, f))
		}
		f := inbox.WholePictureFile(p.name, i+1)
		files[f] = whole.whole
		fmt.Fprintf(&b, "- the whole view: [%s][%s]\n", f, f)
		refs = append(refs, fmt.Sprintf("[%s]: %s\n", f, f))
		b.WriteString("\n")
	}
	if len(same) > 0 {
		fmt.Fprintf(&b, "%d more view(s) show what it changes but look the same before and after; not drawn: %s.\n\n", len(same), viewNames(same))
	}
	if len(more) > 0 {
		fmt.Fprintf(&b, "It changes %d more view(s), not drawn here: %s.\n\n", len(more), viewNames(more))
	}
	for _, r := range refs {
		b.WriteString(r)
	}
	return files, b.String()
}

// maxNamed bounds the views a preview names in a sentence.
const maxNamed = 10

// viewNames names views in a preview's sentence, the first maxNamed of them.
func viewNames(names []string) string {
	var quoted []string
	for _, n := range names[:min(len(names), maxNamed)] {
		quoted = append(quoted, `"`+plans.MDEscape(n)+`"`)
	}
	s := strings.Join(quoted, ", ")
	if len(names) > maxNamed {
		s += fmt.Sprintf(" and %d more", len(names)-maxNamed)
	}
	return s
}

package ledger

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/render"
	"github.com/archiplan/archiplan/archixml/route"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/plans"
)

// MaxPictures is how many views a preview draws; a plan that changes more says how many it did
// not draw.
const MaxPictures = 8

// maxCandidates bounds the views drawn to find those whose picture changed.
const maxCandidates = 4 * MaxPictures

// cropMargin is the context kept around the changed objects in a cropped picture.
const cropMargin = 60

// pictures draws, before and after, the views a plan changes, from what its actions' edits
// changed on them (plans.Outcome.Views, read from the journal through the op table): objects
// added, removed, moved into another parent, moved, resized, restyled, renamed, bendpoints, a
// view's router. It is made in two halves around a check: after (while the model is as the plan
// leaves it) and before (once it is put back); both sides of a view are framed alike, around what
// changes on either side, with the same context. A view whose two pictures are the same is left
// out, and the views the plan changes itself come before those that only show what it changes.
type pictures struct {
	name   string
	views  []string // ids, the views the plan changes itself first, then in the order found
	rank   map[string]int
	more   []string // the names of candidate views not drawn at all
	after  map[string]*render.Picture
	before map[string]*render.Picture
	titles map[string]string
	marks  map[string]render.Mark   // diagram objects and connections, by id
	focus  map[string][]string      // view -> the ids it marks, for the frame
	legend map[string][]*legendLine // view -> a line per changed object, in order
	labels map[string]string        // diagram object or connection -> how the legend names it
	direct map[string]bool          // views the plan changes itself, not only what they show
	// the layout's measures of each view drawn, before and after (from the geometry the
	// pictures are drawn from)
	quality map[string]*[2]*route.Quality
	// subject and unit are how the section names what it pictures and the numbered steps of it:
	// "this plan" and its "action"s, or a reviewed range and its "change"s
	subject, unit string
}

// legendLine names one changed object of a view and what changed.
type legendLine struct {
	object  string // "" for the view itself
	words   []string
	actions []int
}

func newPictures(name string) *pictures {
	return &pictures{name: name, after: map[string]*render.Picture{}, before: map[string]*render.Picture{}, titles: map[string]string{},
		marks: map[string]render.Mark{}, rank: map[string]int{}, focus: map[string][]string{}, legend: map[string][]*legendLine{},
		labels: map[string]string{}, direct: map[string]bool{}, quality: map[string]*[2]*route.Quality{}, subject: "this plan", unit: "action"}
}

// markOf is how a change marks its object: added and removed ones as such, renamed ones tagged,
// any other change outlined.
func markOf(what string) render.Mark {
	switch what {
	case plans.ViewAdded:
		return render.MarkAdded
	case plans.ViewRemoved:
		return render.MarkRemoved
	case "renamed":
		return render.MarkRenamed
	}
	return render.MarkChanged
}

// changedViews finds the views an outcome changes, in the model as the plan leaves it.
func (p *pictures) changedViews(o *plans.Outcome, m *archixml.Model) {
	add := func(id string, rank int) bool {
		if r, seen := p.rank[id]; seen {
			p.rank[id] = min(r, rank)
			return true
		}
		if len(p.views) >= maxCandidates {
			if v, ok := m.Object(id); ok {
				p.more = append(p.more, v.Name())
			}
			return false
		}
		p.rank[id] = rank
		p.views = append(p.views, id)
		if v, ok := m.Object(id); ok {
			p.titles[id] = v.Name()
		}
		return true
	}
	mark := func(view, id string, k render.Mark) {
		if old, ok := p.marks[id]; ok && (old == render.MarkAdded || old == render.MarkRemoved) {
			return // what is new or gone is shown as such, whatever else changed on it
		}
		if _, ok := p.marks[id]; !ok {
			p.focus[view] = append(p.focus[view], id)
		}
		p.marks[id] = k
	}
	for _, c := range o.Views {
		rank := 0
		if c.Shown {
			rank = 1
		}
		if !add(c.View, rank) {
			continue
		}
		if !c.Shown {
			p.direct[c.View] = true
		}
		line := p.line(c.View, c.Object)
		if !contains(line.words, c.What) {
			line.words = append(line.words, c.What)
		}
		if n := len(line.actions); n == 0 || line.actions[n-1] != c.Action {
			line.actions = append(line.actions, c.Action)
		}
		if c.Object != "" {
			mark(c.View, c.Object, markOf(c.What))
			p.label(m, c.Object)
			continue
		}
		if c.What == plans.ViewAdded || c.What == plans.ViewRemoved {
			continue // a whole view: it has one side only, drawn whole
		}
		// the view itself (its router): every connection on it is drawn anew
		if v, ok := m.Object(c.View); ok {
			for _, conn := range v.Connections() {
				mark(c.View, conn.ID(), render.MarkChanged)
			}
		}
	}
	for _, r := range o.Results {
		if r.Deleted != nil {
			// what a delete takes with it, nested in what it removes: faint on the before side
			for _, ids := range [][]string{r.Deleted.DiagramObjects, r.Deleted.Connections} {
				for _, id := range ids {
					p.marks[id] = render.MarkRemoved
				}
			}
		}
	}
	sort.SliceStable(p.views, func(i, j int) bool { return p.rank[p.views[i]] < p.rank[p.views[j]] })
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// line is the legend line of an object of a view ("" the view itself), made when first asked.
func (p *pictures) line(view, object string) *legendLine {
	for _, l := range p.legend[view] {
		if l.object == object {
			return l
		}
	}
	l := &legendLine{object: object}
	p.legend[view] = append(p.legend[view], l)
	return l
}

// label names a diagram object or connection for the legend, as the model is now (once named, it
// keeps the name it had after the plan: a removed one is named from the before side).
func (p *pictures) label(m *archixml.Model, id string) {
	if _, done := p.labels[id]; done {
		return
	}
	o, ok := m.Object(id)
	if !ok {
		return
	}
	name := func(x archixml.Object) string {
		if c, ok := x.Concept(); ok {
			t := archixml.TypeWords(c.Class())
			if ct := c.Type(); ct != nil && ct.Label != "" {
				t = ct.Label
			}
			return fmt.Sprintf("%s “%s”", t, plans.MDEscape(c.Name()))
		}
		switch x.Class() {
		case "Note":
			return "a note"
		case "Group":
			return fmt.Sprintf("group “%s”", plans.MDEscape(x.Name()))
		}
		return plans.MDEscape(archixml.TypeWords(x.Class()))
	}
	if o.Kind() != archixml.KindConnection {
		p.labels[id] = name(o)
		return
	}
	l := "a connection"
	if c, ok := o.Concept(); ok {
		l = name(o)
		if c.Name() == "" {
			l = archixml.TypeWords(c.Class())
			if ct := c.Type(); ct != nil && ct.Label != "" {
				l = ct.Label
			}
		}
	}
	s, ok1 := m.Object(o.SourceID())
	t, ok2 := m.Object(o.TargetID())
	if ok1 && ok2 {
		l += fmt.Sprintf(" from %s to %s", name(s), name(t))
	}
	p.labels[id] = l
}

// draw draws the changed views as the model is now, into after or before.
func (p *pictures) draw(m *archixml.Model, after bool) {
	into := p.before
	if after {
		into = p.after
	}
	for _, id := range p.views {
		v, ok := m.Object(id)
		if !ok {
			continue // a view the plan creates has no before, one it deletes no after
		}
		if p.titles[id] == "" {
			p.titles[id] = v.Name()
		}
		if !after {
			for _, l := range p.legend[id] {
				if l.object != "" {
					p.label(m, l.object)
				}
			}
		}
		pic, err := render.Draw(m, id)
		if err != nil {
			continue
		}
		into[id] = pic
		if q, err := route.Measure(m, id); err == nil {
			if p.quality[id] == nil {
				p.quality[id] = &[2]*route.Quality{}
			}
			p.quality[id][map[bool]int{false: 0, true: 1}[after]] = &q
		}
	}
}

// qualityWords say, when a view as the plan leaves it has lines through boxes they do not
// connect, overlapping boxes, boxes outside their parent or crossing lines in another number than
// before (or the view is new), how many, each with the count before where the view was there
// before; "" when the plan changes none of these counts: a person reads what the plan changes.
func qualityWords(q *[2]*route.Quality) string {
	if q == nil || q[1] == nil {
		return ""
	}
	var words []string
	for _, m := range []struct {
		what string
		n    func(route.Quality) int
	}{
		{"line(s) through a box they do not connect", func(q route.Quality) int { return q.Through }},
		{"pair(s) of overlapping boxes", func(q route.Quality) int { return q.Overlaps }},
		{"box(es) sticking out of their parent", func(q route.Quality) int { return q.Outside }},
		{"pair(s) of crossing lines", func(q route.Quality) int { return q.Crossings }},
	} {
		n := m.n(*q[1])
		if n == 0 || q[0] != nil && m.n(*q[0]) == n {
			continue
		}
		w := fmt.Sprintf("%d %s", n, m.what)
		if q[0] != nil {
			w += fmt.Sprintf(" (%d before)", m.n(*q[0]))
		}
		words = append(words, w)
	}
	if len(words) == 0 {
		return ""
	}
	return "- as drawn after: " + strings.Join(words, ", ") + "\n"
}

// frame is the one frame of a view's two pictures: the box around what it marks on either side,
// with cropMargin around it; nil when neither side draws any of it (the whole view is shown).
func (p *pictures) frame(id string) *render.Box {
	var box render.Box
	found := false
	for _, side := range []map[string]*render.Picture{p.before, p.after} {
		pic, ok := side[id]
		if !ok {
			continue
		}
		if b, ok := pic.Extent(p.focus[id]); ok && len(p.focus[id]) > 0 {
			if found {
				box = box.Union(b)
			} else {
				box, found = b, true
			}
		}
	}
	if !found {
		// nothing marked is drawn (a whole view added or removed, a change no object shows):
		// the whole of both sides
		for _, side := range []map[string]*render.Picture{p.before, p.after} {
			if pic, ok := side[id]; ok {
				if b, ok := pic.Extent(nil); ok {
					if found {
						box = box.Union(b)
					} else {
						box, found = b, true
					}
				}
			}
		}
		if !found {
			return nil
		}
	}
	return &render.Box{X: box.X - cropMargin, Y: box.Y - cropMargin, W: box.W + 2*cropMargin, H: box.H + 2*cropMargin}
}

// files are the pictures as inbox files, and the preview's section showing them: for each view
// whose picture changed, the change before and after in one frame, with some context, a legend
// naming each change, and a link to the whole view.
func (p *pictures) files() (map[string][]byte, string) {
	shown, cropped, same, more := p.drawChanges()
	if len(shown) == 0 {
		return nil, ""
	}
	files := map[string][]byte{}
	var refs []string
	var b strings.Builder
	b.WriteString("\n## Views\n\nThe views " + p.subject + " changes, before and after in one frame around what changes " +
		"(changed objects outlined, removed ones faint), each with what changes on it and a link to the whole view.\n\n")
	for i, id := range shown {
		fmt.Fprintf(&b, "### %s\n\n", plans.MDEscape(p.titles[id]))
		for k, side := range []struct {
			after bool
			label string
		}{{false, "before"}, {true, "after"}} {
			data := cropped[id][k]
			if data == nil {
				fmt.Fprintf(&b, "**%s:** (none)\n\n", side.label)
				continue
			}
			f := inbox.PictureFile(p.name, i+1, side.after)
			files[f] = data
			// the label a paragraph of its own above its picture, not a list item beside it: there a
			// forge (Gitea) sets the label on the picture's baseline, under it, so that read label
			// then picture the sides swap (issue 38). The picture is a reference, defined below: the
			// preview holds no inline link syntax at all.
			fmt.Fprintf(&b, "**%s:**\n\n![%s][%s]\n\n", side.label, side.label, f)
			refs = append(refs, fmt.Sprintf("[%s]: %s\n", f, f))
		}
		if x, y := cropped[id][0], cropped[id][1]; x != nil && bytes.Equal(x, y) {
			b.WriteString("- before and after look alike here: archiplan's drawing does not show this change (Archi's may)\n")
		}
		p.writeLegend(&b, id)
		b.WriteString(qualityWords(p.quality[id]))
		whole, hasWhole := p.after[id]
		if !hasWhole {
			whole = p.before[id]
		}
		f := inbox.WholePictureFile(p.name, i+1)
		files[f] = whole.Write(render.Options{Marks: p.marks})
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

// drawChanges draws each view that changes before and after, in its frame: the views shown (at most
// MaxPictures, in order) with their two sides (nil for a side the view is not on), the titles of
// those drawn the same before and after (nothing to see), and of those left out past the limit.
func (p *pictures) drawChanges() (shown []string, cropped map[string][2][]byte, same, more []string) {
	more = p.more
	cropped = map[string][2][]byte{}
	for _, id := range p.views {
		b, hasB := p.before[id]
		a, hasA := p.after[id]
		if !hasA && !hasB {
			continue
		}
		fr := p.frame(id)
		opts := render.Options{Marks: p.marks, Frame: fr}
		var sides [2][]byte
		if hasB {
			sides[0] = b.Write(opts)
		}
		if hasA {
			sides[1] = a.Write(opts)
		}
		if hasA && hasB && bytes.Equal(sides[0], sides[1]) && !p.direct[id] {
			same = append(same, p.titles[id]) // it only shows what changes, drawn the same before and after: nothing to see
			continue
		}
		if len(shown) >= MaxPictures {
			more = append(more, p.titles[id])
			continue
		}
		cropped[id] = sides
		shown = append(shown, id)
	}
	return shown, cropped, same, more
}

// writeLegend writes the legend of view id's picture: a line for each object (or the view itself)
// that changes, with what changes and the plan's actions (or changes) that change it.
func (p *pictures) writeLegend(b *strings.Builder, id string) {
	for _, l := range p.legend[id] {
		what := "the view"
		if l.object != "" {
			what = p.labels[l.object]
			if what == "" {
				what = "an object"
			}
		}
		acts := make([]string, len(l.actions))
		for k, a := range l.actions {
			acts[k] = fmt.Sprint(a)
		}
		n := p.unit
		if len(acts) > 1 {
			n += "s"
		}
		fmt.Fprintf(b, "- %s: %s (%s %s)\n", what, strings.Join(l.words, ", "), n, strings.Join(acts, ", "))
	}
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

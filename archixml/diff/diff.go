// Package diff finds what changed between two versions of a model and says it in words and as
// structured data: elements, relationships, views, folders, properties, documentation and
// specializations, and per view the objects and connections added, removed, moved or restyled,
// with names and types resolved.
//
// It compares by id and by the XML each object was read from: a subtree whose bytes are equal in
// both versions is skipped whole, so the cost of a small change to a large model is the cost of
// the parts it touched, not of the model.
package diff

import (
	"cmp"
	"slices"
	"strings"

	"github.com/archiplan/archiplan/archixml"
)

// FormatVersion is the version of the JSON form of a Result.
const FormatVersion = "1"

// Op says what happened to an object.
type Op string

// The ops.
const (
	Added   Op = "added"
	Removed Op = "removed"
	Changed Op = "changed"
)

// Kinds of objects a change is about.
const (
	KindModel         = "model"
	KindProfile       = "specialization"
	KindFolder        = "folder"
	KindElement       = "element"
	KindRelationship  = "relationship"
	KindView          = "view"
	KindDiagramObject = "diagram object"
	KindConnection    = "connection"
)

// Field is one changed attribute: "name", "documentation", "property:KEY", "folder", "type",
// "source", "target", "bounds", "fillColor", "content", "bendpoints", "parent", ...
type Field struct {
	Name   string `json:"name"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// Change is one object added, removed or changed.
type Change struct {
	Op   Op     `json:"op"`
	Kind string `json:"kind"`
	ID   string `json:"id"`
	Type string `json:"type,omitempty"` // Archi's class: BusinessActor, ServingRelationship, Note, ...
	Name string `json:"name,omitempty"`
	// Label is how people call the object: `Business Actor "Customer"`.
	Label string `json:"label"`
	// Fields are what changed, for changed objects; for an added or removed one, where it is.
	Fields []Field `json:"fields,omitempty"`
	// Diagram lists, for a view, its diagram objects and connections added, removed or changed.
	Diagram []Change `json:"diagram,omitempty"`
	// Text is the change in words, one line.
	Text string `json:"text"`

	section int
}

// Result is what changed between two models.
type Result struct {
	FormatVersion string   `json:"format_version"`
	Changes       []Change `json:"changes"`
	// ViewIDs are the views whose drawing differs (see Views).
	ViewIDs []string `json:"views"`

	onView map[string][]Change
}

// Empty reports whether the models are the same.
func (r *Result) Empty() bool { return len(r.Changes) == 0 }

// Views returns the ids of the views, present after the change, whose drawing it changes: views
// added, views whose objects or connections were added, removed, moved or restyled, and views
// showing an element or relationship whose name, type or drawn attributes changed. These are the
// views to draw before and after.
func (r *Result) Views() []string { return r.ViewIDs }

// OnView returns the changes to draw on one view: its diagram objects and connections added,
// removed or changed, and (as changed, with a "name" or "type" field) those showing a concept
// that was renamed or retyped. Removed ones are found in the model before the change.
func (r *Result) OnView(viewID string) []Change { return r.onView[viewID] }

// Models compares two versions of a model.
func Models(before, after *archixml.Model) *Result {
	c := &comparer{b: before, a: after, res: &Result{FormatVersion: FormatVersion, Changes: []Change{}, ViewIDs: []string{}},
		pendingAdd: map[string]archixml.Object{}, pendingDel: map[string]archixml.Object{}, views: map[string]bool{},
		onView: map[string][]Change{}}
	c.model()
	c.children(before.Root(), after.Root())
	c.settle()
	r := c.res
	slices.SortStableFunc(r.Changes, func(x, y Change) int {
		return cmp.Or(cmp.Compare(x.section, y.section), cmp.Compare(strings.ToLower(x.Name), strings.ToLower(y.Name)),
			cmp.Compare(x.Type, y.Type), cmp.Compare(x.ID, y.ID))
	})
	r.ViewIDs = c.viewOrder()
	r.onView = c.onView
	for _, list := range r.onView {
		for i := range list {
			list[i].Text = words(&list[i])
		}
	}
	for i := range r.Changes {
		r.Changes[i].Text = words(&r.Changes[i])
		for j := range r.Changes[i].Diagram {
			r.Changes[i].Diagram[j].Text = words(&r.Changes[i].Diagram[j])
		}
	}
	return r
}

// viewOrder lists the changed views in the order of the model's folder of views, walking that
// folder only (not the whole model); a view kept anywhere else comes after, by id.
func (c *comparer) viewOrder() []string {
	out := []string{}
	if len(c.views) == 0 {
		return out
	}
	placed := map[string]bool{}
	var walk func(f archixml.Object)
	walk = func(f archixml.Object) {
		for _, k := range f.Children() {
			switch k.Kind() {
			case archixml.KindFolder:
				walk(k)
			case archixml.KindView:
				if c.views[k.ID()] {
					out = append(out, k.ID())
					placed[k.ID()] = true
				}
			}
		}
	}
	if top, ok := c.a.TopFolder(archixml.FolderDiagrams); ok {
		walk(top)
	}
	var rest []string
	for id := range c.views {
		if !placed[id] {
			if v, ok := c.a.Object(id); ok && v.Kind() == archixml.KindView {
				rest = append(rest, id)
			}
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

type comparer struct {
	b, a       *archixml.Model
	res        *Result
	pendingAdd map[string]archixml.Object // found in an after folder only
	pendingDel map[string]archixml.Object // found in a before folder only
	views      map[string]bool
	onView     map[string][]Change
}

var sections = map[string]int{KindModel: 0, KindProfile: 1, KindFolder: 2, KindElement: 3, KindRelationship: 4, KindView: 5}

func (c *comparer) add(ch Change) {
	ch.section = sections[ch.Kind]
	c.res.Changes = append(c.res.Changes, ch)
}

func (c *comparer) model() {
	var f []Field
	b, a := c.b.Root(), c.a.Root()
	f = field(f, "name", b.Name(), a.Name())
	f = field(f, "purpose", c.b.Purpose(), c.a.Purpose())
	f = append(f, properties(b, a)...)
	if len(f) > 0 {
		c.add(Change{Op: Changed, Kind: KindModel, ID: c.a.ID(), Name: c.a.Name(), Label: `model "` + c.a.Name() + `"`, Fields: f})
	}
}

func field(f []Field, name, before, after string) []Field {
	if before != after {
		f = append(f, Field{name, before, after})
	}
	return f
}

// properties compares properties by key, in the order they appear after, then removed keys.
func properties(b, a archixml.Object) []Field {
	bp, ap := b.Properties(), a.Properties()
	if slices.Equal(bp, ap) {
		return nil
	}
	var f []Field
	seen := map[string]bool{}
	bv := map[string]string{}
	for _, p := range bp {
		if _, ok := bv[p.Key]; !ok {
			bv[p.Key] = p.Value
		}
	}
	for _, p := range ap {
		if seen[p.Key] {
			continue
		}
		seen[p.Key] = true
		old, had := bv[p.Key]
		if !had {
			f = append(f, Field{"property:" + p.Key, "", p.Value})
		} else if old != p.Value {
			f = append(f, Field{"property:" + p.Key, old, p.Value})
		}
	}
	for _, p := range bp {
		if !seen[p.Key] {
			seen[p.Key] = true
			f = append(f, Field{"property:" + p.Key, p.Value, ""})
		}
	}
	if len(f) == 0 { // same keys and values, another order or a duplicate key
		f = append(f, Field{Name: "properties", Before: propText(bp), After: propText(ap)})
	}
	return f
}

func propText(ps []archixml.Property) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.Key+"="+p.Value)
	}
	return strings.Join(s, "; ")
}

// children compares what two containers (the model, or a folder in both versions) hold, by id,
// skipping whatever is byte-for-byte the same. Children mostly keep their order, so the lists are
// walked side by side and a map is built only from where they part.
func (c *comparer) children(b, a archixml.Object) {
	bk := b.Children()
	ak := a.Children()
	i := 0
	for ; i < len(bk) && i < len(ak); i++ {
		if bk[i].ID() != ak[i].ID() {
			break
		}
		if !same(bk[i], ak[i]) {
			c.pair(bk[i], ak[i])
		}
	}
	if i == len(bk) && i == len(ak) {
		return
	}
	bk, ak = bk[i:], ak[i:]
	byID := make(map[string]archixml.Object, len(bk))
	for _, o := range bk {
		byID[o.ID()] = o
	}
	seen := make(map[string]bool, len(ak))
	for _, ao := range ak {
		id := ao.ID()
		seen[id] = true
		bo, ok := byID[id]
		if !ok {
			c.pendingAdd[id] = ao
			continue
		}
		if !same(bo, ao) {
			c.pair(bo, ao)
		}
	}
	for _, bo := range bk {
		if !seen[bo.ID()] {
			c.pendingDel[bo.ID()] = bo
		}
	}
}

// same reports whether an object is unchanged: by the bytes both were read from when neither was
// edited (no copy made), else by their XML; a folder someone edited in is always looked into.
func same(b, a archixml.Object) bool {
	if bs, ok := b.Original(); ok {
		if as, ok := a.Original(); ok {
			return bs == as
		}
	}
	if a.Kind() == archixml.KindFolder || a.Kind() == archixml.KindModel {
		return false
	}
	return b.XML() == a.XML()
}

// pair compares one object present in both versions.
func (c *comparer) pair(b, a archixml.Object) {
	switch a.Kind() {
	case archixml.KindFolder:
		f := c.own(b, a)
		if len(f) > 0 {
			c.add(Change{Op: Changed, Kind: KindFolder, ID: a.ID(), Name: a.Name(), Label: label(a), Fields: f})
		}
		c.children(b, a)
	case archixml.KindElement, archixml.KindRelationship, archixml.KindProfile:
		f := c.own(b, a)
		if len(f) == 0 {
			return
		}
		c.add(Change{Op: Changed, Kind: kindOf(a), ID: a.ID(), Type: a.Class(), Name: a.Name(), Label: label(a), Fields: f})
		c.redrawn(a, f)
	case archixml.KindView:
		c.view(b, a)
	}
}

// own compares an object's own fields, not what it holds.
func (c *comparer) own(b, a archixml.Object) []Field {
	var f []Field
	f = field(f, "type", b.Class(), a.Class())
	f = field(f, "name", b.Name(), a.Name())
	f = field(f, "documentation", b.Documentation(), a.Documentation())
	f = append(f, properties(b, a)...)
	f = field(f, "specializations", c.profileNames(c.b, b), c.profileNames(c.a, a))
	switch a.Kind() {
	case archixml.KindRelationship:
		f = field(f, "source", c.endName(c.b, b.SourceID()), c.endName(c.a, a.SourceID()))
		f = field(f, "target", c.endName(c.b, b.TargetID()), c.endName(c.a, a.TargetID()))
		for _, k := range []string{"accessType", "directed", "strength"} {
			f = field(f, k, b.Attr(k), a.Attr(k))
		}
	case archixml.KindElement:
		f = field(f, "junction type", b.Attr("type"), a.Attr("type"))
	case archixml.KindProfile:
		f = field(f, "concept type", b.Attr("conceptType"), a.Attr("conceptType"))
		f = field(f, "image", b.Attr("imagePath"), a.Attr("imagePath"))
	case archixml.KindView:
		f = field(f, "viewpoint", b.Attr("viewpoint"), a.Attr("viewpoint"))
	}
	if a.Kind() != archixml.KindFolder && a.Kind() != archixml.KindView && len(f) == 0 && !sameXML(b.XML(), a.XML()) {
		f = append(f, Field{Name: "other"}) // something we have no words for: still a change
	}
	return f
}

func (c *comparer) profileNames(m *archixml.Model, o archixml.Object) string {
	var names []string
	for _, id := range o.ProfileIDs() {
		if p, ok := m.Object(id); ok {
			names = append(names, p.Name())
		} else {
			names = append(names, id)
		}
	}
	return strings.Join(names, ", ")
}

func (c *comparer) endName(m *archixml.Model, id string) string {
	if o, ok := m.Object(id); ok {
		return label(o)
	}
	return id
}

// redrawn records the views whose drawing a concept's change alters: its name, type and the
// attributes its figure or line shows.
func (c *comparer) redrawn(a archixml.Object, f []Field) {
	var shown []Field
	for _, x := range f {
		switch x.Name {
		case "name", "type", "accessType", "directed", "junction type", "source", "target":
			shown = append(shown, x)
		}
	}
	if len(shown) == 0 {
		return
	}
	for _, ref := range c.a.ReferencesTo(a.ID()) {
		v, ok := ref.View()
		if !ok {
			continue
		}
		c.views[v.ID()] = true
		kind := KindDiagramObject
		if ref.Kind() == archixml.KindConnection {
			kind = KindConnection
		}
		c.onView[v.ID()] = append(c.onView[v.ID()], Change{Op: Changed, Kind: kind, ID: ref.ID(), Type: a.Class(),
			Name: a.Name(), Label: label(a), Fields: shown})
	}
}

// settle decides what the objects found on one side only are: moved between folders when the
// other version has them elsewhere, else added or removed (with everything they hold).
func (c *comparer) settle() {
	ids := make([]string, 0, len(c.pendingAdd))
	for id := range c.pendingAdd {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		ao := c.pendingAdd[id]
		if bo, ok := c.b.Object(id); ok && bo.Kind() == ao.Kind() {
			c.moved(bo, ao)
			continue
		}
		c.added(ao)
	}
	ids = ids[:0]
	for id := range c.pendingDel {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		bo := c.pendingDel[id]
		if ao, ok := c.a.Object(id); ok && ao.Kind() == bo.Kind() {
			continue // moved: told from the side it arrived on
		}
		c.removed(bo)
	}
}

func (c *comparer) moved(b, a archixml.Object) {
	f := []Field{{Name: "folder", Before: b.FolderPath(), After: a.FolderPath()}}
	if a.Kind() == archixml.KindFolder {
		f[0] = Field{Name: "parent folder", Before: parentPath(b), After: parentPath(a)}
	}
	if a.Kind() == archixml.KindView {
		c.add(Change{Op: Changed, Kind: KindView, ID: a.ID(), Type: a.Class(), Name: a.Name(), Label: label(a), Fields: f})
		if !same(b, a) {
			c.view(b, a)
			c.mergeView(a.ID())
		}
		return
	}
	if !same(b, a) || a.Kind() == archixml.KindFolder {
		f = append(f, c.own(b, a)...)
		f = slices.DeleteFunc(f, func(x Field) bool { return x.Name == "other" })
	}
	c.add(Change{Op: Changed, Kind: kindOf(a), ID: a.ID(), Type: a.Class(), Name: a.Name(), Label: label(a), Fields: f})
	if a.Kind() == archixml.KindFolder {
		c.children(b, a)
	} else {
		c.redrawn(a, f)
	}
}

// mergeView folds a view's second change entry (its drawing) into the first (its folder).
func (c *comparer) mergeView(id string) {
	var first = -1
	for i := 0; i < len(c.res.Changes); i++ {
		ch := c.res.Changes[i]
		if ch.Kind != KindView || ch.ID != id {
			continue
		}
		if first < 0 {
			first = i
			continue
		}
		c.res.Changes[first].Fields = append(c.res.Changes[first].Fields, ch.Fields...)
		c.res.Changes[first].Diagram = append(c.res.Changes[first].Diagram, ch.Diagram...)
		c.res.Changes = slices.Delete(c.res.Changes, i, i+1)
		i--
	}
}

func parentPath(o archixml.Object) string {
	if p, ok := o.Parent(); ok && p.Kind() == archixml.KindFolder {
		return p.FolderPath()
	}
	return ""
}

func (c *comparer) added(a archixml.Object) {
	ch := Change{Op: Added, Kind: kindOf(a), ID: a.ID(), Type: a.Class(), Name: a.Name(), Label: label(a)}
	switch a.Kind() {
	case archixml.KindFolder:
		ch.Fields = []Field{{Name: "parent folder", After: parentPath(a)}}
		ch.Type = ""
		c.add(ch)
		for _, k := range a.Children() {
			if bo, ok := c.b.Object(k.ID()); ok && bo.Kind() == k.Kind() {
				c.moved(bo, k)
			} else {
				c.added(k)
			}
		}
		return
	case archixml.KindRelationship:
		ch.Fields = []Field{{Name: "source", After: c.endName(c.a, a.SourceID())}, {Name: "target", After: c.endName(c.a, a.TargetID())}}
	case archixml.KindView:
		ch.Fields = []Field{{Name: "folder", After: a.FolderPath()}}
		c.views[a.ID()] = true
		for _, o := range a.DiagramObjects() {
			c.onView[a.ID()] = append(c.onView[a.ID()], c.diagramChange(Added, c.a, o.ID(), o))
		}
		for _, o := range a.Connections() {
			c.onView[a.ID()] = append(c.onView[a.ID()], c.diagramChange(Added, c.a, o.ID(), o))
		}
	case archixml.KindElement, archixml.KindProfile:
		ch.Fields = []Field{{Name: "folder", After: a.FolderPath()}}
	default:
		return
	}
	if doc := a.Documentation(); doc != "" {
		ch.Fields = append(ch.Fields, Field{Name: "documentation", After: doc})
	}
	for _, p := range a.Properties() {
		ch.Fields = append(ch.Fields, Field{Name: "property:" + p.Key, After: p.Value})
	}
	c.add(ch)
}

func (c *comparer) removed(b archixml.Object) {
	ch := Change{Op: Removed, Kind: kindOf(b), ID: b.ID(), Type: b.Class(), Name: b.Name(), Label: label(b)}
	switch b.Kind() {
	case archixml.KindFolder:
		ch.Type = ""
		c.add(ch)
		for _, k := range b.Children() {
			if ao, ok := c.a.Object(k.ID()); ok && ao.Kind() == k.Kind() {
				continue
			}
			c.removed(k)
		}
		return
	case archixml.KindRelationship:
		ch.Fields = []Field{{Name: "source", Before: c.endName(c.b, b.SourceID())}, {Name: "target", Before: c.endName(c.b, b.TargetID())}}
	case archixml.KindElement, archixml.KindView, archixml.KindProfile:
		ch.Fields = []Field{{Name: "folder", Before: b.FolderPath()}}
	default:
		return
	}
	c.add(ch)
}

func kindOf(o archixml.Object) string {
	switch o.Kind() {
	case archixml.KindFolder:
		return KindFolder
	case archixml.KindElement:
		return KindElement
	case archixml.KindRelationship:
		return KindRelationship
	case archixml.KindView:
		return KindView
	case archixml.KindProfile:
		return KindProfile
	case archixml.KindDiagramObject:
		return KindDiagramObject
	case archixml.KindConnection:
		return KindConnection
	}
	return o.Kind().String()
}

// label is how people call an object: its type and its name.
func label(o archixml.Object) string {
	switch o.Kind() {
	case archixml.KindFolder:
		return `folder "` + o.FolderPath() + `"`
	case archixml.KindView:
		return `view "` + o.Name() + `"`
	case archixml.KindProfile:
		return `specialization "` + o.Name() + `"`
	}
	t := o.Class()
	if ct := o.Type(); ct != nil {
		t = ct.Label
		if ct.IsRelationship() {
			t += " relationship"
		}
	}
	if o.Name() == "" {
		if o.Kind() == archixml.KindRelationship {
			return t // its ends say which
		}
		return t + " " + o.ID()
	}
	return t + ` "` + o.Name() + `"`
}

// sameXML compares two fragments but for the white space between words and tags, which differs
// when one was read from a file and the other written anew at another depth.
func sameXML(x, y string) bool {
	return x == y || strings.Join(strings.Fields(x), " ") == strings.Join(strings.Fields(y), " ")
}

// Label is how people call an object: its type and its name (`Business Actor "Customer"`).
func Label(o archixml.Object) string { return label(o) }

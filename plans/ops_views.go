package plans

import (
	"fmt"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/route"
	"github.com/archiplan/archiplan/internal/lazyre"
	"github.com/archiplan/archiplan/schemas"
)

func (e *engine) createView(i int, a Action, r *ActionResult) {
	r.Description = words("Create view %q", str(a.Name))
	if e.blank(i, "name", str(a.Name)) || !e.checkRefID(i, a) {
		return
	}
	name := str(a.Name)
	if existing, dup := e.duplicateName(i, "ArchimateDiagramModel", name, "view", a.OnDuplicate == nil || *a.OnDuplicate == "create"); dup {
		if e.onDuplicate(i, a, r, existing) {
			return
		}
		if str(a.OnDuplicate) == "rename" {
			name = e.renamed("ArchimateDiagramModel", name)
		}
	}
	vp := ""
	if a.Viewpoint != nil {
		vp = *a.Viewpoint
	}
	folder, ok := e.folderOnCreate(i, a, "ArchimateDiagramModel")
	if !ok {
		return
	}
	id, err := e.m.CreateView(name, folder, vp)
	if !e.edit(i, "name", err) {
		return
	}
	e.declare(i, a, id)
	e.touchView(id)
	r.Created = []string{id}
	r.Description = words("Create view %q (%s)", name, id)
	if name != str(a.Name) {
		r.Description += words(", renamed: a view %q exists", str(a.Name))
	}
	if vp != "" {
		r.Description += words(" with viewpoint %s", vp)
	}
	e.extrasOnCreate(i, a, id, r)
	e.fillView(i, a, id, r)
}

// fillView puts a create_view's selection on the new view: the elements named, of the types
// named and in the folder named, with their neighbours to the depth asked, and lays it out.
func (e *engine) fillView(i int, a Action, viewID string, r *ActionResult) {
	if a.SelectIDs == nil && a.SelectTypes == nil && a.SelectFolder == nil {
		return
	}
	picked, what := e.viewSelection(i, a)
	if len(picked) > schemas.MaxSelection {
		e.errorf(i, "select_ids", SelectionTooLarge, "", "the selection holds %d elements, over the limit of %d", len(picked), schemas.MaxSelection)
		return
	}
	if len(picked) == 0 {
		e.errorf(i, "select_ids", NoOp, "", "the selection holds no element; the view stays empty")
		return
	}
	for _, id := range picked {
		b := archixml.DefaultSize
		obj, conns, err := e.m.AddToViewIn(viewID, "", id, &b)
		if !e.edit(i, "select_ids", err) {
			return
		}
		e.created[obj] = true
		r.Created = append(r.Created, obj)
		r.Created = append(r.Created, conns...)
		for _, c := range conns {
			e.created[c] = true
		}
	}
	if _, err := e.m.LayoutView(viewID); !e.edit(i, "select_ids", err) {
		return
	}
	// as layout_view does: no line drawn through a box it does not connect
	if _, err := route.Around(e.m, viewID); !e.edit(i, "select_ids", err) {
		return
	}
	r.Description += words(", showing %d element(s) (%s), laid out by layer", len(picked), strings.Join(what, "; "))
}

// viewSelection is create_view's selection: the elements named, of the types named and in the
// folder named (those in scope), with their neighbours to the depth asked, and the words that say
// what was asked.
func (e *engine) viewSelection(i int, a Action) (picked, what []string) {
	seen := map[string]bool{}
	pick := func(id string) {
		if !seen[id] {
			seen[id] = true
			picked = append(picked, id)
		}
	}
	if a.SelectIDs != nil {
		for k, id := range *a.SelectIDs {
			if o, ok := e.resolve(i, fmt.Sprintf("select_ids/%d", k), id, archixml.KindElement); ok {
				pick(o.ID())
			}
		}
		what = append(what, fmt.Sprintf("%d element(s) named", len(*a.SelectIDs)))
	}
	types := map[string]bool{}
	if a.SelectTypes != nil {
		var labels []string
		for _, t := range *a.SelectTypes {
			if ct := archixml.LookupType(t); ct != nil {
				types[ct.Class] = true
				labels = append(labels, ct.Label)
			}
		}
		what = append(what, "every "+strings.Join(labels, ", "))
	}
	folder := ""
	if a.SelectFolder != nil {
		folder = strings.Trim(*a.SelectFolder, "/")
		what = append(what, "folder "+folder)
	}
	if len(types) > 0 || folder != "" {
		for _, el := range e.m.Elements() {
			if _, gone := e.deleted[el.ID()]; gone {
				continue
			}
			if types[el.Class()] || (folder != "" && (el.FolderPath() == folder || strings.HasPrefix(el.FolderPath(), folder+"/"))) {
				if e.scope == nil || e.scope[el.ID()] || e.created[el.ID()] {
					pick(el.ID())
				}
			}
		}
	}
	depth := intOr(a.Depth, 0)
	picked = e.withNeighbours(picked, seen, depth)
	if depth > 0 {
		what = append(what, fmt.Sprintf("their neighbours to depth %d", depth))
	}
	return picked, what
}

// withNeighbours adds to picked the elements related to them, to depth steps, that are in scope
// and not yet seen (the ones picked).
func (e *engine) withNeighbours(picked []string, seen map[string]bool, depth int) []string {
	frontier := append([]string(nil), picked...)
	for d := 0; d < depth && len(frontier) > 0; d++ {
		var next []string
		for _, id := range frontier {
			for _, rel := range e.m.RelationshipsOf(id) {
				for _, other := range []string{rel.SourceID(), rel.TargetID()} {
					o, ok := e.m.Object(other)
					if !ok || o.Kind() != archixml.KindElement || seen[other] {
						continue
					}
					if e.scope != nil && !e.scope[other] && !e.created[other] {
						continue
					}
					seen[other] = true
					picked = append(picked, other)
					next = append(next, other)
				}
			}
		}
		frontier = next
	}
	return picked
}

func (e *engine) addToView(i int, a Action, r *ActionResult) {
	v, ok1 := e.resolve(i, "view_id", str(a.ViewID), archixml.KindView)
	el, ok2 := e.resolve(i, "element_id", str(a.ElementID), archixml.KindElement)
	if !ok1 || !ok2 {
		return
	}
	r.Description = words("Add %s to view %q (%s)", label(el), v.Name(), v.ID())
	r.touched = []string{el.ID()}
	if v.Class() != "ArchimateDiagramModel" {
		e.errorf(i, "view_id", ViewNotArchimate, v.ID(), "view %q is %s, which cannot show ArchiMate elements", v.Name(), aType(v.Class()))
		return
	}
	if e.protected(i, "view_id", v) {
		return
	}
	for _, ref := range e.m.ReferencesTo(el.ID()) {
		if rv, _ := ref.View(); rv.ID() == v.ID() {
			e.errorf(i, "element_id", DuplicateOnView, el.ID(), "%s is already on view %q", label(el), v.Name())
			break
		}
	}
	parent, b, ok := e.placement(i, a, v, archixml.DefaultSize, r)
	if !ok {
		return
	}
	if !e.checkRefID(i, a) {
		return
	}
	var obj string
	var conns []string
	var err error
	hs := e.holders(parent)
	was := boundsOf(hs)
	if a.Connect != nil && !*a.Connect {
		// the plan draws its own: none now, none after the last action on this view
		obj, err = e.m.AddToViewAlone(v.ID(), parent, el.ID(), b)
		e.unconnectedViews[v.ID()] = true
		r.Description += ", connect false: no connection drawn to it"
	} else {
		obj, conns, err = e.m.AddToViewIn(v.ID(), parent, el.ID(), b)
		if a.Connect != nil {
			r.Description += ", connect true"
		}
	}
	if e.edit(i, "element_id", err) {
		e.created[obj] = true
		e.touchView(v.ID())
		e.refFor(i, a, obj)
		if o, ok := e.m.Object(obj); ok && b == nil {
			bb, _ := o.Bounds()
			r.After = fmt.Sprintf("at %d,%d size %dx%d%s (beside what it is related to on the view, else on the first free grid cell)%s",
				bb.X, bb.Y, bb.Width, bb.Height, archixml.PlacedIn(o), grown(hs, was))
		}
		r.Created = append([]string{obj}, conns...)
		if len(conns) > 0 {
			r.Description += words(", with %d connection(s) to what the view shows", len(conns))
		}
	}
}

func (e *engine) addConnection(i int, a Action, r *ActionResult) {
	v, ok := e.resolve(i, "view_id", str(a.ViewID), archixml.KindView)
	if !ok || e.protected(i, "view_id", v) || !e.checkRefID(i, a) {
		return
	}
	var src, tgt archixml.Object
	ok1, ok2 := true, true
	if a.SourceObjectID != nil {
		src, ok1 = e.resolveDiagram(i, "source_object_id", *a.SourceObjectID, v)
	}
	if a.TargetObjectID != nil {
		tgt, ok2 = e.resolveDiagram(i, "target_object_id", *a.TargetObjectID, v)
	}
	if !ok1 || !ok2 {
		return
	}
	if a.RelationshipID == nil {
		r.Description = words("Connect objects on view %q", v.Name())
		if !src.Valid() || !tgt.Valid() {
			e.errorf(i, "source_object_id", SchemaMissingField, "", "a connection without relationship_id needs source_object_id and target_object_id")
			return
		}
		r.Description = words("Connect %s to %s on view %q", diagramLabelIn(src), diagramLabelIn(tgt), v.Name())
		e.connectObjects(i, a, src, tgt, "", r)
		return
	}
	rel, ok := e.resolve(i, "relationship_id", *a.RelationshipID, archixml.KindRelationship)
	if !ok {
		return
	}
	r.Description = words("Draw %s on view %q", label(rel), v.Name())
	r.touched = []string{rel.SourceID(), rel.TargetID()}
	if src.Valid() != tgt.Valid() {
		e.errorf(i, "source_object_id", SchemaMissingField, "", "give both source_object_id and target_object_id, or neither")
		return
	}
	if src.Valid() {
		if a.AllowReversed != nil {
			r.Description += words(", allow_reversed %t", *a.AllowReversed)
		}
		if a.AllowReversed != nil && *a.AllowReversed && shows(src, rel.TargetID()) && shows(tgt, rel.SourceID()) &&
			!(shows(src, rel.SourceID()) && shows(tgt, rel.TargetID())) {
			// the objects show the ends the other way round: drawn from the relationship's source
			src, tgt = tgt, src
			r.Description += " (the ends were given reversed: drawn from its source)"
		}
		r.Description += words(" from %s to %s", diagramLabelIn(src), diagramLabelIn(tgt))
		e.connectObjects(i, a, src, tgt, rel.ID(), r)
		return
	}
	conns, err := e.m.ConnectOnView(v.ID(), rel.ID())
	if !e.edit(i, "relationship_id", err) {
		return
	}
	if len(conns) == 0 {
		if drawn := e.m.ConnectionsOnView(v.ID(), rel.ID()); len(drawn) > 0 {
			e.errorf(i, "relationship_id", ConnectionExists, drawn[0], "every pair of objects for %s on view %q is joined already; nothing is drawn", label(rel), v.Name())
			if a.RefID != nil {
				e.refs[*a.RefID] = drawn[0]
			}
			r.Description += " (joined already: skipped)"
			return
		}
		e.errorf(i, "relationship_id", ConnectionNotAllowed, rel.ID(), "view %q shows no pair of objects for %s that is not joined already", v.Name(), label(rel))
		return
	}
	for _, c := range conns {
		e.created[c] = true
	}
	if a.RefID != nil {
		e.refs[*a.RefID] = conns[0]
	}
	r.Created = conns
	r.Description += words(" (%d connection(s))", len(conns))
}

// shows says whether a diagram object shows the concept.
func shows(o archixml.Object, concept string) bool {
	c, ok := o.Concept()
	return ok && c.ID() == concept
}

// connectObjects draws one connection between two diagram objects, of relationship relID or plain.
func (e *engine) connectObjects(i int, a Action, src, tgt archixml.Object, relID string, r *ActionResult) {
	if id, ok := e.m.ConnectionBetween(src.ID(), tgt.ID(), relID); ok {
		// drawn already (by add_to_view, an earlier action or the model): never a second line
		e.errorf(i, "source_object_id", ConnectionExists, id, "%s and %s are joined already by connection %s; nothing is drawn", diagramLabel(src), diagramLabel(tgt), id)
		if a.RefID != nil {
			e.refs[*a.RefID] = id
		}
		r.Description += " (joined already: skipped)"
		return
	}
	id, err := e.m.ConnectObjects(src.ID(), tgt.ID(), relID)
	if err != nil {
		e.errorf(i, "source_object_id", ConnectionNotAllowed, src.ID(), "%v", err)
		return
	}
	e.refFor(i, a, id)
	r.Created = []string{id}
}

func (e *engine) removeFromView(i int, a Action, r *ActionResult) {
	o, ok := e.resolveDiagram(i, "object_id", str(a.ObjectID), archixml.Object{}, archixml.KindDiagramObject, archixml.KindConnection)
	if !ok {
		return
	}
	v, _ := o.View()
	r.Description = words("Remove %s from view %q", diagramLabelIn(o), v.Name())
	cut := newCascade(e.m, o) // named while it is there
	del, err := e.m.RemoveFromView(o.ID())
	if !e.edit(i, "object_id", err) {
		return
	}
	cut.takes(del, r)
	r.changed = []string{o.ID()}
	r.Deleted = &del
	e.deleted[o.ID()] = i
	for _, ids := range [][]string{del.DiagramObjects, del.Connections} {
		for _, id := range ids {
			e.deleted[id] = i
		}
	}
	if o.Kind() == archixml.KindConnection {
		if c, ok := o.Concept(); ok {
			e.unconnected[v.ID()+"|"+c.ID()] = true
		}
	}
	if n := len(del.DiagramObjects) + len(del.Connections); n > 1 {
		r.Description += words(", with %d object(s) and %d connection(s)", len(del.DiagramObjects), len(del.Connections))
	}
}

func (e *engine) moveViewObject(i int, a Action, r *ActionResult) {
	o, ok := e.resolveDiagram(i, "object_id", str(a.ObjectID), archixml.Object{})
	if !ok {
		return
	}
	if a.ParentID != nil {
		e.moveInto(i, a, o, r)
		return
	}
	r.Description = "Move " + diagramLabel(o)
	b, _ := o.Bounds()
	r.hasBefore, r.Before = true, fmt.Sprintf("at %d,%d size %dx%d", b.X, b.Y, b.Width, b.Height)
	nb := archixml.Bounds{X: intOr(a.X, b.X), Y: intOr(a.Y, b.Y), Width: intOr(a.Width, b.Width), Height: intOr(a.Height, b.Height)}
	r.After = fmt.Sprintf("at %d,%d size %dx%d", nb.X, nb.Y, nb.Width, nb.Height)
	if nb == b {
		e.errorf(i, "object_id", NoOp, o.ID(), "%s is already %s", diagramLabel(o), r.After)
		return
	}
	if e.once(i, "object_id", "bounds|"+o.ID(), r.After, "the bounds of "+diagramLabel(o)) {
		e.edit(i, "object_id", e.m.SetBounds(o.ID(), a.X, a.Y, a.Width, a.Height))
		r.changed = []string{o.ID()}
	}
}

var colorRE = lazyre.New(`^(#[0-9a-fA-F]{6})?$`)

func (e *engine) styleViewObject(i int, a Action, r *ActionResult) {
	o, ok := e.resolveDiagram(i, "object_id", str(a.ObjectID), archixml.Object{}, archixml.KindDiagramObject, archixml.KindConnection)
	if !ok {
		return
	}
	r.Description = "Style " + diagramLabel(o)
	r.changed = []string{o.ID()}
	type set struct{ field, attr, value string }
	var sets []set
	for _, c := range []struct {
		field, attr string
		v           *string
	}{{"font", "font", a.Font}, {"font_color", "fontColor", a.FontColor}, {"line_color", "lineColor", a.LineColor},
		{"text_alignment", "textAlignment", a.TextAlignment}, {"fill_color", "fillColor", a.FillColor},
		{"text_position", "textPosition", a.TextPosition}} {
		if c.v == nil {
			continue
		}
		v := *c.v
		switch c.attr {
		case "fillColor", "lineColor", "fontColor":
			if !colorRE.MatchString(v) {
				e.errorf(i, c.field, StyleInvalid, v, "%s must be a colour as #rrggbb, or empty for Archi's default", c.field)
				continue
			}
			v = strings.ToLower(v)
		case "textAlignment":
			v = map[string]string{"left": "1", "center": "2", "right": "4"}[v]
		case "textPosition":
			v = map[string]string{"top": "", "middle": "1", "bottom": "2"}[v]
		}
		sets = append(sets, set{c.field, c.attr, v})
		r.Description += words(", %s %q", c.field, *c.v)
	}
	for _, s := range styleInts(a) {
		if s.attr == "alpha" && o.Kind() == archixml.KindConnection {
			e.errorf(i, s.field, StyleInvalid, s.shown, "a connection has no fill, so no opacity")
			continue
		}
		sets = append(sets, set{s.field, s.attr, s.value})
		r.Description += words(", %s %s", s.field, s.shown)
	}
	if len(sets) == 0 {
		e.errorf(i, "object_id", NoOp, o.ID(), "style_view_object sets no style")
		return
	}
	for _, s := range sets {
		if o.Attr(s.attr) == s.value {
			e.errorf(i, s.field, NoOp, s.value, "%s of %s is already this", s.field, diagramLabel(o))
			continue
		}
		if !e.once(i, s.field, "style|"+o.ID()+"|"+s.attr, s.value, s.field+" of "+diagramLabel(o)) {
			continue
		}
		if err := e.m.SetStyle(o.ID(), s.attr, s.value); err != nil {
			e.errorf(i, s.field, StyleInvalid, s.value, "%v", err)
		}
	}
}

func (e *engine) deleteView(i int, a Action, r *ActionResult) {
	e.deleteConcept(i, "view_id", str(a.ViewID), r, archixml.KindView)
}

func (e *engine) createNote(i int, a Action, r *ActionResult) {
	e.createBox(i, a, r, "note", archixml.NoteSize, nil, func(view, parent string, b *archixml.Bounds) (string, error) {
		return e.m.CreateNote(view, parent, str(a.Text), b)
	})
}

func (e *engine) createGroup(i int, a Action, r *ActionResult) {
	named := func() bool { return !e.blank(i, "name", str(a.Name)) }
	e.createBox(i, a, r, fmt.Sprintf("group %q", str(a.Name)), archixml.GroupSize, named, func(view, parent string, b *archixml.Bounds) (string, error) {
		id, err := e.m.CreateGroup(view, parent, str(a.Name), b)
		if err == nil && str(a.Documentation) != "" {
			err = e.m.SetDocumentation(id, str(a.Documentation))
		}
		return id, err
	})
}

// createBox puts a note or a group (what, of the default size) on a view, placed as the action
// says, by create, once ok (when given) accepts the action's own fields.
func (e *engine) createBox(i int, a Action, r *ActionResult, what string, size archixml.Bounds, ok func() bool, create func(view, parent string, b *archixml.Bounds) (string, error)) {
	v, found := e.resolve(i, "view_id", str(a.ViewID), archixml.KindView)
	if !found {
		return
	}
	r.Description = words("Put %s on view %q (%s)", article(what), v.Name(), v.ID())
	if e.protected(i, "view_id", v) || !e.checkRefID(i, a) || ok != nil && !ok() {
		return
	}
	parent, b, placed := e.placement(i, a, v, size, r)
	if !placed {
		return
	}
	hs := e.holders(parent)
	was := boundsOf(hs)
	id, err := create(v.ID(), parent, b)
	if !e.edit(i, "view_id", err) {
		return
	}
	if b == nil {
		r.After = "on the first free grid cell"
		if parent != "" {
			nb, _ := e.m.Object(id)
			bb, _ := nb.Bounds()
			r.After = fmt.Sprintf("at %d,%d size %dx%d%s (on the first free cell inside it)%s", bb.X, bb.Y, bb.Width, bb.Height,
				archixml.PlacedIn(nb), grown(hs, was))
		}
	}
	e.refFor(i, a, id)
	e.touchView(v.ID())
	r.Created = []string{id}
	r.Description += words(", new %s", id)
}

func (e *engine) layoutView(i int, a Action, r *ActionResult) {
	v, ok := e.resolve(i, "view_id", str(a.ViewID), archixml.KindView)
	if !ok || e.protected(i, "view_id", v) {
		return
	}
	r.Description = words("Lay out view %q (%s) by layer", v.Name(), v.ID())
	if v.Class() != "ArchimateDiagramModel" {
		e.errorf(i, "view_id", ViewNotArchimate, v.ID(), "view %q is %s, which archiplan does not lay out", v.Name(), aType(v.Class()))
		return
	}
	if !e.once(i, "view_id", "layout|"+v.ID(), "", "the layout of view "+v.Name()) {
		return
	}
	opts := archixml.LayoutOptions{Grid: str(a.Algorithm) == "grid", LeftToRight: str(a.Direction) == "LR",
		NodeGap: a.NodeSpacing, RankGap: a.RankSpacing}
	for _, p := range []struct {
		field string
		v     *string
	}{{"algorithm", a.Algorithm}, {"direction", a.Direction}} {
		if p.v != nil {
			r.Description += words(", %s %s", p.field, *p.v)
		}
	}
	for _, p := range []struct {
		field string
		v     *int
	}{{"node_spacing", a.NodeSpacing}, {"rank_spacing", a.RankSpacing}} {
		if p.v != nil {
			r.Description += words(", %s %d", p.field, *p.v)
		}
	}
	moved, err := e.m.LayoutViewWith(v.ID(), opts)
	if !e.edit(i, "view_id", err) {
		return
	}
	// a line drawn through a box it does not connect reads as a relationship: routed around
	routed, err := route.Around(e.m, v.ID())
	if !e.edit(i, "view_id", err) {
		return
	}
	if len(moved) == 0 && len(routed) == 0 {
		e.errorf(i, "view_id", NoOp, v.ID(), "view %q is laid out already", v.Name())
		return
	}
	r.changed = append(moved, routed...)
	objects := 0 // moved or resized; the rest are connections whose bendpoints were dropped
	for _, id := range moved {
		if o, ok := e.m.Object(id); ok && o.Kind() == archixml.KindDiagramObject {
			objects++
		}
	}
	r.After = fmt.Sprintf("%d object(s) moved", objects)
	if len(routed) > 0 {
		r.After += fmt.Sprintf(", %d connection(s) routed around the boxes they do not connect", len(routed))
	}
}

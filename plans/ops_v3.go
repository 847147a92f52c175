package plans

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/schemas"
)

// handlersV3 are the ops schema_version 3.0 adds.
var handlersV3 = map[string]handler{
	"create_folder":          (*engine).createFolder,
	"update_relationship":    (*engine).updateRelationship,
	"delete_view":            (*engine).deleteConcept,
	"add_connection_to_view": (*engine).addConnection,
	"remove_from_view":       (*engine).removeFromView,
	"move_view_object":       (*engine).moveViewObject,
	"style_view_object":      (*engine).styleViewObject,
	"create_note":            (*engine).createBox,
	"create_group":           (*engine).createBox,
	"set_specialization":     (*engine).setSpecialization,
	"change_type":            (*engine).changeType,
	"merge_elements":         (*engine).mergeElements,
	"layout_view":            (*engine).layoutView,
}

// onDuplicate handles a create whose object exists already (existing): with on_duplicate error
// it refuses, with reuse its ref_id names the existing object. It returns true when the action is
// done without creating anything.
func (e *engine) onDuplicate(i int, a Action, r *ActionResult, existing archixml.Object) bool {
	switch str(a.OnDuplicate) {
	case "error":
		e.errorf(i, "on_duplicate", DuplicateRefused, existing.ID(), "%s already exists and on_duplicate is error", label(existing))
		return true
	case "reuse":
		if a.RefID != nil {
			e.refs[*a.RefID] = existing.ID()
		}
		r.Description = "Reuse " + label(existing) + " (it exists already)"
		r.touched = []string{existing.ID()}
		return true
	}
	return false
}

// folderOnCreate resolves a create action's folder_path to a folder id, creating the folders
// missing; "" without one.
func (e *engine) folderOnCreate(i int, a Action, class string) (string, bool) {
	if a.FolderPath == nil {
		return "", true
	}
	path := strings.Trim(*a.FolderPath, "/")
	if !e.folderPathOK(i, "folder_path", class, path) {
		return "", false
	}
	id, err := e.m.EnsureFolder(path)
	if !e.edit(i, "folder_path", err) {
		return "", false
	}
	return id, true
}

// extrasOnCreate sets what 3.0 create actions may carry besides the name: documentation,
// properties and a specialization.
func (e *engine) extrasOnCreate(i int, a Action, id string, r *ActionResult) {
	if d := str(a.Documentation); d != "" {
		e.edit(i, "documentation", e.m.SetDocumentation(id, d))
	}
	if a.Properties != nil {
		seen := map[string]bool{}
		for k, p := range *a.Properties {
			field := fmt.Sprintf("properties/%d/key", k)
			if e.blank(i, field, p.Key) {
				continue
			}
			if seen[p.Key] {
				e.errorf(i, field, Conflict, p.Key, "property %q is listed twice", p.Key)
				continue
			}
			seen[p.Key] = true
			e.edit(i, field, e.m.SetProperty(id, p.Key, p.Value))
		}
		if n := len(*a.Properties); n > 0 {
			r.Description += fmt.Sprintf(", with %d propert(ies)", n)
		}
	}
	if sp := str(a.Specialization); sp != "" {
		if _, _, err := e.m.SetSpecialization(id, sp); e.edit(i, "specialization", err) {
			r.Description += fmt.Sprintf(", specialization %q", sp)
		}
	}
}

// checkRelAttrs refuses access_type, influence_strength and directed on a relationship of
// another type.
func (e *engine) checkRelAttrs(i int, a Action, class string) bool {
	ok := true
	for _, c := range []struct {
		field, want string
		set         bool
	}{
		{"access_type", "AccessRelationship", a.AccessType != nil},
		{"influence_strength", "InfluenceRelationship", a.InfluenceStrength != nil},
		{"directed", "AssociationRelationship", a.Directed != nil},
	} {
		if c.set && class != c.want {
			e.errorf(i, c.field, FieldNotForType, class, "%s is for a %s, not a %s", c.field, c.want, class)
			ok = false
		}
	}
	return ok
}

// setRelAttrs writes access_type, influence_strength and directed, describing them.
func (e *engine) setRelAttrs(i int, a Action, id string, r *ActionResult) {
	if a.AccessType != nil {
		e.edit(i, "access_type", e.m.SetRelationshipAttr(id, "accessType", archixml.AccessTypes[*a.AccessType]))
		r.Description += fmt.Sprintf(", access %s", *a.AccessType)
	}
	if a.InfluenceStrength != nil {
		e.edit(i, "influence_strength", e.m.SetRelationshipAttr(id, "strength", *a.InfluenceStrength))
		r.Description += fmt.Sprintf(", strength %q", *a.InfluenceStrength)
	}
	if a.Directed != nil {
		v := ""
		if *a.Directed {
			v = "true"
		}
		e.edit(i, "directed", e.m.SetRelationshipAttr(id, "directed", v))
		r.Description += fmt.Sprintf(", directed %t", *a.Directed)
	}
}

// resolveDiagram resolves a diagram object, note, group (or, with conns, a connection) on a view;
// v may be invalid when any view will do. The scope of a context holds views, not what they show:
// a diagram component is in scope when its view is.
func (e *engine) resolveDiagram(i int, field, value string, v archixml.Object, kinds ...archixml.Kind) (archixml.Object, bool) {
	if len(kinds) == 0 {
		kinds = []archixml.Kind{archixml.KindDiagramObject}
	}
	scope := e.scope
	e.scope = nil
	o, ok := e.resolve(i, field, value, kinds...)
	e.scope = scope
	if !ok {
		return o, false
	}
	ov, _ := o.View()
	if v.Valid() && ov.ID() != v.ID() {
		e.errorf(i, field, RefWrongKind, value, "%s is on view %q, not on view %q", diagramLabel(o), ov.Name(), v.Name())
		return o, false
	}
	if e.scope != nil && !e.created[o.ID()] && !e.scope[ov.ID()] {
		e.errorf(i, field, PolicyOutOfScope, value, "%s lies on view %q, outside the plan's context", diagramLabel(o), ov.Name())
		return o, false
	}
	if e.protected(i, field, ov) {
		return o, false
	}
	return o, true
}

// diagramLabel names a diagram component by what it shows.
func diagramLabel(o archixml.Object) string {
	switch o.Class() {
	case "Note":
		return fmt.Sprintf("note (%s)", o.ID())
	case "Group":
		return fmt.Sprintf("group %q (%s)", o.Name(), o.ID())
	}
	if c, ok := o.Concept(); ok {
		return fmt.Sprintf("%s on the view (%s)", label(c), o.ID())
	}
	kind := "diagram object"
	if o.Kind() == archixml.KindConnection {
		kind = "connection"
	}
	return fmt.Sprintf("%s %s", kind, o.ID())
}

// checkViewRef declares a ref_id an action gives what it draws, after checking it.
func (e *engine) refFor(i int, a Action, id string) {
	e.created[id] = true
	if a.RefID != nil {
		e.refs[*a.RefID] = id
	}
}

func (e *engine) createFolder(i int, a Action, r *ActionResult) {
	path := strings.Trim(str(a.FolderPath), "/")
	r.Description = fmt.Sprintf("Create folder %s", path)
	if e.blank(i, "folder_path", path) || !e.checkRefID(i, a) {
		return
	}
	first, rest, _ := strings.Cut(path, "/")
	if _, ok := e.m.FolderAt(first); !ok || rest == "" {
		e.errorf(i, "folder_path", FolderWrongLayer, path, "%q must start with a top-level folder (Strategy, Business, Application, Technology & Physical, Motivation, Implementation & Migration, Other, Relations, Views) and name a folder below it", path)
		return
	}
	for _, p := range e.opts.Policy.ProtectedFolders {
		p = strings.Trim(p, "/")
		if path == p || strings.HasPrefix(path, p+"/") {
			e.errorf(i, "folder_path", PolicyProtected, path, "%s is a protected folder", p)
			return
		}
	}
	if f, exists := e.m.FolderAt(path); exists {
		e.errorf(i, "folder_path", NoOp, path, "folder %s exists already", path)
		if a.RefID != nil {
			e.refs[*a.RefID] = f.ID()
		}
		return
	}
	id, err := e.m.EnsureFolder(path)
	if !e.edit(i, "folder_path", err) {
		return
	}
	e.refFor(i, a, id)
	r.Created = []string{id}
	r.Description = fmt.Sprintf("Create folder %s (%s)", path, id)
	if d := str(a.Documentation); d != "" {
		e.edit(i, "documentation", e.m.SetDocumentation(id, d))
	}
}

func (e *engine) updateRelationship(i int, a Action, r *ActionResult) {
	o, ok := e.resolve(i, "relationship_id", str(a.RelationshipID), archixml.KindRelationship)
	if !ok || e.protected(i, "relationship_id", o) {
		return
	}
	r.Description = "Update " + label(o)
	r.changed = []string{o.ID()}
	if ty := o.Type(); ty != nil {
		r.edges = []edge{{id: o.ID(), typ: ty.Label, src: o.SourceID(), tgt: o.TargetID()}}
	}
	if a.AccessType == nil && a.InfluenceStrength == nil && a.Directed == nil {
		e.errorf(i, "relationship_id", NoOp, o.ID(), "update_relationship sets none of access_type, influence_strength, directed")
		return
	}
	if !e.checkRelAttrs(i, a, o.Class()) {
		return
	}
	if e.once(i, "relationship_id", "relattrs|"+o.ID(), "", "the attributes of "+label(o)) {
		e.setRelAttrs(i, a, o.ID(), r)
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
		r.Description = fmt.Sprintf("Connect objects on view %q", v.Name())
		if !src.Valid() || !tgt.Valid() {
			e.errorf(i, "source_object_id", SchemaMissingField, "", "a connection without relationship_id needs source_object_id and target_object_id")
			return
		}
		r.Description = fmt.Sprintf("Connect %s to %s on view %q", diagramLabel(src), diagramLabel(tgt), v.Name())
		e.connectObjects(i, a, src, tgt, "", r)
		return
	}
	rel, ok := e.resolve(i, "relationship_id", *a.RelationshipID, archixml.KindRelationship)
	if !ok {
		return
	}
	r.Description = fmt.Sprintf("Draw %s on view %q", label(rel), v.Name())
	r.touched = []string{rel.SourceID(), rel.TargetID()}
	if src.Valid() != tgt.Valid() {
		e.errorf(i, "source_object_id", SchemaMissingField, "", "give both source_object_id and target_object_id, or neither")
		return
	}
	if src.Valid() {
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
	r.Description += fmt.Sprintf(" (%d connection(s))", len(conns))
}

func (e *engine) removeFromView(i int, a Action, r *ActionResult) {
	o, ok := e.resolveDiagram(i, "object_id", str(a.ObjectID), archixml.Object{}, archixml.KindDiagramObject, archixml.KindConnection)
	if !ok {
		return
	}
	v, _ := o.View()
	r.Description = fmt.Sprintf("Remove %s from view %q", diagramLabel(o), v.Name())
	del, err := e.m.RemoveFromView(o.ID())
	if !e.edit(i, "object_id", err) {
		return
	}
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
		r.Description += fmt.Sprintf(", with %d object(s) and %d connection(s)", len(del.DiagramObjects), len(del.Connections))
	}
}

func (e *engine) moveViewObject(i int, a Action, r *ActionResult) {
	o, ok := e.resolveDiagram(i, "object_id", str(a.ObjectID), archixml.Object{})
	if !ok {
		return
	}
	r.Description = "Move " + diagramLabel(o)
	b, _ := o.Bounds()
	r.Before = fmt.Sprintf("at %d,%d size %dx%d", b.X, b.Y, b.Width, b.Height)
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

var colorRE = regexp.MustCompile(`^(#[0-9a-fA-F]{6})?$`)

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
		r.Description += fmt.Sprintf(", %s %q", c.field, *c.v)
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

func (e *engine) createBox(i int, a Action, r *ActionResult) {
	v, ok := e.resolve(i, "view_id", str(a.ViewID), archixml.KindView)
	what := "note"
	if a.Op == "create_group" {
		what = "group " + fmt.Sprintf("%q", str(a.Name))
	}
	if !ok {
		return
	}
	r.Description = fmt.Sprintf("Put a %s on view %q", what, v.Name())
	if e.protected(i, "view_id", v) || !e.checkRefID(i, a) {
		return
	}
	if a.Op == "create_group" && e.blank(i, "name", str(a.Name)) {
		return
	}
	size := archixml.NoteSize
	if a.Op == "create_group" {
		size = archixml.GroupSize
	}
	parent, b, ok := e.placement(i, a, v, size, r)
	if !ok {
		return
	}
	if b == nil {
		r.After = "on the first free grid cell"
	}
	var id string
	var err error
	if a.Op == "create_group" {
		id, err = e.m.CreateGroup(v.ID(), parent, str(a.Name), b)
	} else {
		id, err = e.m.CreateNote(v.ID(), parent, str(a.Text), b)
	}
	if !e.edit(i, "view_id", err) {
		return
	}
	e.refFor(i, a, id)
	e.touchView(v.ID())
	r.Created = []string{id}
	r.Description += fmt.Sprintf(" (%s)", id)
}

func (e *engine) setSpecialization(i int, a Action, r *ActionResult) {
	o, ok := e.resolve(i, "element_id", str(a.ElementID), archixml.KindElement, archixml.KindRelationship)
	if !ok || e.protected(i, "element_id", o) {
		return
	}
	name := str(a.Specialization)
	cur := ""
	for _, pid := range o.ProfileIDs() {
		if p, ok := e.m.Object(pid); ok {
			cur = p.Name()
		}
	}
	r.Description = fmt.Sprintf("Give %s the specialization %q", label(o), name)
	if name == "" {
		r.Description = fmt.Sprintf("Take the specialization of %s away", label(o))
	}
	r.Before, r.After, r.touched = cur, name, []string{o.ID()}
	if cur == "" {
		r.Before = "(none)"
	}
	if cur == name {
		e.errorf(i, "specialization", NoOp, name, "%s already has this specialization", label(o))
		return
	}
	if !e.once(i, "specialization", "profile|"+o.ID(), name, "the specialization of "+label(o)) {
		return
	}
	pid, created, err := e.m.SetSpecialization(o.ID(), name)
	if e.edit(i, "specialization", err) && created {
		r.Created = []string{pid}
		r.Description += fmt.Sprintf(" (a new specialization of %s, %s)", o.Type().Label, pid)
	}
}

func (e *engine) changeType(i int, a Action, r *ActionResult) {
	o, ok := e.resolve(i, "element_id", str(a.ElementID), archixml.KindElement)
	if !ok || e.protected(i, "element_id", o) {
		return
	}
	t := archixml.LookupType(str(a.Type))
	if t == nil || t.IsRelationship() {
		e.errorf(i, "type", SchemaBadValue, str(a.Type), "%q is no element type", str(a.Type))
		return
	}
	r.Description = fmt.Sprintf("Change %s to a %s", label(o), t.Label)
	r.Before, r.After, r.touched = o.Type().Label, t.Label, []string{o.ID()}
	if !allowedType(e.opts.Policy.AllowedElementTypes, t) {
		e.errorf(i, "type", PolicyTypeNotAllowed, str(a.Type), "the workspace does not allow %s elements", t.Label)
		return
	}
	if o.Class() == t.Class {
		e.errorf(i, "type", NoOp, t.Label, "%s is already a %s", label(o), t.Label)
		return
	}
	if !e.once(i, "type", "type|"+o.ID(), t.Class, "the type of "+label(o)) {
		return
	}
	for _, rel := range e.m.RelationshipsOf(o.ID()) {
		sc, tc := e.classOf(rel.SourceID()), e.classOf(rel.TargetID())
		if rel.SourceID() == o.ID() {
			sc = t.Class
		}
		if rel.TargetID() == o.ID() {
			tc = t.Class
		}
		if !archixml.Relationships().Allowed(rel.Class(), sc, tc) {
			e.errorf(i, "type", RelNotAllowed, rel.ID(), "as a %s it could not keep %s (%s from %s to %s)", t.Label, label(rel), rel.Type().Label, sc, tc)
			return
		}
	}
	if len(o.ProfileIDs()) > 0 {
		r.Description += ", dropping its specialization"
	}
	e.edit(i, "type", e.m.ChangeType(o.ID(), t.Class))
}

func (e *engine) classOf(id string) string {
	if o, ok := e.m.Object(id); ok {
		return o.Class()
	}
	return ""
}

func (e *engine) mergeElements(i int, a Action, r *ActionResult) {
	s, ok1 := e.resolve(i, "element_id", str(a.ElementID), archixml.KindElement)
	d, ok2 := e.resolve(i, "merged_id", str(a.MergedID), archixml.KindElement)
	if !ok1 || !ok2 || e.protected(i, "element_id", s) || e.protected(i, "merged_id", d) {
		return
	}
	r.Description = fmt.Sprintf("Merge %s into %s", label(d), label(s))
	r.touched = []string{s.ID(), d.ID()}
	if s.ID() == d.ID() {
		e.errorf(i, "merged_id", MergeNotAllowed, d.ID(), "an element cannot be merged into itself")
		return
	}
	if s.Class() != d.Class() {
		e.errorf(i, "merged_id", MergeNotAllowed, d.ID(), "%s and %s differ in type; change_type one first", label(s), label(d))
		return
	}
	for _, rel := range e.m.RelationshipsOf(d.ID()) {
		if ty := rel.Type(); ty != nil {
			r.edges = append(r.edges, edge{id: rel.ID(), typ: ty.Label, src: rel.SourceID(), tgt: rel.TargetID(), deleted: true})
		}
	}
	mg, err := e.m.Merge(s.ID(), d.ID())
	if !e.edit(i, "merged_id", err) {
		return
	}
	e.deleted[d.ID()] = i
	r.Deleted = &archixml.Deleted{}
	r.Description += fmt.Sprintf(": %d relationship(s), %d appearance(s) on views and %d propert(ies) move to it",
		len(mg.Relationships), len(mg.DiagramObjects), len(mg.Properties))
	r.changed = append(append(r.changed, mg.Relationships...), mg.DiagramObjects...)
	for _, id := range mg.Relationships {
		if rel, ok := e.m.Object(id); ok && rel.Type() != nil {
			r.edges = append(r.edges, edge{id: id, typ: rel.Type().Label, src: rel.SourceID(), tgt: rel.TargetID()})
		}
	}
}

func (e *engine) layoutView(i int, a Action, r *ActionResult) {
	v, ok := e.resolve(i, "view_id", str(a.ViewID), archixml.KindView)
	if !ok || e.protected(i, "view_id", v) {
		return
	}
	r.Description = fmt.Sprintf("Lay out view %q (%s) by layer", v.Name(), v.ID())
	if v.Class() != "ArchimateDiagramModel" {
		e.errorf(i, "view_id", ViewNotArchimate, v.ID(), "view %q is a %s, which archiplan does not lay out", v.Name(), v.Class())
		return
	}
	if !e.once(i, "view_id", "layout|"+v.ID(), "", "the layout of view "+v.Name()) {
		return
	}
	moved, err := e.m.LayoutView(v.ID())
	if !e.edit(i, "view_id", err) {
		return
	}
	if len(moved) == 0 {
		e.errorf(i, "view_id", NoOp, v.ID(), "view %q is laid out already", v.Name())
		return
	}
	r.changed = moved
	r.After = fmt.Sprintf("%d object(s) moved", len(moved))
}

// fillView puts a create_view's selection on the new view: the elements named, of the types
// named and in the folder named, with their neighbours to the depth asked, and lays it out.
func (e *engine) fillView(i int, a Action, viewID string, r *ActionResult) {
	if a.SelectIDs == nil && a.SelectTypes == nil && a.SelectFolder == nil {
		return
	}
	var picked []string
	seen := map[string]bool{}
	pick := func(id string) {
		if !seen[id] {
			seen[id] = true
			picked = append(picked, id)
		}
	}
	var what []string
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
					pick(other)
					next = append(next, other)
				}
			}
		}
		frontier = next
	}
	if depth > 0 {
		what = append(what, fmt.Sprintf("their neighbours to depth %d", depth))
	}
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
	r.Description += fmt.Sprintf(", showing %d element(s) (%s), laid out by layer", len(picked), strings.Join(what, "; "))
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

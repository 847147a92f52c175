package plans

import (
	"fmt"
	"strings"

	"github.com/archiplan/archiplan/archixml"
)

// handler is one op: it checks an action against the model as the actions before it left it,
// performs it through archixml's journaled edits (so that the journal is its inverse), and says
// in the result what it did, with names resolved, and which ids it read and changed.
type handler func(e *engine, i int, a Action, r *ActionResult)

// handlers holds one handler per op of schemas.Ops, keyed by the op's name.
var handlers map[string]handler

func init() {
	handlers = map[string]handler{
		"rename_element":      (*engine).renameElement,
		"set_property":        (*engine).setProperty,
		"remove_property":     (*engine).removeProperty,
		"set_documentation":   (*engine).setDocumentation,
		"create_element":      (*engine).createElement,
		"create_relationship": (*engine).createRelationship,
		"create_view":         (*engine).createView,
		"add_to_view":         (*engine).addToView,
		"delete_element":      (*engine).deleteConcept,
		"delete_relationship": (*engine).deleteConcept,
		"move_to_folder":      (*engine).moveToFolder,
	}
	for name, h := range handlersV3 {
		handlers[name] = h
	}
}

// propertyHolders are the kinds that carry properties and documentation in Archi.
var propertyHolders = []archixml.Kind{archixml.KindElement, archixml.KindRelationship, archixml.KindView, archixml.KindFolder}

// blank refuses text that is only spaces where a value is needed (empty text the schema refuses).
func (e *engine) blank(i int, field, value string) bool {
	if strings.TrimSpace(value) == "" {
		e.errorf(i, field, TextBlank, value, "%s is empty or only spaces", field)
		return true
	}
	return false
}

func (e *engine) renameElement(i int, a Action, r *ActionResult) {
	o, ok := e.resolve(i, "element_id", str(a.ElementID), concepts...)
	if !ok || e.protected(i, "element_id", o) {
		return
	}
	r.Description = fmt.Sprintf("Rename %s to %q", label(o), str(a.NewName))
	r.Before, r.After, r.touched = o.Name(), str(a.NewName), []string{o.ID()}
	if e.blank(i, "new_name", str(a.NewName)) {
		return
	}
	if o.Name() == str(a.NewName) {
		e.errorf(i, "new_name", NoOp, str(a.NewName), "%s already has this name", label(o))
		return
	}
	if e.once(i, "new_name", "name|"+o.ID(), str(a.NewName), "the name of "+label(o)) {
		e.edit(i, "new_name", e.m.Rename(o.ID(), str(a.NewName)))
	}
}

func (e *engine) setProperty(i int, a Action, r *ActionResult) {
	o, ok := e.resolve(i, "element_id", str(a.ElementID), propertyHolders...)
	if !ok || e.protected(i, "element_id", o) {
		return
	}
	key, val := str(a.Key), str(a.Value)
	old, had := o.Property(key)
	r.Description = fmt.Sprintf("Set property %q of %s to %q", key, label(o), val)
	r.Before, r.After, r.touched = old, val, []string{o.ID()}
	if !had {
		r.Before = "(none)"
	}
	if e.blank(i, "key", key) {
		return
	}
	if had && old == val {
		e.errorf(i, "value", NoOp, val, "property %q of %s already has this value", key, label(o))
		return
	}
	if e.once(i, "value", "property|"+o.ID()+"|"+key, val, fmt.Sprintf("property %q of %s", key, label(o))) {
		e.edit(i, "value", e.m.SetProperty(o.ID(), key, val))
	}
}

func (e *engine) removeProperty(i int, a Action, r *ActionResult) {
	o, ok := e.resolve(i, "element_id", str(a.ElementID), propertyHolders...)
	if !ok || e.protected(i, "element_id", o) {
		return
	}
	key := str(a.Key)
	old, had := o.Property(key)
	r.Description = fmt.Sprintf("Remove property %q of %s", key, label(o))
	r.Before, r.After, r.touched = old, "(none)", []string{o.ID()}
	if !had {
		e.errorf(i, "key", NoOp, key, "%s has no property %q", label(o), key)
		return
	}
	if e.once(i, "key", "property|"+o.ID()+"|"+key, "\x00removed", fmt.Sprintf("property %q of %s", key, label(o))) {
		e.edit(i, "key", e.m.RemoveProperty(o.ID(), key))
	}
}

func (e *engine) setDocumentation(i int, a Action, r *ActionResult) {
	o, ok := e.resolve(i, "element_id", str(a.ElementID), propertyHolders...)
	if !ok || e.protected(i, "element_id", o) {
		return
	}
	doc := str(a.Documentation)
	r.Description = fmt.Sprintf("Set the documentation of %s", label(o))
	r.Before, r.After, r.touched = o.Documentation(), doc, []string{o.ID()}
	if o.Documentation() == doc {
		e.errorf(i, "documentation", NoOp, doc, "%s already has this documentation", label(o))
		return
	}
	if e.once(i, "documentation", "doc|"+o.ID(), doc, "the documentation of "+label(o)) {
		e.edit(i, "documentation", e.m.SetDocumentation(o.ID(), doc))
	}
}

// duplicateName warns when a created element or view takes the name and type of an object the
// model (or the plan) already has; it returns the first such object, for on_duplicate.
func (e *engine) duplicateName(i int, class, name, what string, warn bool) (archixml.Object, bool) {
	for _, o := range e.m.Named(class, name) {
		if _, gone := e.deleted[o.ID()]; gone {
			continue
		}
		if warn {
			e.errorf(i, "name", DuplicateName, name, "%s already exists; this makes a second %s of that name", label(o), what)
		}
		return o, true
	}
	return archixml.Object{}, false
}

func (e *engine) createElement(i int, a Action, r *ActionResult) {
	t := archixml.LookupType(str(a.Type))
	r.Description = fmt.Sprintf("Create %s %q", str(a.Type), str(a.Name))
	if t == nil || t.IsRelationship() {
		e.errorf(i, "type", SchemaBadValue, str(a.Type), "%q is no element type", str(a.Type))
		return
	}
	r.Description = fmt.Sprintf("Create %s %q in %s", t.Label, str(a.Name), t.Layer)
	if !allowedType(e.opts.Policy.AllowedElementTypes, t) {
		e.errorf(i, "type", PolicyTypeNotAllowed, str(a.Type), "the workspace does not allow %s elements", t.Label)
		return
	}
	if e.blank(i, "name", str(a.Name)) || !e.checkRefID(i, a) {
		return
	}
	if existing, dup := e.duplicateName(i, t.Class, str(a.Name), "element", a.OnDuplicate == nil || *a.OnDuplicate == "create"); dup {
		if e.onDuplicate(i, a, r, existing) {
			return
		}
	}
	folder, ok := e.folderOnCreate(i, a, t.Class)
	if !ok {
		return
	}
	id, err := e.m.CreateElement(t.Class, str(a.Name), folder)
	if !e.edit(i, "name", err) {
		return
	}
	e.declare(i, a, id)
	r.Created, r.touched = []string{id}, []string{id}
	where := t.Layer
	if a.FolderPath != nil {
		where = "folder " + strings.Trim(*a.FolderPath, "/")
	}
	r.Description = fmt.Sprintf("Create %s %q (%s) in %s", t.Label, str(a.Name), id, where)
	e.extrasOnCreate(i, a, id, r)
}

func (e *engine) createRelationship(i int, a Action, r *ActionResult) {
	t := archixml.LookupType(str(a.RelationshipType))
	src, ok1 := e.resolve(i, "source_id", str(a.SourceID), archixml.KindElement, archixml.KindRelationship)
	tgt, ok2 := e.resolve(i, "target_id", str(a.TargetID), archixml.KindElement, archixml.KindRelationship)
	if t == nil || !t.IsRelationship() {
		e.errorf(i, "relationship_type", SchemaBadValue, str(a.RelationshipType), "%q is no relationship type", str(a.RelationshipType))
		return
	}
	if !ok1 || !ok2 {
		r.Description = fmt.Sprintf("Create %s from %q to %q", t.Label, str(a.SourceID), str(a.TargetID))
		return
	}
	r.Description = fmt.Sprintf("Create %s from %s to %s", t.Label, label(src), label(tgt))
	r.touched = []string{src.ID(), tgt.ID()}
	if !allowedType(e.opts.Policy.AllowedRelationshipTypes, t) {
		e.errorf(i, "relationship_type", PolicyTypeNotAllowed, t.Label, "the workspace does not allow %s relationships", t.Label)
		return
	}
	if !e.relAllowed(i, t, src, tgt) {
		return
	}
	var existing archixml.Object
	for _, rel := range e.m.RelationshipsOf(src.ID()) {
		if rel.Class() == t.Class && rel.SourceID() == src.ID() && rel.TargetID() == tgt.ID() && sameRelAttrs(rel, a) {
			existing = rel
			if a.OnDuplicate == nil || *a.OnDuplicate == "create" {
				e.errorf(i, "relationship_type", DuplicateRel, rel.ID(), "%s already has %s %s to %s", label(src), t.Label, rel.ID(), label(tgt))
			}
			break
		}
	}
	if !e.checkRefID(i, a) {
		return
	}
	if existing.Valid() && e.onDuplicate(i, a, r, existing) {
		return
	}
	if !e.checkRelAttrs(i, a, t.Class) {
		return
	}
	id, err := e.m.CreateRelationship(t.Class, src.ID(), tgt.ID(), str(a.Name))
	if !e.edit(i, "relationship_type", err) {
		return
	}
	e.declare(i, a, id)
	e.newRels = append(e.newRels, newRel{id: id, action: i})
	r.Created = []string{id}
	r.edges = []edge{{id: id, typ: t.Label, src: src.ID(), tgt: tgt.ID()}}
	e.setRelAttrs(i, a, id, r)
	e.extrasOnCreate(i, a, id, r)
}

// sameRelAttrs says whether an existing relationship has the access type and influence strength
// an action asks for (Archi's defaults when it names none): only then is it a duplicate.
func sameRelAttrs(rel archixml.Object, a Action) bool {
	access := "write"
	if a.AccessType != nil {
		access = *a.AccessType
	}
	if rel.Class() == "AccessRelationship" && rel.Attr("accessType") != archixml.AccessTypes[access] {
		return false
	}
	return rel.Class() != "InfluenceRelationship" || rel.Attr("strength") == str(a.InfluenceStrength)
}

// relAllowed checks a relationship of type t between src and tgt against the ArchiMate 3.2 table
// and the junction rules.
func (e *engine) relAllowed(i int, t *archixml.ConceptType, src, tgt archixml.Object) bool {
	if !archixml.Relationships().Allowed(t.Class, src.Class(), tgt.Class()) {
		allowed := archixml.Relationships().AllowedTypes(src.Class(), tgt.Class())
		var labels []string
		for _, c := range allowed {
			labels = append(labels, archixml.RelationshipType(c).Label)
		}
		if len(labels) == 0 {
			labels = []string{"none"}
		}
		e.errorf(i, "relationship_type", RelNotAllowed, t.Label,
			"ArchiMate 3.2 does not allow %s from %s to %s; allowed: %s", t.Label, labelOf(src), labelOf(tgt), strings.Join(labels, ", "))
		return false
	}
	if err := e.m.CheckJunction(t.Class, src.ID(), tgt.ID()); err != nil {
		e.errorf(i, "relationship_type", RelNotAllowed, t.Label, "%s", strings.TrimSuffix(err.Error(), ": "+archixml.ErrNotAllowed.Error()))
		return false
	}
	return true
}

func (e *engine) createView(i int, a Action, r *ActionResult) {
	r.Description = fmt.Sprintf("Create view %q", str(a.Name))
	if e.blank(i, "name", str(a.Name)) || !e.checkRefID(i, a) {
		return
	}
	if existing, dup := e.duplicateName(i, "ArchimateDiagramModel", str(a.Name), "view", a.OnDuplicate == nil || *a.OnDuplicate == "create"); dup {
		if e.onDuplicate(i, a, r, existing) {
			return
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
	id, err := e.m.CreateView(str(a.Name), folder, vp)
	if !e.edit(i, "name", err) {
		return
	}
	e.declare(i, a, id)
	e.touchView(id)
	r.Created = []string{id}
	r.Description = fmt.Sprintf("Create view %q (%s)", str(a.Name), id)
	if vp != "" {
		r.Description += fmt.Sprintf(" with viewpoint %s", vp)
	}
	e.extrasOnCreate(i, a, id, r)
	e.fillView(i, a, id, r)
}

func (e *engine) addToView(i int, a Action, r *ActionResult) {
	v, ok1 := e.resolve(i, "view_id", str(a.ViewID), archixml.KindView)
	el, ok2 := e.resolve(i, "element_id", str(a.ElementID), archixml.KindElement)
	if !ok1 || !ok2 {
		return
	}
	r.Description = fmt.Sprintf("Add %s to view %q (%s)", label(el), v.Name(), v.ID())
	r.touched = []string{el.ID()}
	if v.Class() != "ArchimateDiagramModel" {
		e.errorf(i, "view_id", ViewNotArchimate, v.ID(), "view %q is a %s, which cannot show ArchiMate elements", v.Name(), v.Class())
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
	obj, conns, err := e.m.AddToViewIn(v.ID(), parent, el.ID(), b)
	if e.edit(i, "element_id", err) {
		e.created[obj] = true
		e.touchView(v.ID())
		e.refFor(i, a, obj)
		if o, ok := e.m.Object(obj); ok && b == nil {
			bb, _ := o.Bounds()
			r.After = fmt.Sprintf("at %d,%d size %dx%d (beside what it is related to on the view, else on the first free grid cell)", bb.X, bb.Y, bb.Width, bb.Height)
		}
		r.Created = append([]string{obj}, conns...)
		if len(conns) > 0 {
			r.Description += fmt.Sprintf(", with %d connection(s) to what the view shows", len(conns))
		}
	}
}

func (e *engine) deleteConcept(i int, a Action, r *ActionResult) {
	field, kinds := "element_id", []archixml.Kind{archixml.KindElement, archixml.KindView}
	value := str(a.ElementID)
	switch a.Op {
	case "delete_relationship":
		field, kinds, value = "relationship_id", []archixml.Kind{archixml.KindRelationship}, str(a.RelationshipID)
	case "delete_view":
		field, kinds, value = "view_id", []archixml.Kind{archixml.KindView}, str(a.ViewID)
	}
	o, ok := e.resolve(i, field, value, kinds...)
	if !ok || e.protected(i, field, o) {
		return
	}
	r.Description = "Delete " + label(o)
	r.touched = []string{o.ID()}
	if o.Kind() == archixml.KindRelationship {
		r.edges = []edge{{id: o.ID(), typ: o.Type().Label, src: o.SourceID(), tgt: o.TargetID(), deleted: true}}
	}
	var gone []archixml.Object
	for _, rel := range e.m.RelationshipsOf(o.ID()) {
		gone = append(gone, rel)
	}
	var del archixml.Deleted
	var err error
	switch o.Kind() {
	case archixml.KindElement:
		del, err = e.m.DeleteElement(o.ID())
	case archixml.KindView:
		del, err = e.m.DeleteView(o.ID())
		r.touched, r.changed = nil, []string{o.ID()} // a view is no node of the diagram
		for _, d := range o.DiagramObjects() {
			e.deleted[d.ID()] = i
		}
		for _, c := range o.Connections() {
			e.deleted[c.ID()] = i
		}
	default:
		del, err = e.m.DeleteRelationship(o.ID())
	}
	if !e.edit(i, field, err) {
		return
	}
	r.Deleted = &del
	e.deleted[o.ID()] = i
	for _, rel := range gone {
		if ty := rel.Type(); ty != nil {
			r.edges = append(r.edges, edge{id: rel.ID(), typ: ty.Label, src: rel.SourceID(), tgt: rel.TargetID(), deleted: true})
		}
	}
	for _, ids := range [][]string{del.Relationships, del.DiagramObjects, del.Connections} {
		for _, id := range ids {
			e.deleted[id] = i
		}
	}
	if n := len(del.Relationships); n > 0 {
		r.Description += fmt.Sprintf(", with %d relationship(s)", n)
	}
	if n := len(del.DiagramObjects); n > 0 {
		r.Description += fmt.Sprintf(", %d appearance(s) on views", n)
	}
	if n := len(del.Connections); n > 0 {
		r.Description += fmt.Sprintf(", %d connection(s)", n)
	}
}

func (e *engine) moveToFolder(i int, a Action, r *ActionResult) {
	o, ok := e.resolve(i, "element_id", str(a.ElementID), concepts...)
	if !ok || e.protected(i, "element_id", o) {
		return
	}
	path := strings.Trim(str(a.FolderPath), "/")
	r.Description = fmt.Sprintf("Move %s to folder %s", label(o), path)
	r.Before, r.After, r.touched = o.FolderPath(), path, []string{o.ID()}
	if !e.folderPathOK(i, "folder_path", o.Class(), path) {
		return
	}
	ft := archixml.FolderFor(o.Class())
	top, _ := e.m.TopFolder(ft)
	if o.FolderPath() == path || strings.Replace(o.FolderPath(), top.Name(), ft, 1) == path {
		e.errorf(i, "folder_path", NoOp, path, "%s is already in %s", label(o), path)
		return
	}
	if e.once(i, "folder_path", "folder|"+o.ID(), path, "the folder of "+label(o)) {
		_, err := e.m.MoveToFolder(o.ID(), path)
		e.edit(i, "folder_path", err)
	}
}

// folderPathOK checks that a folder path lies under the top-level folder objects of the class
// belong in, and outside the protected folders.
func (e *engine) folderPathOK(i int, field, class, path string) bool {
	ft := archixml.FolderFor(class)
	top, _ := e.m.TopFolder(ft)
	first, _, _ := strings.Cut(path, "/")
	if first != top.Name() && first != ft {
		e.errorf(i, field, FolderWrongLayer, path, "a %s belongs under the %q folder; %q is not", class, top.Name(), path)
		return false
	}
	for _, p := range e.opts.Policy.ProtectedFolders {
		p = strings.Trim(p, "/")
		if path == p || strings.HasPrefix(path, p+"/") {
			e.errorf(i, field, PolicyProtected, path, "%s is a protected folder", p)
			return false
		}
	}
	return true
}

// placement reads where an action puts something on view v: the parent it nests in (parent_id)
// and its bounds (x, y, width, height; the size defaults to size), nil when the plan gives no x
// and y. It adds both to the action's description.
func (e *engine) placement(i int, a Action, v archixml.Object, size archixml.Bounds, r *ActionResult) (string, *archixml.Bounds, bool) {
	parent := ""
	if a.ParentID != nil {
		p, ok := e.resolveDiagram(i, "parent_id", *a.ParentID, v)
		if !ok {
			return "", nil, false
		}
		parent = p.ID()
		r.Description += ", inside " + diagramLabel(p)
	}
	if a.X == nil && a.Y == nil {
		return parent, nil, true
	}
	b := archixml.Bounds{X: intOr(a.X, 0), Y: intOr(a.Y, 0), Width: intOr(a.Width, size.Width), Height: intOr(a.Height, size.Height)}
	r.After = fmt.Sprintf("at %d,%d size %dx%d", b.X, b.Y, b.Width, b.Height)
	return parent, &b, true
}

// labelOf is a concept's type as jArchi and planners write it ("Business Actor").
func labelOf(o archixml.Object) string {
	if t := o.Type(); t != nil && t.Label != "" {
		return t.Label
	}
	return o.Class()
}

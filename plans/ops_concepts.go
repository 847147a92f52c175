package plans

import (
	"fmt"
	"strings"

	"github.com/archiplan/archiplan/archixml"
)

func (e *engine) renameElement(i int, a Action, r *ActionResult) {
	o, ok := e.resolve(i, "element_id", str(a.ElementID), concepts...)
	if !ok || e.protected(i, "element_id", o) {
		return
	}
	r.Description = words("Rename %s to %q", label(o), str(a.NewName))
	r.change(o.Name(), str(a.NewName))
	r.touched = []string{o.ID()}
	if e.blank(i, "new_name", str(a.NewName)) {
		return
	}
	if o.Name() == str(a.NewName) {
		e.errorf(i, "new_name", NoOp, str(a.NewName), "%s already has this name", label(o))
		return
	}
	if o.Kind() == archixml.KindElement {
		e.renamedAlike(i, o, str(a.NewName))
	}
	if e.once(i, "new_name", "name|"+o.ID(), str(a.NewName), "the name of "+label(o)) {
		e.edit(i, "new_name", e.m.Rename(o.ID(), str(a.NewName)))
	}
}

// renamedAlike warns (DUPLICATE_NAME) when an element is renamed to a name that reads like its old
// one (a change a person cannot see: "Сustomer" with a Cyrillic С for "Customer"), or to the name
// of another element of its type, or one that reads like it, as create_element is warned.
func (e *engine) renamedAlike(i int, o archixml.Object, name string) {
	if skeleton(name) == skeleton(o.Name()) {
		e.errorf(i, "new_name", DuplicateName, name, "the new name of %s reads like its old one (%s beside %s): a change a person cannot see",
			label(o), quoteASCII(name), quoteASCII(o.Name()))
		return
	}
	same, like := e.byName(o.Class(), name)
	for _, d := range same {
		if _, gone := e.deleted[d.ID()]; !gone && d.ID() != o.ID() {
			e.errorf(i, "new_name", DuplicateName, name, "%s already has this name; this makes a second element of that name", label(d))
			return
		}
	}
	e.confusable(i, like, name, "element")
}

func (e *engine) setProperty(i int, a Action, r *ActionResult) {
	o, ok := e.resolve(i, "element_id", str(a.ElementID), propertyHolders...)
	if !ok || e.protected(i, "element_id", o) {
		return
	}
	key, val := str(a.Key), str(a.Value)
	old, had := o.Property(key)
	r.Description = words("Set property %q of %s to %q", key, label(o), val)
	r.change(old, val)
	r.touched = []string{o.ID()}
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
	r.Description = words("Remove property %q of %s", key, label(o))
	r.change(old, "(none)")
	r.touched = []string{o.ID()}
	if !had {
		e.errorf(i, "key", NoOp, key, "%s has no property %q", label(o), key)
		return
	}
	if e.once(i, "key", "property|"+o.ID()+"|"+key, "\x00removed", fmt.Sprintf("property %q of %s", key, label(o))) {
		e.edit(i, "key", e.m.RemoveProperty(o.ID(), key))
	}
}

func (e *engine) setDocumentation(i int, a Action, r *ActionResult) {
	var o archixml.Object
	ok := false
	if e.p.SchemaVersion >= "3.1" && e.isDiagramObject(str(a.ElementID)) {
		// 3.1: a group on a view has documentation too (Archi's DiagramModelGroup)
		if o, ok = e.resolveDiagram(i, "element_id", str(a.ElementID), archixml.Object{}); ok && o.Class() != "Group" {
			e.errorf(i, "element_id", RefWrongKind, str(a.ElementID), "%s has no documentation of its own: only a group on a view has", diagramLabel(o))
			return
		}
	} else {
		o, ok = e.resolve(i, "element_id", str(a.ElementID), propertyHolders...)
		ok = ok && !e.protected(i, "element_id", o)
	}
	if !ok {
		return
	}
	doc := str(a.Documentation)
	r.Description = words("Set the documentation of %s", label(o))
	r.change(o.Documentation(), doc)
	r.touched = []string{o.ID()}
	if o.Documentation() == doc {
		e.errorf(i, "documentation", NoOp, doc, "%s already has this documentation", label(o))
		return
	}
	if e.once(i, "documentation", "doc|"+o.ID(), doc, "the documentation of "+label(o)) {
		e.edit(i, "documentation", e.m.SetDocumentation(o.ID(), doc))
	}
}

func (e *engine) createElement(i int, a Action, r *ActionResult) {
	t := archixml.LookupType(str(a.Type))
	r.Description = words("Create %s %q", str(a.Type), str(a.Name))
	if t == nil || t.IsRelationship() {
		e.errorf(i, "type", SchemaBadValue, str(a.Type), "%q is no element type", str(a.Type))
		return
	}
	r.Description = words("Create %s %q in %s", t.Label, str(a.Name), t.Layer)
	if !allowedType(e.opts.Policy.AllowedElementTypes, t) {
		e.errorf(i, "type", PolicyTypeNotAllowed, str(a.Type), "the workspace does not allow %s elements", t.Label)
		return
	}
	if e.blank(i, "name", str(a.Name)) || !e.checkRefID(i, a) {
		return
	}
	name := str(a.Name)
	if existing, dup := e.duplicateName(i, t.Class, name, "element", a.OnDuplicate == nil || *a.OnDuplicate == "create"); dup {
		if e.onDuplicate(i, a, r, existing) {
			return
		}
		if str(a.OnDuplicate) == "rename" {
			name = e.renamed(t.Class, name)
		}
	}
	folder, ok := e.folderOnCreate(i, a, t.Class)
	if !ok {
		return
	}
	id, err := e.m.CreateElement(t.Class, name, folder)
	if !e.edit(i, "name", err) {
		return
	}
	e.declare(i, a, id)
	r.Created, r.touched = []string{id}, []string{id}
	where := t.Layer
	if a.FolderPath != nil {
		where = "folder " + strings.Trim(*a.FolderPath, "/")
	}
	r.Description = words("Create %s %q (%s) in %s", t.Label, name, id, where)
	if name != str(a.Name) {
		r.Description += words(", renamed: %s %q exists", article(t.Label), str(a.Name))
	}
	e.extrasOnCreate(i, a, id, r)
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
	}
	if sp := str(a.Specialization); sp != "" {
		if _, _, err := e.m.SetSpecialization(id, sp); e.edit(i, "specialization", err) {
			r.Description += words(", specialization %q", sp)
		}
	}
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
		r.Description = words("Create %s from %q to %q", t.Label, str(a.SourceID), str(a.TargetID))
		return
	}
	r.Description = words("Create %s from %s to %s", t.Label, label(src), label(tgt))
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
			e.errorf(i, c.field, FieldNotForType, class, "%s is for %s, not %s", c.field, aType(c.want), aType(class))
			ok = false
		}
	}
	return ok
}

// setRelAttrs writes access_type, influence_strength and directed, describing them.
func (e *engine) setRelAttrs(i int, a Action, id string, r *ActionResult) {
	if a.AccessType != nil {
		e.edit(i, "access_type", e.m.SetRelationshipAttr(id, "accessType", archixml.AccessTypes[*a.AccessType]))
		r.Description += words(", access %s", *a.AccessType)
	}
	if a.InfluenceStrength != nil {
		e.edit(i, "influence_strength", e.m.SetRelationshipAttr(id, "strength", *a.InfluenceStrength))
		r.Description += words(", strength %q", *a.InfluenceStrength)
	}
	if a.Directed != nil {
		v := ""
		if *a.Directed {
			v = "true"
		}
		e.edit(i, "directed", e.m.SetRelationshipAttr(id, "directed", v))
		r.Description += words(", directed %t", *a.Directed)
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

func (e *engine) deleteElement(i int, a Action, r *ActionResult) {
	e.deleteConcept(i, "element_id", str(a.ElementID), r, archixml.KindElement, archixml.KindView)
}

func (e *engine) deleteRelationship(i int, a Action, r *ActionResult) {
	e.deleteConcept(i, "relationship_id", str(a.RelationshipID), r, archixml.KindRelationship)
}

// deleteConcept deletes what an id field names (an element, relationship or view), with what
// the delete takes along.
func (e *engine) deleteConcept(i int, field, value string, r *ActionResult, kinds ...archixml.Kind) {
	o, ok := e.resolve(i, field, value, kinds...)
	if !ok || e.protected(i, field, o) {
		return
	}
	r.Description = "Delete " + label(o)
	r.touched = []string{o.ID()}
	if o.Kind() == archixml.KindRelationship {
		r.edges = []edge{{id: o.ID(), typ: o.Type().Label, src: o.SourceID(), tgt: o.TargetID(), deleted: true}}
	}
	gone := append([]archixml.Object(nil), e.m.RelationshipsOf(o.ID())...)
	cut := newCascade(e.m, o) // named while it is there
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
	if o.Kind() == archixml.KindView {
		cut.unviewedOf(r)
	}
	cut.takes(del, r)
	if n := len(del.Relationships); n > 0 {
		r.Description += words(", with %d relationship(s)", n)
	}
	own := cut.ownAppearances(del)
	if own > 0 {
		r.Description += words(", %d appearance(s) on views", own)
	}
	if n := len(del.DiagramObjects) - own; n > 0 {
		r.Description += words(", %d other object(s) drawn inside them", n)
	}
	if n := len(del.Connections); n > 0 {
		r.Description += words(", %d connection(s)", n)
	}
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
	r.Description = words("Give %s the specialization %q", label(o), name)
	if name == "" {
		r.Description = words("Take the specialization of %s away", label(o))
	}
	r.change(cur, name)
	r.touched = []string{o.ID()}
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
		r.Description += words(" (a new specialization of %s, %s)", o.Type().Label, pid)
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
	r.Description = words("Change %s to %s", label(o), article(t.Label))
	r.change(o.Type().Label, t.Label)
	r.touched = []string{o.ID()}
	if !allowedType(e.opts.Policy.AllowedElementTypes, t) {
		e.errorf(i, "type", PolicyTypeNotAllowed, str(a.Type), "the workspace does not allow %s elements", t.Label)
		return
	}
	if o.Class() == t.Class {
		e.errorf(i, "type", NoOp, t.Label, "%s is already %s", label(o), article(t.Label))
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
			e.errorf(i, "type", RelNotAllowed, rel.ID(), "as %s it could not keep %s (%s from %s to %s)", article(t.Label), label(rel), rel.Type().Label, sc, tc)
			return
		}
	}
	if len(o.ProfileIDs()) > 0 {
		r.Description += ", dropping its specialization"
	}
	if o.TopFolderType() != t.Folder {
		// the element leaves its folder for the top of its new layer's (archixml.ChangeType)
		r.Description += words(", moving it from folder %s to folder %s", o.FolderPath(), e.m.TopFolderName(t.Folder))
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
	r.Description = words("Merge %s into %s", label(d), label(s))
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
	carried := d.Documentation() != "" && s.Documentation() == "" // archixml.Merge keeps it
	mg, err := e.m.Merge(s.ID(), d.ID())
	if !e.edit(i, "merged_id", err) {
		return
	}
	e.deleted[d.ID()] = i
	r.Deleted = &archixml.Deleted{}
	r.Description += words(": %d relationship(s), %d appearance(s) on views and %d propert(ies) move to it",
		len(mg.Relationships), len(mg.DiagramObjects), len(mg.Properties))
	if len(mg.Properties) > 0 {
		r.Description += words(" (properties %s)", strings.Join(quotedAll(mg.Properties), ", "))
	}
	if carried {
		r.Description += "; its documentation goes to the survivor, which has none"
		r.After = "documentation: " + d.Documentation()
	}
	r.changed = append(append(r.changed, mg.Relationships...), mg.DiagramObjects...)
	for _, id := range mg.Relationships {
		if rel, ok := e.m.Object(id); ok && rel.Type() != nil {
			r.edges = append(r.edges, edge{id: id, typ: rel.Type().Label, src: rel.SourceID(), tgt: rel.TargetID()})
		}
	}
}

func quotedAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

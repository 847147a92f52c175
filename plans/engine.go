package plans

import (
	"errors"
	"fmt"
	"strings"

	"github.com/archiplan/archiplan/archixml"
)

// Policy limits what plans in a workspace may do. The zero Policy allows everything.
type Policy struct {
	AllowedOps               []string // op names; empty allows all
	AllowedElementTypes      []string // Archi class names or labels; empty allows all
	AllowedRelationshipTypes []string // Archi class names or labels; empty allows all
	ProtectedFolders         []string // folder paths ("Business/Core"): nothing in them may change
}

// Options are what a check or an apply needs besides the plan and the model.
type Options struct {
	Strict bool     // extraction: accept only a bare JSON object
	Policy Policy   //
	Scope  []string // ids the plan may touch (from NAME.context.json); nil: the whole model
	// Seed makes created ids deterministic: the same seed, plan and model give the same ids.
	// Check and Apply default it to the plan's SHA-256.
	Seed string
}

// ActionResult says what one action does (or did): in words, with names resolved, before and
// after values, the ids it creates and what a delete takes with it.
type ActionResult struct {
	Index       int               `json:"index"`
	Op          string            `json:"op"`
	Description string            `json:"description"`
	Before      string            `json:"before,omitempty"`
	After       string            `json:"after,omitempty"`
	Created     []string          `json:"created,omitempty"`
	Deleted     *archixml.Deleted `json:"deleted,omitempty"`
	Failed      bool              `json:"-"`
	// for the diagram: the concepts the action touches, and relationships it adds or removes
	touched []string
	edges   []edge
}

type edge struct {
	id, typ, src, tgt string
	deleted           bool
}

// engine runs a plan's actions on a model, checking each before the edit: it is both the
// validator (run, then undo) and the applier (run, keep), so a preview says exactly what an
// apply does.
type engine struct {
	m        *archixml.Model
	p        *Plan
	opts     Options
	findings []Finding
	results  []ActionResult

	refs       map[string]string // ref_id -> created id ("" when its action failed)
	declaredAt map[string]int    // ref_id -> index of the action that declares it
	deleted    map[string]int    // id -> index of the action that deleted it
	scope      map[string]bool
	created    map[string]bool // ids this plan creates
	set        map[string]int  // "what|id[|key]" -> index of the action that set it
	setValue   map[string]string
	names      map[string]string // id -> "name<br/>type" of what the diagram shows, as the plan left it
}

func newEngine(m *archixml.Model, p *Plan, opts Options) *engine {
	e := &engine{m: m, p: p, opts: opts, refs: map[string]string{}, declaredAt: map[string]int{},
		deleted: map[string]int{}, created: map[string]bool{}, set: map[string]int{}, setValue: map[string]string{},
		names: map[string]string{}}
	if opts.Scope != nil {
		e.scope = map[string]bool{}
		for _, id := range opts.Scope {
			e.scope[id] = true
		}
	}
	for i, a := range p.Actions {
		if a.RefID != nil {
			if _, dup := e.declaredAt[*a.RefID]; !dup {
				e.declaredAt[*a.RefID] = i
			}
		}
	}
	return e
}

func (e *engine) add(f Finding) { e.findings = append(e.findings, f) }

func (e *engine) errorf(i int, field string, c Code, snippet, format string, args ...any) {
	e.add(newFinding(c, i, actionPointer(i, field), snippet, format, args...))
}

// run checks and performs every action in order. A failing action is reported and skipped; what
// it would have created is marked failed, so later uses say why.
func (e *engine) run() {
	e.m.SetIDSeed(e.opts.Seed)
	for _, w := range e.p.Warnings {
		e.add(newFinding(PlannerWarning, -1, "/warnings", w, "the planner warns: %s", w))
	}
	if dups := e.m.DuplicateIDs(); len(dups) > 0 {
		e.add(newFinding(ModelProblem, -1, "", strings.Join(dups, " "), "the model uses %d ids more than once; Archi would refuse to save it", len(dups)))
	}
	switch e.p.Status {
	case StatusReady:
		if len(e.p.Actions) == 0 {
			e.add(newFinding(NoActions, -1, "/actions", "", "the plan is ready but has no actions"))
		}
	case StatusNeedsClarification:
		if len(e.p.Questions) == 0 {
			e.add(newFinding(QuestionsMissing, -1, "/questions", "", "the plan needs clarification but asks no question"))
		}
		fallthrough
	default:
		if len(e.p.Actions) > 0 {
			e.add(newFinding(ActionsIgnored, -1, "/actions", "", "the plan is %s: its %d actions are shown, never applied", e.p.Status, len(e.p.Actions)))
		}
	}
	for i, a := range e.p.Actions {
		n := len(e.findings)
		r := ActionResult{Index: i, Op: a.Op}
		e.action(i, a, &r)
		for _, f := range e.findings[n:] {
			if f.Severity == Error {
				r.Failed = true
			}
		}
		if r.Failed && a.RefID != nil && e.declaredAt[*a.RefID] == i {
			if _, ok := e.refs[*a.RefID]; !ok {
				e.refs[*a.RefID] = ""
			}
		}
		if r.Description == "" {
			r.Description = a.Op + " (not possible, see errors)"
		}
		ids := append([]string(nil), r.touched...)
		for _, ed := range r.edges {
			ids = append(ids, ed.src, ed.tgt)
		}
		for _, id := range ids {
			if o, ok := e.m.Object(id); ok {
				e.remember(o) // as the action left it; deleted objects keep the name resolve saw
			}
		}
		e.results = append(e.results, r)
	}
}

// policyOp checks the op against the workspace's policy.
func (e *engine) policyOp(i int, op string) bool {
	if len(e.opts.Policy.AllowedOps) == 0 {
		return true
	}
	for _, o := range e.opts.Policy.AllowedOps {
		if o == op {
			return true
		}
	}
	e.errorf(i, "op", PolicyOpNotAllowed, op, "the workspace does not allow %s (allowed: %s)", op, strings.Join(e.opts.Policy.AllowedOps, ", "))
	return false
}

func allowedType(list []string, t *archixml.ConceptType) bool {
	if len(list) == 0 {
		return true
	}
	for _, a := range list {
		if lt := archixml.LookupType(a); lt != nil && lt.Class == t.Class {
			return true
		}
	}
	return false
}

// resolve turns an id field into an object: a ref_id declared earlier, or an id in the model of
// one of the kinds wanted. Every way it can fail has its own code.
func (e *engine) resolve(i int, field, value string, kinds ...archixml.Kind) (archixml.Object, bool) {
	id := value
	if created, isRef := e.refs[value]; isRef {
		if created == "" {
			e.errorf(i, field, RefFailed, value, "%s %q names what action %d would have created, but that action fails", field, value, e.declaredAt[value])
			return archixml.Object{}, false
		}
		id = created
	} else if at, later := e.declaredAt[value]; later && at >= i {
		e.errorf(i, field, RefBeforeDeclared, value, "%s %q is a ref_id declared by action %d, after this one", field, value, at)
		return archixml.Object{}, false
	}
	if by, gone := e.deleted[id]; gone {
		e.errorf(i, field, RefDeleted, value, "%s %q names an object action %d deletes", field, value, by)
		return archixml.Object{}, false
	}
	o, ok := e.m.Object(id)
	if !ok {
		e.errorf(i, field, RefNotFound, value, "%s %q is not an id in the model nor a ref_id declared earlier", field, value)
		return archixml.Object{}, false
	}
	kindOK := false
	var names []string
	for _, k := range kinds {
		names = append(names, k.String())
		if o.Kind() == k {
			kindOK = true
		}
	}
	if !kindOK {
		e.errorf(i, field, RefWrongKind, value, "%s %q is a %s (%s %q), not a %s", field, value, o.Kind(), o.Class(), o.Name(), strings.Join(names, " or "))
		return archixml.Object{}, false
	}
	e.remember(o)
	if e.scope != nil && !e.created[id] && !e.scope[id] {
		e.errorf(i, field, PolicyOutOfScope, value, "%s %q (%s) is outside the plan's context", field, value, o.Name())
		return archixml.Object{}, false
	}
	return o, true
}

// remember keeps the name and type of an object for the preview's diagram.
func (e *engine) remember(o archixml.Object) {
	t := o.Class()
	if ty := o.Type(); ty != nil {
		t = ty.Label
	}
	e.names[o.ID()] = o.Name() + "\x00" + t
}

// protected reports (and refuses) changes to objects in protected folders.
func (e *engine) protected(i int, field string, o archixml.Object) bool {
	path := o.FolderPath()
	for _, p := range e.opts.Policy.ProtectedFolders {
		p = strings.Trim(p, "/")
		if path == p || strings.HasPrefix(path, p+"/") {
			e.errorf(i, field, PolicyProtected, o.ID(), "%q lies in the protected folder %s", o.Name(), p)
			return true
		}
	}
	return false
}

// once records that an action sets something, and reports a second, different setting as a
// conflict and a repeat of the same as a no-op. It returns false when the action must not run.
func (e *engine) once(i int, field, key, value, what string) bool {
	if j, seen := e.set[key]; seen {
		if e.setValue[key] != value {
			e.errorf(i, field, Conflict, value, "action %d already sets %s differently", j, what)
			return false
		}
		e.errorf(i, field, NoOp, value, "action %d already sets %s the same way", j, what)
		return false
	}
	e.set[key] = i
	e.setValue[key] = value
	return true
}

// declare records the object an action creates under its ref_id.
func (e *engine) declare(i int, a Action, id string) {
	e.created[id] = true
	if a.RefID != nil {
		e.refs[*a.RefID] = id
	}
}

// checkRefID refuses a ref_id declared twice or equal to a model id.
func (e *engine) checkRefID(i int, a Action) bool {
	if a.RefID == nil {
		return true
	}
	if at := e.declaredAt[*a.RefID]; at != i {
		e.errorf(i, "ref_id", RefIDDuplicate, *a.RefID, "ref_id %q is already declared by action %d", *a.RefID, at)
		return false
	}
	if _, inModel := e.m.Object(*a.RefID); inModel {
		e.errorf(i, "ref_id", RefIDDuplicate, *a.RefID, "ref_id %q is an id in the model; choose another", *a.RefID)
		return false
	}
	return true
}

// edit maps an edit primitive's error to a finding.
func (e *engine) edit(i int, field string, err error) bool {
	if err == nil {
		return true
	}
	code := RefNotFound
	switch {
	case errors.Is(err, archixml.ErrInvalidText):
		code = TextInvalid
	case errors.Is(err, archixml.ErrNotAllowed):
		code = RelNotAllowed
	case errors.Is(err, archixml.ErrWrongFolder):
		code = FolderWrongLayer
	case errors.Is(err, archixml.ErrWrongKind):
		code = RefWrongKind
	case errors.Is(err, archixml.ErrUnknownType):
		code = SchemaBadValue
	}
	e.errorf(i, field, code, "", "%v", err)
	return false
}

var concepts = []archixml.Kind{archixml.KindElement, archixml.KindRelationship, archixml.KindView}

func label(o archixml.Object) string {
	t := o.Class()
	if ty := o.Type(); ty != nil {
		t = ty.Label
	} else if o.Kind() == archixml.KindView {
		t = "View"
	}
	name := o.Name()
	if name == "" {
		name = "(unnamed)"
	}
	return fmt.Sprintf("%s %q (%s)", t, name, o.ID())
}

func (e *engine) action(i int, a Action, r *ActionResult) {
	if !e.policyOp(i, a.Op) {
		return
	}
	switch a.Op {
	case "rename_element":
		o, ok := e.resolve(i, "element_id", str(a.ElementID), concepts...)
		if !ok || e.protected(i, "element_id", o) {
			return
		}
		r.Description = fmt.Sprintf("Rename %s to %q", label(o), str(a.NewName))
		r.Before, r.After, r.touched = o.Name(), str(a.NewName), []string{o.ID()}
		if o.Name() == str(a.NewName) {
			e.errorf(i, "new_name", NoOp, str(a.NewName), "%s already has this name", label(o))
			return
		}
		if e.once(i, "new_name", "name|"+o.ID(), str(a.NewName), "the name of "+label(o)) {
			e.edit(i, "new_name", e.m.Rename(o.ID(), str(a.NewName)))
		}
	case "set_property":
		o, ok := e.resolve(i, "element_id", str(a.ElementID), concepts...)
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
		if had && old == val {
			e.errorf(i, "value", NoOp, val, "property %q of %s already has this value", key, label(o))
			return
		}
		if e.once(i, "value", "property|"+o.ID()+"|"+key, val, fmt.Sprintf("property %q of %s", key, label(o))) {
			e.edit(i, "value", e.m.SetProperty(o.ID(), key, val))
		}
	case "remove_property":
		o, ok := e.resolve(i, "element_id", str(a.ElementID), concepts...)
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
	case "set_documentation":
		o, ok := e.resolve(i, "element_id", str(a.ElementID), concepts...)
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
	case "create_element":
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
		if !e.checkRefID(i, a) {
			return
		}
		id, err := e.m.CreateElement(t.Class, str(a.Name), "")
		if e.edit(i, "name", err) {
			e.declare(i, a, id)
			r.Created, r.touched = []string{id}, []string{id}
			r.Description = fmt.Sprintf("Create %s %q (%s) in %s", t.Label, str(a.Name), id, t.Layer)
		}
	case "create_relationship":
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
				"ArchiMate 3.2 does not allow %s from %s to %s; allowed: %s", t.Label, src.Class(), tgt.Class(), strings.Join(labels, ", "))
			return
		}
		if err := e.m.CheckJunction(t.Class, src.ID(), tgt.ID()); err != nil {
			e.errorf(i, "relationship_type", RelNotAllowed, t.Label, "%s", strings.TrimSuffix(err.Error(), ": "+archixml.ErrNotAllowed.Error()))
			return
		}
		for _, rel := range e.m.RelationshipsOf(src.ID()) {
			if rel.Class() == t.Class && rel.SourceID() == src.ID() && rel.TargetID() == tgt.ID() {
				e.errorf(i, "relationship_type", DuplicateRel, rel.ID(), "%s already has %s %s to %s", label(src), t.Label, rel.ID(), label(tgt))
				break
			}
		}
		if !e.checkRefID(i, a) {
			return
		}
		id, err := e.m.CreateRelationship(t.Class, src.ID(), tgt.ID(), str(a.Name))
		if e.edit(i, "relationship_type", err) {
			e.declare(i, a, id)
			r.Created = []string{id}
			r.edges = []edge{{id: id, typ: t.Label, src: src.ID(), tgt: tgt.ID()}}
		}
	case "create_view":
		r.Description = fmt.Sprintf("Create view %q", str(a.Name))
		if !e.checkRefID(i, a) {
			return
		}
		id, err := e.m.CreateView(str(a.Name), "", "")
		if e.edit(i, "name", err) {
			e.declare(i, a, id)
			r.Created = []string{id}
			r.Description = fmt.Sprintf("Create view %q (%s)", str(a.Name), id)
		}
	case "add_to_view":
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
		var b *archixml.Bounds
		if a.X != nil || a.Y != nil {
			bb := archixml.Bounds{X: intOr(a.X, 0), Y: intOr(a.Y, 0), Width: intOr(a.Width, 120), Height: intOr(a.Height, 55)}
			b = &bb
			r.After = fmt.Sprintf("at %d,%d size %dx%d", bb.X, bb.Y, bb.Width, bb.Height)
		} else {
			r.After = "on the first free grid cell"
		}
		obj, conns, err := e.m.AddToView(v.ID(), el.ID(), b)
		if e.edit(i, "element_id", err) {
			e.created[obj] = true
			r.Created = append([]string{obj}, conns...)
			if len(conns) > 0 {
				r.Description += fmt.Sprintf(", with %d connection(s) to what the view shows", len(conns))
			}
		}
	case "delete_element", "delete_relationship":
		field, kind := "element_id", archixml.KindElement
		value := str(a.ElementID)
		if a.Op == "delete_relationship" {
			field, kind, value = "relationship_id", archixml.KindRelationship, str(a.RelationshipID)
		}
		o, ok := e.resolve(i, field, value, kind)
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
		if kind == archixml.KindElement {
			del, err = e.m.DeleteElement(o.ID())
		} else {
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
	case "move_to_folder":
		o, ok := e.resolve(i, "element_id", str(a.ElementID), concepts...)
		if !ok || e.protected(i, "element_id", o) {
			return
		}
		path := strings.Trim(str(a.FolderPath), "/")
		r.Description = fmt.Sprintf("Move %s to folder %s", label(o), path)
		r.Before, r.After, r.touched = o.FolderPath(), path, []string{o.ID()}
		ft := archixml.FolderFor(o.Class())
		top, _ := e.m.TopFolder(ft)
		first, _, _ := strings.Cut(path, "/")
		if first != top.Name() && first != ft {
			e.errorf(i, "folder_path", FolderWrongLayer, path, "%s belongs under the %q folder; %q is not", label(o), top.Name(), path)
			return
		}
		for _, p := range e.opts.Policy.ProtectedFolders {
			p = strings.Trim(p, "/")
			if path == p || strings.HasPrefix(path, p+"/") {
				e.errorf(i, "folder_path", PolicyProtected, path, "%s is a protected folder", p)
				return
			}
		}
		if o.FolderPath() == path || strings.Replace(o.FolderPath(), top.Name(), ft, 1) == path {
			e.errorf(i, "folder_path", NoOp, path, "%s is already in %s", label(o), path)
			return
		}
		if e.once(i, "folder_path", "folder|"+o.ID(), path, "the folder of "+label(o)) {
			_, err := e.m.MoveToFolder(o.ID(), path)
			e.edit(i, "folder_path", err)
		}
	default:
		e.errorf(i, "op", SchemaUnknownOp, a.Op, "unknown op %q", a.Op)
	}
}

func intOr(p *int, d int) int {
	if p == nil {
		return d
	}
	return *p
}

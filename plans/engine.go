package plans

import (
	"errors"
	"fmt"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/schemas"
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
	// Rules are the workspace's rules as code, judging what a valid plan changes (nil: none)
	Rules Rules
}

// ActionResult says what one action does (or did): in words, with names resolved, before and
// after values, the ids it creates and what a delete takes with it.
type ActionResult struct {
	Index       int               `json:"index"`
	Op          schemas.OpName    `json:"op"`
	Description string            `json:"description"`
	Before      string            `json:"before,omitempty"`
	After       string            `json:"after,omitempty"`
	Created     []string          `json:"created,omitempty"`
	Deleted     *archixml.Deleted `json:"deleted,omitempty"`
	// Given are the values the action gives that reach the model and Description does not say
	Given []Given `json:"given,omitempty"`
	// Takes names what a delete or a removal from a view takes along: each relationship by type
	// and ends, each diagram object and connection by what it shows and where
	Takes  []string `json:"takes,omitempty"`
	Failed bool     `json:"-"`
	// hasBefore says the action has a before side, even an empty one (a rename of an element
	// with no name): Before == "" alone cannot tell "was empty" from "no before"
	hasBefore bool
	// lists are the two sides' values when the action changes a multi-valued property, each
	// value shown on its own (Before and After hold them as one line for programs)
	lists *[2][]string
	// unviewed are the concepts whose appearances on views the action removed (and that it did
	// not delete): those the plan leaves on no view are warned about
	unviewed []string
	// for the diagram: the concepts the action touches, and relationships it adds or removes
	touched []string
	edges   []edge
	changed []string // diagram components and folders the action changes (for revert's conflict check)
	reused  bool     // on_duplicate reuse: nothing is created, nothing it gives reaches the model
	steps   [][2]int // the ranges of the journal its edits recorded (the table test holds them to its op's Effect)
	objects string   // every object those edits create, change or delete (objectsOf): bound by an approval
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

	newRels     []newRel        // relationships the plan creates, to draw on the views it touches
	views       []string        // views the plan creates or puts objects on, in order
	viewSeen    map[string]bool //
	unconnected map[string]bool // "view|relationship" a remove_from_view took off: not drawn again
	// unconnectedViews are views an add_to_view with connect false put objects on: the plan draws
	// their connections itself, none is drawn after the last action
	unconnectedViews map[string]bool
	// delta is what the workspace's rules will judge (nil: no rules, or a plan they do not judge)
	delta *pending
}

type newRel struct {
	id     string
	action int
}

// touchView records a view the plan draws on.
func (e *engine) touchView(id string) {
	if !e.viewSeen[id] {
		e.viewSeen[id] = true
		e.views = append(e.views, id)
	}
}

// drawConnections draws, after the last action, every relationship the plan created on every view
// the plan touched where diagram objects show both its ends and no connection of it joins them yet
// (as jArchi does, and its planner prompt promises). The connections are listed with the action
// that created the relationship.
func (e *engine) drawConnections() {
	for _, nr := range e.newRels {
		if _, gone := e.deleted[nr.id]; gone {
			continue
		}
		if _, ok := e.m.Object(nr.id); !ok {
			continue
		}
		r := &e.results[nr.action]
		for _, v := range e.views {
			if _, gone := e.deleted[v]; gone || e.unconnected[v+"|"+nr.id] || e.unconnectedViews[v] {
				continue
			}
			vo, ok := e.m.Object(v)
			if !ok {
				continue
			}
			start := e.m.Steps()
			conns, err := e.m.ConnectOnView(v, nr.id)
			r.steps = append(r.steps, [2]int{start, e.m.Steps()})
			if err != nil || len(conns) == 0 {
				continue
			}
			for _, c := range conns {
				e.created[c] = true
			}
			r.Created = append(r.Created, conns...)
			r.Description += words("; drawn on view %q (%s) with %d connection(s)", vo.Name(), v, len(conns))
		}
	}
}

func newEngine(m *archixml.Model, p *Plan, opts Options) *engine {
	e := &engine{m: m, p: p, opts: opts, refs: map[string]string{}, declaredAt: map[string]int{},
		deleted: map[string]int{}, created: map[string]bool{}, set: map[string]int{}, setValue: map[string]string{},
		names: map[string]string{}, viewSeen: map[string]bool{}, unconnected: map[string]bool{}, unconnectedViews: map[string]bool{}}
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
	if strings.TrimSpace(e.p.Summary) == "" {
		e.add(newFinding(TextBlank, -1, "/summary", e.p.Summary, "summary is empty or only spaces"))
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
		start := e.m.Steps()
		e.action(i, a, &r)
		r.steps = append(r.steps, [2]int{start, e.m.Steps()})
		if i < len(e.p.acts) && !r.reused {
			r.Given = given(a.Op, e.p.acts[i])
		}
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
			r.Description = string(a.Op) + " (not possible, see errors)"
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
	e.drawConnections()
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

// AllowedType says whether a policy's list of types (empty: every type) allows t.
func AllowedType(list []string, t *archixml.ConceptType) bool { return allowedType(list, t) }

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
		e.errorf(i, field, RefNotFound, value, "%s %q is not an id in the model nor a ref_id declared earlier%s", field, value, e.named(value))
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
		e.errorf(i, field, RefWrongKind, value, "%s %q is %s (%s %q), not %s", field, value, article(o.Kind().String()), archixml.TypeWords(o.Class()), o.Name(),
			article(strings.Join(names, " or ")))
		return archixml.Object{}, false
	}
	e.remember(o)
	if e.scope != nil && !e.created[id] && !e.scope[id] {
		e.errorf(i, field, PolicyOutOfScope, value, "%s %q (%s) is outside the plan's context", field, value, o.Name())
		return archixml.Object{}, false
	}
	return o, true
}

// remember keeps the name and type of an object for the preview's diagram: the type in words, as
// a person reads it (never a class name such as ArchimateDiagramModel).
func (e *engine) remember(o archixml.Object) {
	t := archixml.TypeWords(o.Class())
	if ty := o.Type(); ty != nil {
		t = ty.Label
	}
	e.names[o.ID()] = o.Name() + "\x00" + t
}

// protected reports (and refuses) changes to objects in protected folders.
func (e *engine) protected(i int, field string, o archixml.Object) bool {
	if p, ok := protectedFolder(e.opts.Policy.ProtectedFolders, o.FolderPath()); ok {
		e.errorf(i, field, PolicyProtected, o.ID(), "%q lies in the protected folder %s", o.Name(), p)
		return true
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
	t := archixml.TypeWords(o.Class())
	if ty := o.Type(); ty != nil {
		t = ty.Label
	} else if o.Kind() == archixml.KindView {
		t = "View"
	}
	name := o.Name()
	if name == "" {
		name = "(unnamed)"
	}
	return words("%s %q (%s)", t, name, o.ID())
}

func (e *engine) action(i int, a Action, r *ActionResult) {
	if !e.policyOp(i, string(a.Op)) {
		return
	}
	h, ok := handlers[a.Op]
	if !ok {
		e.errorf(i, "op", SchemaUnknownOp, string(a.Op), "unknown op %q", a.Op)
		return
	}
	h(e, i, a, r)
}

func intOr(p *int, d int) int {
	if p == nil {
		return d
	}
	return *p
}

// article puts "a" or "an" before a word.
func article(w string) string { return archixml.Article(w) }

// aType names a class with its article: "an Access relationship", "a sketch view".
func aType(class string) string { return archixml.Article(archixml.TypeWords(class)) }

// named suggests the ids of what a value names, when a planner wrote a name where an id belongs.
func (e *engine) named(value string) string {
	var found []string
	for _, k := range []archixml.Kind{archixml.KindElement, archixml.KindView, archixml.KindRelationship, archixml.KindFolder} {
		for _, o := range e.m.All(k) {
			if o.Name() == value && len(found) < 3 {
				label := o.Class()
				if t := o.Type(); t != nil {
					label = t.Label
				}
				found = append(found, fmt.Sprintf("%s (%s %q)", o.ID(), label, o.Name()))
			}
		}
	}
	if len(found) == 0 {
		return ""
	}
	return "; it is a name: did you mean " + strings.Join(found, " or ") + "?"
}

package plans

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/archiplan/archiplan/archixml"
)

// Rules judge what a plan changes: the workspace's rules as code (package policy). Options.Rules
// holds them; nil judges nothing.
type Rules interface {
	// Judge evaluates the rules on a delta. An error means the rules could not be evaluated (a
	// broken policy, a rule that errs, the time limit): the plan is refused, never passed.
	Judge(ctx context.Context, d *Delta) (*Judgement, error)
	// Hash changes whenever a rule or owner changes: a preview made under other rules is made again.
	Hash() string
}

// Delta is the document the rules judge (`input` in Rego): what a plan changes, one entry per
// element, relationship, view or folder it creates, changes or deletes, and the plan itself. Its
// shape is part of the contract (docs/policy.md).
type Delta struct {
	Changes []DeltaChange `json:"changes"`
	Plan    DeltaPlan     `json:"plan"`
	// Model is the model as it was before the plan: the rules read it beyond what the plan
	// changes through functions (policy: archiplan.object, archiplan.relationships), never as a
	// document, so that their cost follows what they ask, not the model's size. Nil: none.
	Model *archixml.Model `json:"-"`
}

// Kinds of a DeltaChange.
const (
	DeltaCreated = "created"
	DeltaChanged = "changed"
	DeltaDeleted = "deleted"
)

// DeltaChange is one object the plan creates, changes or deletes: as the plan leaves it (as it
// was, for a delete), and before the plan for a change.
type DeltaChange struct {
	Kind   string       `json:"kind"`
	Object DeltaObject  `json:"object"`
	Before *DeltaObject `json:"before,omitempty"`
	// Action is the index of the first action that makes the change (-1: none, a whole-model check)
	Action int `json:"action"`
}

// DeltaObject is an object as the rules see it.
type DeltaObject struct {
	ID            string          `json:"id"`
	Kind          string          `json:"kind"` // element, relationship, view, folder
	Type          string          `json:"type"` // Archi's class name: ApplicationComponent, FlowRelationship, ArchimateDiagramModel, Folder
	Name          string          `json:"name"`
	Layer         string          `json:"layer,omitempty"` // Business, Application, ... for elements and relationships' ends
	Folder        string          `json:"folder"`          // the folder path it lies in
	Documentation string          `json:"documentation,omitempty"`
	Properties    []DeltaProperty `json:"properties"`
	Source        *DeltaEnd       `json:"source,omitempty"` // relationships
	Target        *DeltaEnd       `json:"target,omitempty"`
}

// DeltaProperty is one property.
type DeltaProperty struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// DeltaEnd is a relationship's end.
type DeltaEnd struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	Name  string `json:"name"`
	Layer string `json:"layer,omitempty"`
}

// DeltaPlan is the plan as the rules see it.
type DeltaPlan struct {
	Summary string        `json:"summary"`
	Status  string        `json:"status"`
	Actions []DeltaAction `json:"actions"`
}

// DeltaAction is one action, in words.
type DeltaAction struct {
	Index       int    `json:"index"`
	Op          string `json:"op"`
	Description string `json:"description"`
}

// Judgement is what the rules say of a delta.
type Judgement struct {
	Findings  []RuleFinding
	Approvals []Approval
}

// RuleFinding is one finding of a rule: its id, a message, how to fix it, and the object it is
// about (when the rule names one).
type RuleFinding struct {
	Severity Severity `json:"-"`
	Rule     string   `json:"rule"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix,omitempty"`
	Object   string   `json:"object,omitempty"`
}

// Approval is a requirement on who approves a plan: Count distinct approvals from the people
// in From (anyone when From is empty), because of Rule (an owners entry or a Rego rule).
type Approval struct {
	Rule    string   `json:"rule"`
	Count   int      `json:"count"`
	From    []string `json:"from,omitempty"`
	Message string   `json:"message,omitempty"`
}

// Rule codes: a rule's finding, and rules that cannot be evaluated.
const (
	PolicyDeny  Code = "POLICY_DENY"
	PolicyWarn  Code = "POLICY_WARN"
	PolicyError Code = "POLICY_ERROR"
)

func init() {
	Codes = append(Codes, []struct {
		Code     Code
		Severity Severity
		Meaning  string
	}{
		{PolicyDeny, Error, "a rule of the workspace's policy (policy/*.rego, `deny`) refuses what the plan changes; the message starts with the rule's id and ends with its fix"},
		{PolicyWarn, Warning, "a rule of the workspace's policy (policy/*.rego, `warn`) warns about what the plan changes; the message starts with the rule's id"},
		{PolicyError, Error, "the workspace's policy cannot be evaluated (it does not compile, a rule errs, or it takes longer than its time limit): every plan is refused until it is repaired"},
	}...)
}

// Snapshot is an object of m as the rules see it, or false when it is not an element,
// relationship, view or folder of m.
func Snapshot(m *archixml.Model, id string) (DeltaObject, bool) {
	o, ok := m.Object(id)
	if !ok {
		return DeltaObject{}, false
	}
	switch o.Kind() {
	case archixml.KindElement, archixml.KindRelationship, archixml.KindView, archixml.KindFolder:
	default:
		return DeltaObject{}, false
	}
	d := DeltaObject{ID: id, Kind: o.Kind().String(), Type: o.Class(), Name: o.Name(), Folder: o.FolderPath(),
		Documentation: o.Documentation(), Properties: []DeltaProperty{}}
	if o.Kind() == archixml.KindFolder {
		d.Type = "Folder"
	}
	if t := o.Type(); t != nil && o.Kind() == archixml.KindElement {
		d.Layer = t.Layer
	}
	for _, p := range o.Properties() {
		d.Properties = append(d.Properties, DeltaProperty{Key: p.Key, Value: p.Value})
	}
	if o.Kind() == archixml.KindRelationship {
		d.Source, d.Target = end(m, o.SourceID()), end(m, o.TargetID())
	}
	return d, true
}

func end(m *archixml.Model, id string) *DeltaEnd {
	e := &DeltaEnd{ID: id}
	if o, ok := m.Object(id); ok {
		e.Type, e.Name = o.Class(), o.Name()
		if t := o.Type(); t != nil && o.Kind() == archixml.KindElement {
			e.Layer = t.Layer
		}
	}
	return e
}

// pending is what the rules will judge: the objects the plan's steps name or remove, in the
// order first touched, with the first action that touches each, and each as the plan leaves it.
type pending struct {
	ids   []string
	first map[string]int
	after map[string]DeltaObject
}

// collect notes, while the model is as the plan leaves it, every object the journal of its edits
// names or removes (the diff's candidates), as it is now. The model keeps recording.
func (e *engine) collect() {
	m := e.m
	steps := m.Recorded()
	defer m.Resume(steps)
	p := &pending{first: map[string]int{}, after: map[string]DeltaObject{}}
	note := func(id string, action int) {
		if _, ok := p.first[id]; !ok && id != "" {
			p.first[id] = action
			p.ids = append(p.ids, id)
		}
	}
	for _, r := range e.results {
		for _, span := range r.steps {
			for _, s := range steps[min(span[0], len(steps)):min(span[1], len(steps))] {
				note(s.ID, r.Index)
				if s.Op == "remove" {
					for _, id := range xmlIDs(s.XML) {
						note(id, r.Index)
					}
				}
			}
		}
		for _, id := range r.Created {
			note(id, r.Index)
		}
	}
	for _, id := range p.ids {
		if o, ok := Snapshot(m, id); ok {
			p.after[id] = o
		}
	}
	e.delta = p
}

// changes is the delta, from what collect noted and the model as it was before the plan.
func (e *engine) changes() *Delta {
	p := e.delta
	d := &Delta{Changes: []DeltaChange{}, Plan: e.deltaPlan(), Model: e.m}
	for _, id := range p.ids {
		a, isAfter := p.after[id]
		b, isBefore := Snapshot(e.m, id)
		d.add(a, isAfter, b, isBefore, p.first[id])
	}
	return d
}

// add adds the change of one object, as it is after (isAfter: it is there) and before.
func (d *Delta) add(a DeltaObject, isAfter bool, b DeltaObject, isBefore bool, action int) {
	switch {
	case isAfter && !isBefore:
		d.Changes = append(d.Changes, DeltaChange{Kind: DeltaCreated, Object: a, Action: action})
	case !isAfter && isBefore:
		d.Changes = append(d.Changes, DeltaChange{Kind: DeltaDeleted, Object: b, Action: action})
	case isAfter && isBefore && !reflect.DeepEqual(a, b):
		bb := b
		d.Changes = append(d.Changes, DeltaChange{Kind: DeltaChanged, Object: a, Before: &bb, Action: action})
	}
}

// RevertDelta is what undoing an applied plan's inverse changes, as the rules judge it: every
// object the inverse touched or whose node it puts back or removes (an element's relationships
// deleted with it too), as it is in before (the model at HEAD) and in after (the model the revert
// makes). A revert is held to the rules as an apply of the same changes would be.
func RevertDelta(before, after *archixml.Model, inv *Inverse, summary string) *Delta {
	d := &Delta{Changes: []DeltaChange{}, Model: before,
		Plan: DeltaPlan{Summary: summary, Status: StatusReady, Actions: []DeltaAction{}}}
	seen := map[string]bool{}
	note := func(id string) {
		if id == "" || seen[id] {
			return
		}
		seen[id] = true
		a, isAfter := Snapshot(after, id)
		b, isBefore := Snapshot(before, id)
		d.add(a, isAfter, b, isBefore, -1)
	}
	for _, id := range inv.Touched {
		note(id)
	}
	for _, s := range inv.Steps {
		note(s.ID)
		for _, id := range xmlIDs(s.XML) {
			note(id)
		}
	}
	return d
}

func (e *engine) deltaPlan() DeltaPlan {
	p := DeltaPlan{Summary: e.p.Summary, Status: e.p.Status, Actions: []DeltaAction{}}
	for _, r := range e.results {
		p.Actions = append(p.Actions, DeltaAction{Index: r.Index, Op: string(r.Op), Description: r.Description})
	}
	return p
}

// xmlIDs are the ids in a removed node's XML, in order.
func xmlIDs(x string) []string {
	var out []string
	for {
		i := strings.Index(x, ` id="`)
		if i < 0 {
			return out
		}
		x = x[i+5:]
		j := strings.IndexByte(x, '"')
		if j < 0 {
			return out
		}
		out = append(out, x[:j])
		x = x[j:]
	}
}

// ModelDelta is the whole model as a delta whose every element, relationship and view is
// created: what `archiplan check --policy` judges.
func ModelDelta(m *archixml.Model) *Delta {
	d := &Delta{Changes: []DeltaChange{}, Plan: DeltaPlan{Status: StatusReady, Actions: []DeltaAction{}}, Model: m}
	for _, k := range []archixml.Kind{archixml.KindElement, archixml.KindRelationship, archixml.KindView} {
		for _, o := range m.All(k) {
			if s, ok := Snapshot(m, o.ID()); ok {
				d.Changes = append(d.Changes, DeltaChange{Kind: DeltaCreated, Object: s, Action: -1})
			}
		}
	}
	return d
}

// judge runs the rules on what the plan changes, with the model as it was before the plan, and
// settles the verdict again (JudgeDelta decides what the rules say of it).
func (e *engine) judge(o *Outcome) {
	defer o.settle()
	found, approvals, err := JudgeDelta(context.Background(), e.opts.Rules, e.changes())
	if err != nil {
		o.Findings = append(o.Findings, newFinding(PolicyError, -1, "", "", "the workspace's policy cannot be evaluated, so no plan is applied until it is repaired: %v", err))
		return
	}
	o.Approvals = approvals
	o.Findings = append(o.Findings, found...)
}

// JudgeDelta is what the rules say of a change d (a plan's, a revert's): the findings it brings
// in, as archiplan's own (POLICY_DENY, POLICY_WARN, the action that makes it where known), and
// the approvals it asks. Only findings the change introduces are kept: a finding the rules also
// give about a changed object as it was before (same rule, same object, or same message when
// the rule names no object) is the model's, not the change's. An error means the rules could not
// be evaluated: nothing is passed.
func JudgeDelta(ctx context.Context, rules Rules, d *Delta) ([]Finding, []Approval, error) {
	j, err := rules.Judge(ctx, d)
	if err != nil {
		return nil, nil, err
	}
	if len(j.Findings) == 0 {
		return nil, j.Approvals, nil
	}
	base := &Delta{Changes: []DeltaChange{}, Plan: d.Plan, Model: d.Model}
	for _, c := range d.Changes {
		if c.Kind == DeltaChanged {
			base.Changes = append(base.Changes, DeltaChange{Kind: DeltaChanged, Object: *c.Before, Before: c.Before, Action: c.Action})
		}
	}
	old := map[string]bool{}
	if len(base.Changes) > 0 {
		bj, err := rules.Judge(ctx, base)
		if err != nil {
			return nil, nil, err
		}
		for _, f := range bj.Findings {
			old[f.key()] = true
		}
	}
	actionOf := map[string]int{}
	for _, c := range d.Changes {
		actionOf[c.Object.ID] = c.Action
	}
	var found []Finding
	for _, f := range j.Findings {
		if old[f.key()] {
			continue
		}
		i := -1
		if a, ok := actionOf[f.Object]; ok && f.Object != "" {
			i = a
		}
		found = append(found, f.finding(i))
	}
	return found, j.Approvals, nil
}

func (f RuleFinding) key() string {
	if f.Object != "" {
		return f.Rule + "\x00" + f.Object
	}
	return f.Rule + "\x00\x00" + f.Message
}

// finding is a rule's finding as archiplan's own: the code says deny or warn, the message starts
// with the rule's id and ends with its fix.
func (f RuleFinding) finding(action int) Finding {
	code := PolicyDeny
	if f.Severity == Warning {
		code = PolicyWarn
	}
	msg := f.Rule + ": " + f.Message
	if f.Fix != "" {
		msg += " (fix: " + f.Fix + ")"
	}
	pointer := ""
	if action >= 0 {
		pointer = actionPointer(action, "")
	}
	out := newFinding(code, action, pointer, f.Object, "%s", msg)
	out.Rule, out.Fix = f.Rule, f.Fix
	return out
}

// CheckRules judges the whole model (ModelDelta) with the rules: `archiplan check --policy`.
func CheckRules(m *archixml.Model, rules Rules) ([]Finding, error) {
	j, err := rules.Judge(context.Background(), ModelDelta(m))
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, f := range j.Findings {
		out = append(out, f.finding(-1))
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Severity != out[b].Severity {
			return out[a].Severity == Error
		}
		if out[a].Rule != out[b].Rule {
			return out[a].Rule < out[b].Rule
		}
		return out[a].Snippet < out[b].Snippet
	})
	return out, nil
}

// JSON is the delta as the rules read it.
func (d *Delta) JSON() []byte {
	b, _ := json.Marshal(d)
	return b
}

// RulesSaid is what the workspace's rules said of a checked plan, as one value: each finding of
// a rule (POLICY_DENY, POLICY_WARN) or of rules that could not be evaluated (POLICY_ERROR), with
// its action and words, in order; "" when they said nothing. A rule may read the time or another
// builtin whose answer changes (time.now_ns, rand.intn), so the same plan on the same model can be
// judged otherwise later: an approval's apply compares this with its preview's.
func RulesSaid(o *Outcome) string {
	if o == nil {
		return ""
	}
	var lines []string
	for _, f := range o.Findings {
		if f.Code != PolicyDeny && f.Code != PolicyWarn && f.Code != PolicyError {
			continue
		}
		a := -1
		if f.Action != nil {
			a = *f.Action
		}
		lines = append(lines, fmt.Sprintf("%s\x00%d\x00%s", f.Code, a, f.Message))
	}
	if len(lines) == 0 {
		return ""
	}
	sort.Strings(lines)
	return SHA256([]byte(strings.Join(lines, "\n")))
}

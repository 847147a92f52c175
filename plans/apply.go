package plans

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/schemas"
)

// Inverse is what undoes an applied plan: the journal of its edits, and the ids it touched (what
// revert checks later commits against).
type Inverse struct {
	FormatVersion string          `json:"format_version"`
	PlanSHA256    string          `json:"plan_sha256"`
	Touched       []string        `json:"touched"`
	Steps         []archixml.Step `json:"steps"`
}

// Apply applies a plan to m, all or nothing: when the plan is not valid and ready, m is left as it
// was and the error wraps ErrRefused. On success m holds the new model, and the Outcome's results
// carry the created ids.
func Apply(raw []byte, m *archixml.Model, opts Options) (*Outcome, *Inverse, error) {
	o, eng := run(raw, m, opts)
	if eng == nil {
		sortFindings(o.Findings)
		return o, nil, fmt.Errorf("%w: %s", ErrRefused, firstMessage(o))
	}
	steps := m.Recorded()
	if eng.delta != nil {
		// the rules judge the plan against the model as it was: undone for a moment, and done again
		m.Record()
		if err := m.Undo(steps); err != nil {
			panic(fmt.Sprintf("plans: undo for the policy: %v", err))
		}
		redo := m.Recorded()
		eng.judge(o)
		if err := m.Undo(redo); err != nil {
			panic(fmt.Sprintf("plans: redo after the policy: %v", err))
		}
	}
	if o.Verdict != VerdictValid {
		if err := m.Undo(steps); err != nil {
			panic(fmt.Sprintf("plans: undo after refused apply: %v", err))
		}
		if o.Verdict == VerdictNotReady {
			f := newFinding(StatusNotReady, -1, "/status", o.Plan.Status, "the plan's status is %s; only ready plans are applied", o.Plan.Status)
			o.Findings = append(o.Findings, f)
			sortFindings(o.Findings)
			o.Verdict = VerdictNotReady
			return o, nil, fmt.Errorf("%w: %s", ErrRefused, f.Message)
		}
		return o, nil, fmt.Errorf("%w: %s", ErrRefused, firstMessage(o))
	}
	inv := &Inverse{FormatVersion: "1", PlanSHA256: o.SHA256, Steps: steps}
	seen := map[string]bool{}
	for _, r := range o.Results {
		changed := r.Created
		if op, _ := schemas.OpByName(schemas.Newest, r.Op); op.Effect.Changes {
			changed = append(append([]string(nil), r.touched...), r.Created...)
		} // else it changes only what it creates: the ends of a new relationship, or the element put on a view, do not change
		for _, ids := range [][]string{changed, r.changed} {
			for _, id := range ids {
				if !seen[id] {
					seen[id] = true
					inv.Touched = append(inv.Touched, id)
				}
			}
		}
		if r.Deleted != nil {
			for _, ids := range [][]string{r.Deleted.Relationships, r.Deleted.DiagramObjects, r.Deleted.Connections} {
				for _, id := range ids {
					if !seen[id] {
						seen[id] = true
						inv.Touched = append(inv.Touched, id)
					}
				}
			}
		}
	}
	return o, inv, nil
}

func firstMessage(o *Outcome) string {
	if errs := o.Errors(); len(errs) > 0 {
		return fmt.Sprintf("%s: %s", errs[0].Code, errs[0].Message)
	}
	return o.Verdict
}

// CheckInverse checks the steps of an archived inverse against the ops of the plan it undoes (raw,
// the archived plan): each step must be of a kind one of those ops declares its edit records
// (schemas.Op.Effect): an attribute it sets, an element it inserts or removes, an element whose
// text it sets. tags are the elements the steps changed (archixml.Model.UndoTags). The error names
// the first step that no op of the plan makes.
func CheckInverse(raw []byte, steps []archixml.Step, tags []string) error {
	names, err := opsOf(raw)
	if err != nil {
		return err
	}
	attrs, nodes, texts := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, name := range names {
		op, ok := schemas.OpByName(schemas.Newest, name)
		if !ok {
			return fmt.Errorf("the plan has an unknown op %q", name)
		}
		for _, k := range op.Effect.Attrs {
			attrs[k] = true
		}
		for _, k := range op.Effect.Nodes {
			nodes[k] = true
		}
		for _, k := range op.Effect.Texts {
			texts[k] = true
		}
	}
	for i, s := range steps {
		tag := ""
		if i < len(tags) {
			tag = tags[i]
		}
		var ok bool
		var what string
		switch s.Op {
		case "attr":
			ok, what = attrs[s.Key], fmt.Sprintf("attribute %q", s.Key)
		case "insert", "remove":
			ok, what = nodes[tag], fmt.Sprintf("element <%s>", tag)
		case "text":
			ok, what = texts[tag], fmt.Sprintf("the text of <%s>", tag)
		default:
			what = "an unknown step"
		}
		if !ok {
			return fmt.Errorf("step %d (%s on %q): %s is not one the plan's ops (%s) change", i, s.Op, s.ID, what, opList(names))
		}
	}
	return nil
}

func opList(ops []schemas.OpName) string {
	seen := map[schemas.OpName]bool{}
	var names []string
	for _, op := range ops {
		if !seen[op] {
			seen[op] = true
			names = append(names, string(op))
		}
	}
	return strings.Join(names, ", ")
}

// Revert undoes an applied plan on m from its inverse.
func Revert(m *archixml.Model, inv *Inverse) error {
	if err := m.Undo(inv.Steps); err != nil {
		return fmt.Errorf("revert plan %s: %w", inv.PlanSHA256, err)
	}
	return nil
}

// StepRange is the range [first, last) of an applied plan's inverse steps that action i's own
// edits recorded (connections drawn after the last action are not in it).
func (o *Outcome) StepRange(i int) (first, last int) {
	if i < 0 || i >= len(o.Results) || len(o.Results[i].steps) == 0 {
		return 0, 0
	}
	r := o.Results[i].steps[0]
	return r[0], r[1]
}

// opsOf are the ops of a plan's actions, in order, read from its bytes (extracted, checked against
// its schema and decoded), or why they cannot be read.
//
// An apply decodes its plan, then proves its inverse against the same bytes (CheckInverse): the
// ops of the plan run decoded last are kept by the SHA-256 of its bytes (lastOps), and bytes with
// that digest are not read a second time (extracting, checking against the schema and decoding a
// plan again cost as much as the rest of the proof at 1,000 elements). Other bytes are read.
func opsOf(raw []byte) ([]schemas.OpName, error) {
	sum := SHA256(raw)
	lastOps.Lock()
	if lastOps.sum == sum {
		names := lastOps.ops
		lastOps.Unlock()
		return names, nil
	}
	lastOps.Unlock()
	decodes.Add(1)
	obj, _, ferr := Extract(raw, false)
	if ferr != nil {
		return nil, fmt.Errorf("the plan: %s", ferr.Message)
	}
	p, _, fs := decodePlan(obj)
	if p == nil {
		msg := "not a plan"
		if len(fs) > 0 {
			msg = fs[0].Message
		}
		return nil, fmt.Errorf("the plan: %s", msg)
	}
	return actionOps(p), nil
}

// lastOps are the ops of the plan run decoded last (opsOf), by the SHA-256 of its bytes: a
// plan Extract (strict or not) and decodePlan read gives the same ops from the same bytes.
var lastOps struct {
	sync.Mutex
	sum string
	ops []schemas.OpName
}

// keepOps notes the ops of a plan run decoded from bytes with this digest.
func keepOps(sum string, p *Plan) {
	names := actionOps(p)
	lastOps.Lock()
	lastOps.sum, lastOps.ops = sum, names
	lastOps.Unlock()
}

func actionOps(p *Plan) []schemas.OpName {
	names := make([]schemas.OpName, len(p.Actions))
	for i, a := range p.Actions {
		names[i] = a.Op
	}
	return names
}

// decodes counts the plans opsOf read from their bytes, for the test that holds an apply to
// decoding its plan once.
var decodes atomic.Int64

package plans

import (
	"fmt"

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

// Revert undoes an applied plan on m from its inverse.
func Revert(m *archixml.Model, inv *Inverse) error {
	if err := m.Undo(inv.Steps); err != nil {
		return fmt.Errorf("revert plan %s: %w", inv.PlanSHA256, err)
	}
	return nil
}

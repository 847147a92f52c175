package plans

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"

	"github.com/archiplan/archiplan/archixml"
)

// Verdicts of a check; the store adds stale, rejected and applied.
const (
	VerdictValid    = "valid"
	VerdictInvalid  = "invalid"
	VerdictNotReady = "not_ready"
)

// ErrRefused means a plan cannot be applied; the Outcome says why.
var ErrRefused = errors.New("plan refused")

// Outcome is everything a check found of a plan file.
type Outcome struct {
	SHA256   string         // of the file's bytes, as previewed
	JSON     []byte         // the object extracted from the file (nil when extraction failed)
	Plan     *Plan          // nil when extraction or the schema failed
	Findings []Finding      // every error and warning, in the order found
	Results  []ActionResult // one per action, when the plan decoded
	Verdict  string
	names    map[string]string // for the diagram: names of what the actions touch
}

// Errors returns the findings that stop the plan.
func (o *Outcome) Errors() []Finding { e, _ := split(o.Findings); return e }

// Warnings returns the findings that do not.
func (o *Outcome) Warnings() []Finding { _, w := split(o.Findings); return w }

// Check runs a plan file through extraction, its schema, and its meaning and policy against the
// model, without changing the model: the actions run on it and are undone. Check is not safe for
// concurrent use of one model.
func Check(raw []byte, m *archixml.Model, opts Options) *Outcome { return CheckThen(raw, m, opts, nil) }

// CheckThen checks as Check does and, when the actions ran, calls after with the outcome while
// the model is still as the plan leaves it (before it is put back): to draw the views it changes.
// after must not edit the model.
func CheckThen(raw []byte, m *archixml.Model, opts Options, after func(*Outcome)) *Outcome {
	o, eng := run(raw, m, opts)
	if eng != nil && after != nil {
		after(o)
	}
	if eng != nil {
		if err := m.Undo(m.Recorded()); err != nil {
			// the journal undoes what it recorded; failing here is a bug, not a plan's fault
			panic(fmt.Sprintf("plans: undo after check: %v", err))
		}
	}
	return o
}

func run(raw []byte, m *archixml.Model, opts Options) (*Outcome, *engine) {
	o := &Outcome{SHA256: SHA256(raw), Verdict: VerdictInvalid}
	obj, warns, ferr := Extract(raw, opts.Strict)
	o.Findings = append(o.Findings, warns...)
	if ferr != nil {
		o.Findings = append(o.Findings, *ferr)
		return o, nil
	}
	o.JSON = obj
	p, fs := checkSchema(obj)
	o.Findings = append(o.Findings, fs...)
	if p == nil {
		return o, nil
	}
	o.Plan = p
	o.Findings = append(o.Findings, checkFields(p)...)
	if opts.Seed == "" {
		opts.Seed = o.SHA256
	}
	eng := newEngine(m, p, opts)
	m.Record()
	eng.run()
	o.Findings = append(o.Findings, eng.findings...)
	o.Results = eng.results
	o.names = eng.names
	switch {
	case len(o.Errors()) > 0:
		o.Verdict = VerdictInvalid
	case p.Status != StatusReady:
		o.Verdict = VerdictNotReady
	default:
		o.Verdict = VerdictValid
	}
	return o, eng
}

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
			o.Verdict = VerdictNotReady
			return o, nil, fmt.Errorf("%w: %s", ErrRefused, f.Message)
		}
		return o, nil, fmt.Errorf("%w: %s", ErrRefused, firstMessage(o))
	}
	inv := &Inverse{FormatVersion: "1", PlanSHA256: o.SHA256, Steps: steps}
	seen := map[string]bool{}
	for _, r := range o.Results {
		changed := r.Created
		switch r.Op {
		case "create_relationship", "add_to_view", "create_element", "create_view":
			// the ends of a new relationship, or the element put on a view, do not change
		default:
			changed = append(append([]string(nil), r.touched...), r.Created...)
		}
		for _, ids := range [][]string{changed} {
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

// SHA256 is the hex SHA-256 of a plan file's bytes: what binds an approval to a preview.
func SHA256(raw []byte) string {
	s := sha256.Sum256(raw)
	return hex.EncodeToString(s[:])
}

// Reads is every object the plan reads or changes, sorted: what a commit made since its preview
// must not have touched for the preview to still hold.
func (o *Outcome) Reads() []string {
	seen := map[string]bool{}
	for _, r := range o.Results {
		for _, id := range r.touched {
			seen[id] = true
		}
		for _, e := range r.edges {
			for _, id := range []string{e.id, e.src, e.tgt} {
				seen[id] = true
			}
		}
		for _, id := range r.Created {
			seen[id] = true
		}
		if r.Deleted != nil {
			for _, ids := range [][]string{r.Deleted.Relationships, r.Deleted.DiagramObjects, r.Deleted.Connections} {
				for _, id := range ids {
					seen[id] = true
				}
			}
		}
	}
	delete(seen, "")
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

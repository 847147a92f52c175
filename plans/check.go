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
	Findings []Finding      // every error and warning, sorted (see sortFindings)
	Results  []ActionResult // one per action, when the plan decoded
	Verdict  string
	// NullsDropped counts the nulls of the flat form dropped before the schema check
	NullsDropped int
	// Refs maps each ref_id the plan declares to the id it names, when its action succeeded
	Refs map[string]string
	// Approvals are who must approve the plan, by the workspace's owners and rules (none: anyone, once)
	Approvals []Approval
	// Views are the changes the actions make to what views draw, in action order: what the
	// preview's pictures show
	Views []ViewChange
	names map[string]string // for the diagram: names of what the actions touch
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
		if eng.delta != nil {
			eng.judge(o) // the model is as it was before the plan again
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
	p, dropped, fs := decodePlan(obj)
	o.NullsDropped = dropped
	o.Findings = append(o.Findings, fs...)
	if p == nil {
		sortFindings(o.Findings)
		return o, nil
	}
	o.Plan = p
	keepOps(o.SHA256, p) // before the engine runs: the ops as decoded, for the proof of the inverse
	o.Findings = append(o.Findings, checkFields(p)...)
	if opts.Seed == "" {
		opts.Seed = o.SHA256
	}
	eng := newEngine(m, p, opts)
	m.Record()
	eng.run()
	o.Findings = append(o.Findings, eng.findings...)
	o.Results = eng.results
	o.Views = eng.viewChanges()
	made := 0
	for i := range o.Results {
		r := &o.Results[i]
		var steps []archixml.Step
		for _, rg := range r.steps {
			steps = append(steps, m.StepsBetween(rg[0], rg[1])...)
		}
		r.objects = objectsOf(steps)
		made += len(steps)
	}
	if p.Status == StatusReady && made == 0 && !hasErrors(o.Findings) {
		// a ready plan that changes nothing would be approved into a commit that changes nothing
		o.Findings = append(o.Findings, newFinding(NothingToApply, -1, "/actions", "",
			"the plan changes nothing in the model: there is nothing to apply"))
	}
	if !hasErrors(eng.findings) {
		o.Findings = append(o.Findings, eng.archiFindings(o.Views)...)
		if opts.Rules != nil && p.Status == StatusReady {
			eng.collect() // judged once the model is as it was before the plan (see judge)
		}
	}
	for ref, id := range eng.refs {
		if id != "" {
			if o.Refs == nil {
				o.Refs = map[string]string{}
			}
			o.Refs[ref] = id
		}
	}
	o.names = eng.names
	o.settle()
	return o, eng
}

// settle sorts the findings and gives the verdict they make.
func (o *Outcome) settle() {
	sortFindings(o.Findings)
	switch {
	case len(o.Errors()) > 0:
		o.Verdict = VerdictInvalid
	case o.Plan.Status != StatusReady:
		o.Verdict = VerdictNotReady
	default:
		o.Verdict = VerdictValid
	}
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

func hasErrors(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == Error {
			return true
		}
	}
	return false
}

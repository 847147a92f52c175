package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/opsamples"
	"github.com/archiplan/archiplan/plans"
)

// For every op, the proof accepts the inverse its apply wrote, and refuses it once a step is
// added, dropped, or any one step of the op's action is pointed at another object; a changed
// value is refused unless it has no effect (a step inside what the plan created). Whatever the
// proof accepts gives back the model before the apply: editing the steps of an archived inverse
// cannot make a revert do anything else.
func TestProveInverse_RefusesAnAppendedOrChangedStep(t *testing.T) {
	before, _ := archixml.Example().Save()
	base, _ := archixml.Load(before)
	for _, s := range opsamples.For(base) {
		t.Run(s.Name(), func(t *testing.T) {
			m, _ := archixml.Load(before)
			o, inv, err := plans.Apply(s.Plan(), m, plans.Options{})
			if err != nil {
				t.Fatal(err)
			}
			after, _ := m.Save()
			if err := proveInverse(s.Plan(), inv, before, after); err != nil {
				t.Fatalf("the inverse archiplan wrote is refused: %v", err)
			}
			// inHand is the model the apply made, as an apply has it in hand when it proves
			inHand := func() *archixml.Model {
				t.Helper()
				m, _ := archixml.Load(before)
				if _, _, err := plans.Apply(s.Plan(), m, plans.Options{}); err != nil {
					t.Fatal(err)
				}
				return m
			}
			if !inHand().Rebase(after) {
				t.Fatal("the model in hand cannot be rebased on what it saved: the apply would load it again")
			}
			// proved reports whether the proof accepts the steps; when it does, undoing them must
			// give back the model before the apply (checked here on its own)
			proved := func(what string, steps []archixml.Step) bool {
				t.Helper()
				forged := &plans.Inverse{FormatVersion: "1", PlanSHA256: inv.PlanSHA256, Touched: inv.Touched, Steps: steps}
				js, _ := json.Marshal(forged) // as read back from an archive
				var back plans.Inverse
				if err := json.Unmarshal(js, &back); err != nil {
					t.Fatal(err)
				}
				err := proveInverse(s.Plan(), &back, before, after)
				// the proof on the model in hand says what the proof on the reloaded model says,
				// and leaves the model as the apply made it
				h := inHand()
				kept, herr := proveInHand(s.Plan(), &back, h, before, after)
				if fmt.Sprint(herr) != fmt.Sprint(err) {
					t.Errorf("%s: on the model in hand the proof says %v, on the model loaded again %v", what, herr, err)
				}
				if got, _ := h.Save(); !kept() || !bytes.Equal(got, after) {
					t.Errorf("%s: the proof did not leave the model in hand as the apply made it (kept %v)", what, kept())
				}
				if err != nil {
					return false
				}
				m, _ := archixml.Load(after)
				if err := plans.Revert(m, &back); err != nil {
					t.Errorf("%s: proved, and undo fails: %v", what, err)
				}
				if got, _ := m.Save(); !bytes.Equal(got, before) {
					t.Errorf("%s: proved, and it does not give back the model", what)
				}
				return true
			}
			refused := func(what string, steps []archixml.Step) {
				t.Helper()
				if proved(what, steps) {
					t.Errorf("%s: the proof accepts it", what)
				}
			}
			// appended: the colleague's step, on an object the plan touches, and on one it does not
			victim := ""
			for _, st := range inv.Steps {
				if st.ID != "" {
					victim = st.ID
					break
				}
			}
			mallory := "Mallory"
			customer := base.Elements()[0].ID()
			for _, id := range []string{victim, customer} {
				// undone first: refused, or overridden by the plan's own step on that name
				proved("appended rename of "+id, append(clone(inv.Steps), archixml.Step{Op: "attr", ID: id, Key: "name", Old: &mallory}))
				// undone last: refused
				refused("prepended rename of "+id, append([]archixml.Step{{Op: "attr", ID: id, Key: "name", Old: &mallory}}, clone(inv.Steps)...))
			}
			refused("a step dropped", clone(inv.Steps)[1:])
			// changed: each step of the op's action
			first, last := o.StepRange(s.Index())
			if last <= first {
				t.Fatal("the op's action recorded no step")
			}
			for i := first; i < last; i++ {
				// its value changed: refused, or (a step inside what the plan created, which the
				// undo of the creation removes anyway) without effect on the model
				steps := clone(inv.Steps)
				changeStep(&steps[i])
				proved(fmt.Sprintf("step %d (%s) changed", i, steps[i].Op), steps)
				// pointed at an object the model had: refused
				steps = clone(inv.Steps)
				target := customer
				if steps[i].ID == customer {
					target = base.Elements()[1].ID()
				}
				steps[i].ID, steps[i].Path = target, nil
				if steps[i].Op == "attr" {
					steps[i].Old = &mallory
				}
				refused(fmt.Sprintf("step %d (%s) pointed at %s", i, steps[i].Op, target), steps)
			}
		})
	}
}

func clone(steps []archixml.Step) []archixml.Step {
	out := make([]archixml.Step, len(steps))
	for i, s := range steps {
		s.Path = append([]int(nil), s.Path...)
		if s.Old != nil {
			v := *s.Old
			s.Old = &v
		}
		out[i] = s
	}
	return out
}

// changeStep changes one step so that it still has the shape of a step an edit records.
func changeStep(s *archixml.Step) {
	v := "Mallory"
	switch s.Op {
	case "attr", "text":
		if s.Old != nil && *s.Old != "" {
			v = *s.Old + " Mallory"
		}
		if s.Key == "x" || s.Key == "y" || s.Key == "width" || s.Key == "height" {
			v = "4242"
		}
		s.Old = &v
	case "insert":
		s.Path = append(s.Path, 0)
	case "remove":
		// the removed node comes back with a property it never had
		x := strings.TrimSpace(s.XML)
		if strings.HasSuffix(x, "/>") {
			open := x[1:strings.IndexAny(x, " />")]
			x = strings.TrimSuffix(x, "/>") + `><property key="Mallory"/></` + open + ">"
		} else {
			i := strings.LastIndex(x, "</")
			x = x[:i] + `<property key="Mallory"/>` + x[i:]
		}
		s.XML = x
	}
}

// A crafted inverse is refused with ErrBadInverse, naming the step.
func TestProveArchived_NamesTheStep(t *testing.T) {
	before, _ := archixml.Example().Save()
	m, _ := archixml.Load(before)
	customer := m.Elements()[0]
	raw := []byte(`{"schema_version":"2.0","status":"ready","summary":"s","actions":[{"op":"set_documentation","element_id":"` + customer.ID() + `","documentation":"new"}]}`)
	_, inv, err := plans.Apply(raw, m, plans.Options{})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := m.Save()
	mallory := "Mallory"
	inv.Steps = append(inv.Steps, archixml.Step{Op: "attr", ID: customer.ID(), Key: "name", Old: &mallory})
	err = proveInverse(raw, inv, before, after)
	if err == nil || !strings.Contains(err.Error(), `step 1 (attr on "`+customer.ID()+`"): attribute "name" is not one the plan's ops (set_documentation) change`) {
		t.Fatalf("%v", err)
	}
	if errors.Is(err, ErrBadInverse) {
		t.Fatal("proveInverse wraps nothing: its callers say whose inverse it is")
	}
}

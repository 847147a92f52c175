package ledger

import (
	"slices"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/opsamples"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/schemas"
)

// What an approval binds holds every value an action gives that reaches the model: two plans
// that differ only in one such text (a documentation, a property, a note's text) record
// different words, so a re-check after HEAD moved cannot pass one for the other (issue 18).
func TestBound_EveryShownFieldIsBound(t *testing.T) {
	base := archixml.Example()
	seen := 0
	for _, s := range opsamples.For(base) {
		op, _ := schemas.OpByName(schemas.Newest, s.Op)
		for _, f := range op.Fields {
			v, set := s.Action()[f.Name]
			if !set || f.Show == schemas.ShowNone {
				continue
			}
			var changed any
			switch f.Kind {
			case schemas.Text, schemas.Name:
				if f.Name == "folder_path" {
					continue // a path names a folder; another value is another folder, said as such
				}
				changed = v.(string) + " but otherwise"
				if f.Max == schemas.MaxColor {
					changed = "#123456"
				}
			case schemas.Properties:
				ps := v.([]map[string]any)
				changed = []map[string]any{{"key": ps[0]["key"], "value": "otherwise"}}
			default:
				continue
			}
			t.Run(s.Name()+"/"+f.Name, func(t *testing.T) {
				other := s
				other.Actions = append([]map[string]any(nil), s.Actions...)
				a := map[string]any{}
				for k, x := range s.Action() {
					a[k] = x
				}
				a[f.Name] = changed
				other.Actions[len(other.Actions)-1] = a
				o1 := plans.Check(s.Plan(), archixml.Example(), plans.Options{})
				o2 := plans.Check(other.Plan(), archixml.Example(), plans.Options{Seed: o1.SHA256})
				if errs := o2.Errors(); len(errs) == 1 && errs[0].Code == plans.NothingToApply {
					return // the other value makes the plan change nothing: no approval can pass it
				}
				if o1.Verdict != plans.VerdictValid || o2.Verdict != plans.VerdictValid {
					t.Fatalf("%s %v / %s %v", o1.Verdict, o1.Errors(), o2.Verdict, o2.Errors())
				}
				if slices.Equal(o1.Bound().Words, o2.Bound().Words) {
					t.Fatalf("the recorded words do not tell %q from %q", v, changed)
				}
			})
			seen++
		}
	}
	if seen < 10 {
		t.Fatalf("only %d fields tried", seen)
	}
}

package ledger_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/plans"
)

// convergePlan is a plan of the four kinds of change a planner makes most on a model: a rename,
// a property, and on one view a restyle and a move, of objects the model has.
func convergePlan(t *testing.T, data []byte) []byte {
	t.Helper()
	m, err := archixml.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	target := journeyTarget(t, data)
	for _, v := range m.Views() {
		objs := v.DiagramObjects()
		if len(objs) < 2 {
			continue
		}
		b, _ := objs[1].Bounds()
		return []byte(fmt.Sprintf(`{"schema_version":"3.0","status":"ready","summary":"converge","actions":[`+
			`{"op":"rename_element","element_id":%q,"new_name":"Journey converged"},`+
			`{"op":"set_property","element_id":%q,"key":"journey","value":"converged"},`+
			`{"op":"style_view_object","object_id":%q,"fill_color":"#a1b2c3","text_alignment":"right"},`+
			`{"op":"move_view_object","object_id":%q,"x":%d,"y":%d}]}`,
			target, target, objs[0].ID(), objs[1].ID(), b.X+40, b.Y+30))
	}
	t.Fatal("the model has no view with two objects")
	return nil
}

// A person's journey on every corpus model: a plan dropped, previewed, approved and applied, then
// the same actions previewed again as a new plan against the new HEAD: nothing is left to do
// (every action a NOOP, no picture, no step), as `pulumi preview --expect-no-changes`. A plan that
// did not converge would change the model again on every approval.
func TestJourney_ApplyThenPreviewAgainConverges(t *testing.T) {
	for _, f := range corpusModels(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			raw := convergePlan(t, data)
			if m, err := archixml.Load(data); err == nil {
				if errs := plans.Check(raw, m, plans.Options{}).Errors(); len(errs) > 0 {
					t.Fatalf("the plan: %s: %s", errs[0].Code, errs[0].Message)
				}
			}
			ws := workspaceWith(t, data)
			l := lt.Ledger(ws)
			lt.Preview(t, l, "converge", raw)
			if _, err := lt.Approve(t, l, "converge"); err != nil {
				t.Fatalf("approve: %v", err)
			}
			if sameModel(t, ws, data) {
				t.Fatal("the approval changed nothing")
			}
			reviewAgain(t, l, "converge-again", raw)
			// and the actions, applied to the model at HEAD, take no step and draw no change
			m, err := archixml.Load(lt.Model(t, ws))
			if err != nil {
				t.Fatal(err)
			}
			o, _, err := plans.Apply(raw, m, plans.Options{})
			if err == nil {
				t.Fatal("the plan again on HEAD applies: it should have nothing to apply")
			}
			if errs := o.Errors(); len(errs) != 1 || errs[0].Code != plans.NothingToApply || len(o.Views) > 0 {
				t.Fatalf("the plan again on HEAD: %v, %d view change(s) (want only NOTHING_TO_APPLY)", errs, len(o.Views))
			}
			nooped := map[int]bool{}
			for _, w := range o.Warnings() {
				if w.Code == plans.NoOp && w.Action != nil {
					nooped[*w.Action] = true
				}
			}
			if len(nooped) != 4 {
				t.Fatalf("%d of the 4 actions are NOOPs on HEAD", len(nooped))
			}
		})
	}
}

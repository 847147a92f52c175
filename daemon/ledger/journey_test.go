package ledger_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// sameModel reports whether the model at HEAD is data: the same bytes, or, for Archi's zipped
// form, the same entries holding the same model (a model.xml written anew is compressed
// otherwise than Archi did).
func sameModel(t *testing.T, ws *store.Workspace, data []byte) bool {
	t.Helper()
	got := lt.Model(t, ws)
	if bytes.Equal(got, data) {
		return true
	}
	m, err := archixml.Load(got)
	return err == nil && m.Archived() && m.SavesAs(data)
}

// journeyTarget is what the journeys change on a model: its first element, or its first view
// when it has no element (the zipped model of the corpus holds only views).
func journeyTarget(t *testing.T, data []byte) string {
	m, err := archixml.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	if els := m.Elements(); len(els) > 0 {
		return els[0].ID()
	}
	if vs := m.Views(); len(vs) > 0 {
		return vs[0].ID()
	}
	t.Fatal("the model has no element and no view")
	return ""
}

// reviewAgain submits an applied plan again under a new name and checks it on the model at HEAD:
// a plan once applied has nothing left to do (NOOP warnings and NOTHING_TO_APPLY, no other error),
// as `pulumi preview --expect-no-changes`, and its preview says where it was applied
// (PLAN_APPLIED_BEFORE).
func reviewAgain(t *testing.T, l *ledger.Ledger, name string, raw []byte) {
	t.Helper()
	if err := l.Inbox().Submit(name, raw); err != nil {
		t.Fatal(err)
	}
	e, err := l.Inbox().Find(name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.Check(e)
	if err != nil {
		t.Fatal(err)
	}
	if errs := c.Outcome.Errors(); len(errs) != 1 || errs[0].Code != plans.NothingToApply {
		t.Fatalf("%s previewed again after its apply: %v (want only NOTHING_TO_APPLY)", name, errs)
	}
	ws := c.Outcome.Warnings()
	noops, said := 0, false
	for _, w := range ws {
		switch w.Code {
		case plans.NoOp:
			noops++
		case plans.PlanAppliedBefore: // the same bytes: the preview says where they were applied
			said = true
		default:
			t.Fatalf("%s previewed again after its apply: %s: %s (want only NOOP and PLAN_APPLIED_BEFORE)", name, w.Code, w.Message)
		}
	}
	if noops == 0 {
		t.Fatalf("%s previewed again after its apply: no NOOP warning, so it would change the model again", name)
	}
	if !said {
		t.Fatalf("%s previewed again after its apply: no PLAN_APPLIED_BEFORE, so its preview does not say it is applied", name)
	}
	if err := os.Remove(filepath.Join(l.Inbox().Dir, e.File)); err != nil {
		t.Fatal(err)
	}
}

// A person's journey on every corpus model (the zipped one and Archi 2.6's included): two plans
// applied, each previewed again after its apply with nothing left to do, then reverted in both
// orders. Plans on other fields of one object revert in any order; plans on the same field revert
// newest first, and the other order is refused naming the object and the field, until the later
// plan is reverted (issue 33: it stayed refused, as the later plan had once touched the object).
func TestRevert_AnyOrder(t *testing.T) {
	for _, f := range corpusModels(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			target := journeyTarget(t, data)
			rename := func(to string) []byte { return lt.Rename(target, to) }
			document := []byte(fmt.Sprintf(`{"schema_version":"2.0","status":"ready","summary":"document","actions":[{"op":"set_documentation","element_id":%q,"documentation":"Written by the journey."}]}`, target))
			ctx := context.Background()
			apply := func(t *testing.T, l *ledger.Ledger, name string, raw []byte) string {
				t.Helper()
				res, err := l.Apply(ctx, ledger.Request{Name: name, File: name + ".json", Raw: raw})
				if err != nil {
					t.Fatalf("apply %s: %v", name, err)
				}
				reviewAgain(t, l, name+"-again", raw)
				return res.PlanID
			}
			revert := func(t *testing.T, l *ledger.Ledger, id string) {
				t.Helper()
				if _, err := l.Revert(ctx, id); err != nil {
					t.Fatalf("revert %s: %v", id, err)
				}
			}

			t.Run("other fields, A then B", func(t *testing.T) {
				ws := workspaceWith(t, data)
				l := lt.Ledger(ws)
				a := apply(t, l, "a", rename("Journey A"))
				b := apply(t, l, "b", document)
				revert(t, l, a)
				if m := string(lt.Model(t, ws)); strings.Contains(m, "Journey A") {
					t.Fatal("the revert of A left A's name")
				}
				revert(t, l, b)
				if !sameModel(t, ws, data) {
					t.Fatal("reverting A then B does not give back the model")
				}
			})
			t.Run("other fields, B then A", func(t *testing.T) {
				ws := workspaceWith(t, data)
				l := lt.Ledger(ws)
				a := apply(t, l, "a", rename("Journey A"))
				b := apply(t, l, "b", document)
				revert(t, l, b)
				revert(t, l, a)
				if !sameModel(t, ws, data) {
					t.Fatal("reverting B then A does not give back the model")
				}
			})
			// an element of every layer: a model of Archi 2 lacks the strategy, motivation and other
			// folders, which are made as Archi makes them when it opens such a model (issue 33:
			// "the model has no motivation folder")
			layers := []byte(`{"schema_version":"2.0","status":"ready","summary":"every layer","actions":[` +
				`{"op":"create_element","type":"Capability","name":"Journey capability"},` +
				`{"op":"create_element","type":"Business Actor","name":"Journey actor"},` +
				`{"op":"create_element","type":"Application Component","name":"Journey component"},` +
				`{"op":"create_element","type":"Node","name":"Journey node"},` +
				`{"op":"create_element","type":"Goal","name":"Journey goal"},` +
				`{"op":"create_element","type":"Work Package","name":"Journey work"},` +
				`{"op":"create_element","type":"Location","name":"Journey place"}]}`)
			for _, order := range []string{"A then B", "B then A"} {
				t.Run("every layer, "+order, func(t *testing.T) {
					ws := workspaceWith(t, data)
					l := lt.Ledger(ws)
					res, err := l.Apply(ctx, ledger.Request{Name: "a", File: "a.json", Raw: layers})
					if err != nil {
						t.Fatalf("apply a: %v", err)
					}
					b := apply(t, l, "b", document)
					first, second := res.PlanID, b
					if order == "B then A" {
						first, second = b, res.PlanID
					}
					revert(t, l, first)
					revert(t, l, second)
					if !sameModel(t, ws, data) {
						t.Fatalf("reverting %s does not give back the model", order)
					}
				})
			}
			t.Run("same field, A then B", func(t *testing.T) {
				ws := workspaceWith(t, data)
				l := lt.Ledger(ws)
				a := apply(t, l, "a", rename("Journey A"))
				b := apply(t, l, "b", rename("Journey B"))
				head := lt.Git(t, ws.Root, "rev-parse", "HEAD")
				_, err := l.Revert(ctx, a)
				if !errors.Is(err, ledger.ErrConflict) || !strings.Contains(err.Error(), target) ||
					!strings.Contains(err.Error(), `name is now "Journey B" (the revert expects "Journey A")`) {
					t.Fatalf("revert of A under B's rename: %v", err)
				}
				if lt.Git(t, ws.Root, "rev-parse", "HEAD") != head {
					t.Fatal("a refused revert committed")
				}
				revert(t, l, b)
				revert(t, l, a) // B is reverted: A's name is back as A left it
				if !sameModel(t, ws, data) {
					t.Fatal("reverting B, then A, does not give back the model")
				}
				if _, err := l.Revert(ctx, a); !errors.Is(err, ledger.ErrAlreadyReverted) {
					t.Fatalf("a second revert of A: %v", err)
				}
			})
		})
	}
}

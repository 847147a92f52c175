package pullreq_test

import (
	"context"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger/ledgertest"
)

// TestDeliver_PlanNobodyPreviewed: deliver: pull-request for a plan that ask or MCP's
// submit_plan just put in the inbox, with no daemon running: Deliver previews it as the daemon
// would and opens its pull request (the description the preview), applies nothing, and leaves
// the plan waiting; a second Deliver pushes nothing; an invalid plan opens none.
func TestDeliver_PlanNobodyPreviewed(t *testing.T) {
	w := newWalk(t)
	ctx := context.Background()
	box := w.led.Inbox()
	if err := box.Submit("asked-1", ledgertest.Rename(w.ids[0], "Asked")); err != nil {
		t.Fatal(err)
	}
	main := ledgertest.Git(t, w.bare, "rev-parse", "main")
	st, err := w.flow.Deliver(ctx, "asked-1")
	if err != nil || st == nil {
		t.Fatalf("not delivered: %+v %v", st, err)
	}
	if body := w.forge.body(st.Number); !strings.Contains(body, "**archiplan plan `asked-1`**") || !strings.Contains(body, `"Asked"`) {
		t.Errorf("the description is not the preview:\n%s", body)
	}
	if e, err := box.Find("asked-1"); err != nil || e.State != inbox.Pending {
		t.Errorf("the plan is %+v (%v), not waiting", e, err)
	}
	if now := ledgertest.Git(t, w.bare, "rev-parse", "main"); now != main {
		t.Error("delivering applied something")
	}
	again, err := w.flow.Deliver(ctx, "asked-1")
	if err != nil || again == nil || again.Head != st.Head {
		t.Fatalf("delivered again: %+v %v", again, err)
	}
	if err := box.Submit("asked-2", ledgertest.Rename("id-nothing-of-the-model", "X")); err != nil {
		t.Fatal(err)
	}
	if st, err := w.flow.Deliver(ctx, "asked-2"); err != nil || st != nil {
		t.Fatalf("an invalid plan delivered: %+v %v", st, err)
	}
	if n := len(w.forge.prs); n != 1 {
		t.Errorf("%d pull requests", n)
	}
}

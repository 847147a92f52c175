package pullreq_test

import (
	"context"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/forge"
	"github.com/archiplan/archiplan/pullreq"
)

// TestWalk_RevertHeldToTheOwners: a revert's pull request is held to the owners (policy/
// owners.yaml) as a plan's is, by the forge accounts whose reviews count: the revert of a plan
// that renamed a Business element waits for carol, who owns the Business layer, whoever else
// approves it, and carol's approval reverts it. It is opened by anyone (the pull request
// gathers the approvals): by a person the owners do not name, and by one they do (whose own
// approval, given by opening it, is not the forge's).
func TestWalk_RevertHeldToTheOwners(t *testing.T) {
	for _, tc := range []struct{ name, from string }{
		{"opened by someone else", "[carol]"},
		{"opened by an owner", "[carol, " + inbox.OSUser() + "]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWalk(t)
			ctx := context.Background()
			id, _ := w.applyByPR("owned-r", ledgertest.Rename(w.ids[0], "Owned"))
			w.own("owners:\n  - name: business\n    layer: Business\n    from: " + tc.from + "\n")
			st, err := w.flow.OpenRevert(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			w.forge.review(st.Number, "alice", forge.ReviewApproved)
			o, err := w.flow.ApplyRevert(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if o.State != pullreq.Waiting || !strings.Contains(o.Reason, "REVERT_NEEDS_APPROVALS") || !strings.Contains(o.Reason, "carol") {
				t.Fatalf("reverted without the owner: %+v", o)
			}
			if m := ledgertest.Git(t, w.bare, "show", "main:model.archimate"); !strings.Contains(m, `name="Owned"`) {
				t.Fatal("the revert reached main")
			}
			w.forge.review(st.Number, "carol", forge.ReviewApproved)
			if o, err = w.flow.ApplyRevert(ctx, id); err != nil || o.State != pullreq.Applied {
				t.Fatalf("the owner's approval did not revert it: %+v %v", o, err)
			}
			if m := ledgertest.Git(t, w.bare, "show", "main:model.archimate"); strings.Contains(m, `name="Owned"`) {
				t.Fatal("the revert is not on main")
			}
		})
	}
}

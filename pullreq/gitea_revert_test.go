package pullreq_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/pullreq"
	"github.com/archiplan/archiplan/store"
)

// TestGiteaWalk_Revert: on a real Gitea, a plan applied through its pull request is reverted
// through one: proposed (the review of the revert as the description, its pictures on the
// branch), not made before an approval, approved by the other person, made as one commit with
// their account in Approved-By and merged; the model on main is the one before the plan, byte
// for byte.
func TestGiteaWalk_Revert(t *testing.T) {
	w := newGiteaWalk(t)
	ctx := context.Background()
	before := w.branchHead(t, "main")
	ledgertest.Git(t, w.ws.Root, "fetch", "-q", "origin")
	model := ledgertest.Git(t, w.ws.Root, "show", before+":model.archimate")

	st := w.open(t, "to-undo", ledgertest.Rename(w.ids[0], "Client <i>"))
	w.approve(t, st.Number, st.Head)
	o := w.apply(t, "to-undo")
	if o.State != pullreq.Applied || !o.Merged {
		t.Fatalf("plan not applied: %+v", o)
	}
	id := ledgertest.Git(t, w.ws.Root, "log", "-1", "--format=%(trailers:key=Plan-Id,valueonly)", o.Commit)

	rs, err := w.flow.OpenRevert(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := w.fg.PR(ctx, rs.Number)
	if err != nil {
		t.Fatal(err)
	}
	if pr.HeadSHA != rs.Head || pr.Base != "main" || !strings.Contains(pr.Body, "revert of plan `"+id+"`") ||
		!strings.Contains(pr.Body, "/raw/commit/"+rs.Head+"/"+pullreq.RevertDir(id)+"/revert.view-") || strings.Contains(pr.Body, "<i>") {
		t.Fatalf("the revert's pull request as Gitea has it: %+v", pr)
	}
	t.Logf("revert pull request %s: %s", pr.URL, pr.Title)
	if r, err := w.flow.ApplyRevert(ctx, id); err != nil || r.State != pullreq.Waiting {
		t.Fatalf("reverted without an approval: %+v %v", r, err)
	}
	w.approve(t, rs.Number, rs.Head)
	approved := time.Now()
	r, err := w.flow.ApplyRevert(ctx, id)
	took := time.Since(approved)
	if err != nil || r.State != pullreq.Applied || !r.Merged {
		t.Fatalf("not reverted and merged: %+v %v", r, err)
	}
	main := w.branchHead(t, "main")
	ledgertest.Git(t, w.ws.Root, "fetch", "-q", "origin")
	msg := ledgertest.Git(t, w.ws.Root, "log", "-1", "--format=%B", r.Commit)
	if !hasLine(msg, "Approved-By: "+w.g.Reviewer.Name+" <"+w.g.Reviewer.Name+"@127.0.0.1>") || !hasLine(msg, "Reverts-Plan: "+id) {
		t.Errorf("trailers:\n%s", msg)
	}
	if n := ledgertest.Git(t, w.ws.Root, "rev-list", "--count", o.Commit+".."+r.Commit); n != "1" {
		t.Errorf("%s commits for one revert", n)
	}
	if out := ledgertest.Git(t, w.ws.Root, "merge-base", "--is-ancestor", r.Commit, main); out != "" {
		t.Fatal(out)
	}
	if now := ledgertest.Git(t, w.ws.Root, "show", main+":model.archimate"); now != model {
		t.Error("the model on main is not the one before the plan")
	}
	if files := ledgertest.Git(t, w.ws.Root, "ls-tree", "-r", "--name-only", main); strings.Contains(files, ".archiplan/proposed") {
		t.Errorf("the proposal reached main:\n%s", files)
	}
	t.Logf("approval to the revert commit on main: %s (revert %s, main %s)", took.Round(time.Millisecond), store.Short(r.Commit), store.Short(main))
}

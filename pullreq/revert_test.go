package pullreq_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/forge"
	"github.com/archiplan/archiplan/pullreq"
)

// applyByPR walks a plan through its pull request to its apply (alice approves) and gives its id
// and apply commit.
func (w *walk) applyByPR(name string, raw []byte) (id, commit string) {
	w.t.Helper()
	st := w.open(name, raw)
	w.forge.review(st.Number, "alice", forge.ReviewApproved)
	o := w.apply(name)
	if o.State != pullreq.Applied || !o.Merged {
		w.t.Fatalf("plan %s not applied: %+v", name, o)
	}
	return ledgertest.Git(w.t, w.bare, "log", "-1", "--format=%(trailers:key=Plan-Id,valueonly)", o.Commit), o.Commit
}

// TestWalk_RevertAsPullRequest: the revert of a plan applied through its pull request is a pull
// request too. Its branch holds the revert's review and pictures on the base (never the model
// change), its description is that review (the planner's words escaped, the pictures linked to
// the branch's commit); it is not made without an approval, nor on the author's; the other
// person's approval of the head makes the ledger's revert (one commit, their account in
// Approved-By, Reverts-Plan), the forge merges it, and the model on main is the one before the
// plan, byte for byte. A second proposal of the same revert is refused.
func TestWalk_RevertAsPullRequest(t *testing.T) {
	w := newWalk(t)
	ctx := context.Background()
	before := ledgertest.Git(t, w.bare, "show", "main:model.archimate")
	plan := []byte(`{"schema_version":"2.0","status":"ready","summary":"rename *it* <b>now</b>","actions":[{"op":"rename_element","element_id":"` +
		w.ids[0] + `","new_name":"Renamed [x](http://evil)"}]}`)
	id, applied := w.applyByPR("rename-1", plan)
	if !strings.HasPrefix(id, "rename-1-") {
		t.Fatalf("plan id %q", id)
	}

	// proposed by its apply commit, as archiplan revert takes it
	st, err := w.flow.OpenRevert(ctx, applied)
	if err != nil {
		t.Fatal(err)
	}
	if st.Reverts != id || st.Branch != "archiplan/revert/"+id || st.RevertsCommit != applied || st.Number != 2 {
		t.Fatalf("state %+v", st)
	}
	if main := ledgertest.Git(t, w.bare, "rev-parse", "main"); main != applied || st.Base != applied {
		t.Fatalf("proposing the revert moved main to %s (base %s, apply %s)", main, st.Base, applied)
	}
	dir := pullreq.RevertDir(id)
	files := ledgertest.Git(t, w.bare, "ls-tree", "-r", "--name-only", st.Head, dir)
	for _, want := range []string{"revert.preview.md", ".after.svg"} {
		if !strings.Contains(files, want) {
			t.Errorf("the branch lacks %s:\n%s", want, files)
		}
	}
	if parent := ledgertest.Git(t, w.bare, "rev-parse", st.Head+"^"); parent != st.Base {
		t.Errorf("the branch is not on the base previewed: %s, %s", parent, st.Base)
	}
	if ledgertest.Git(t, w.bare, "show", st.Head+":model.archimate") != ledgertest.Git(t, w.bare, "show", st.Base+":model.archimate") {
		t.Error("the branch holds the model change: merging it by hand would revert")
	}
	body := w.forge.body(st.Number)
	for _, want := range []string{"revert of plan `" + id + "`", "Renamed", "/raw/commit/" + st.Head + "/" + dir + "/revert.view-", "`Approved-By`"} {
		if !strings.Contains(body, want) {
			t.Errorf("the description lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "<b>") || strings.Contains(body, "[x](http://evil)") {
		t.Errorf("the planner's text reaches the description as markup:\n%s", body)
	}
	if s := w.forge.status(st.Head, pullreq.StatusContext); s.State != forge.StatusSuccess {
		t.Errorf("status %+v", s)
	}
	// nothing moved: proposed again, the same head
	if again, err := w.flow.OpenRevert(ctx, id); err != nil || again.Head != st.Head || again.Number != st.Number {
		t.Fatalf("proposed again: %+v %v", again, err)
	}

	revert := func() *pullreq.Outcome {
		t.Helper()
		o, err := w.flow.ApplyRevert(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	if o := revert(); o.State != pullreq.Waiting || !strings.Contains(o.Reason, "no approval") {
		t.Fatalf("reverted without an approval: %+v", o)
	}
	w.forge.review(st.Number, "bot", forge.ReviewApproved)
	if o := revert(); o.State != pullreq.Waiting || !strings.Contains(o.Reason, "opened it") {
		t.Fatalf("the author's own approval reverted it: %+v", o)
	}
	w.forge.review(st.Number, "alice", forge.ReviewApproved)
	o := revert()
	if o.State != pullreq.Applied || !o.Merged || o.Warning != "" || o.Reverts != id {
		t.Fatalf("not reverted on approval: %+v", o)
	}
	if main := ledgertest.Git(t, w.bare, "rev-parse", "main"); main != o.Commit {
		t.Errorf("the forge's main is %s, not the revert commit %s", main, o.Commit)
	}
	if n := ledgertest.Git(t, w.bare, "rev-list", "--count", applied+".."+o.Commit); n != "1" {
		t.Errorf("%s commits for one revert", n)
	}
	msg := ledgertest.Git(t, w.bare, "log", "-1", "--format=%an <%ae>%n%B", o.Commit)
	if !hasLine(msg, "alice <alice@forge.test>") || !hasLine(msg, "Approved-By: alice <alice@forge.test>") || !hasLine(msg, "Reverts-Plan: "+id) {
		t.Errorf("author and trailers:\n%s", msg)
	}
	if after := ledgertest.Git(t, w.bare, "show", "main:model.archimate"); after != before {
		t.Error("the model on main is not the one before the plan")
	}
	if files := ledgertest.Git(t, w.bare, "ls-tree", "-r", "--name-only", o.Commit); strings.Contains(files, ".archiplan/proposed") {
		t.Errorf("the proposal reached the base:\n%s", files)
	}
	// nothing to propose again, and a second look does not revert twice
	if _, err := w.flow.OpenRevert(ctx, id); !errors.Is(err, ledger.ErrAlreadyReverted) && !errors.Is(err, ledger.ErrNoSuchPlan) {
		t.Errorf("a second revert proposed: %v", err)
	}
	if again := revert(); again.State != pullreq.Applied || again.Commit != o.Commit {
		t.Errorf("a second look: %+v", again)
	}
}

// TestWalk_RevertStaleBase: a revert's approval binds to the base it was previewed on. When a
// colleague's commit moves the base after the approval, nothing is reverted and the pull request
// is marked stale; proposed again on the new base, an approval of that head reverts it, and a
// sync (the daemon's deliver) does it.
func TestWalk_RevertStaleBase(t *testing.T) {
	w := newWalk(t)
	ctx := context.Background()
	id, _ := w.applyByPR("stale-r", ledgertest.Rename(w.ids[2], "Later"))
	st, err := w.flow.OpenRevert(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	w.forge.review(st.Number, "alice", forge.ReviewApproved)
	col := ledgertest.Ledger(w.other)
	if err := col.Pull(ctx); err != nil {
		t.Fatal(err)
	}
	ledgertest.Preview(t, col, "theirs", ledgertest.Rename(w.ids[3], "Theirs"))
	if _, err := ledgertest.Approve(t, col, "theirs"); err != nil {
		t.Fatal(err)
	}
	if _, err := col.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	moved := ledgertest.Git(t, w.bare, "rev-parse", "main")
	o, err := w.flow.ApplyRevert(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if o.State != pullreq.Stale || !strings.Contains(o.Reason, "base moved") || !strings.Contains(o.Reason, "archiplan pr --revert "+id) {
		t.Fatalf("reverted on a moved base: %+v", o)
	}
	if main := ledgertest.Git(t, w.bare, "rev-parse", "main"); main != moved {
		t.Fatal("main moved")
	}
	if body := w.forge.body(st.Number); !strings.Contains(body, "**Stale**") {
		t.Errorf("not marked:\n%s", body)
	}
	again, err := w.flow.OpenRevert(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if again.Head == st.Head || again.Number != st.Number || again.Base != moved {
		t.Fatalf("re-preview %+v", again)
	}
	if body := w.forge.body(st.Number); !strings.Contains(body, "the base moved from") || strings.Contains(body, "**Stale**") {
		t.Errorf("the re-preview does not say what changed:\n%s", body)
	}
	w.forge.review(st.Number, "alice", forge.ReviewApproved)
	outs, err := w.flow.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var done *pullreq.Outcome
	for _, o := range outs {
		if o.Reverts == id {
			done = o
		}
	}
	if done == nil || done.State != pullreq.Applied || !done.Merged {
		t.Fatalf("sync did not revert: %+v", outs)
	}
	m := ledgertest.Git(t, w.bare, "show", "main:model.archimate")
	if strings.Contains(m, `name="Later"`) || !strings.Contains(m, `name="Theirs"`) {
		t.Error("the revert did not undo the plan alone")
	}
}

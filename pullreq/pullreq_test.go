package pullreq_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/forge"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/policy"
	"github.com/archiplan/archiplan/pullreq"
	"github.com/archiplan/archiplan/store"
)

type walk struct {
	t     *testing.T
	bare  string
	ws    *store.Workspace
	other *store.Workspace // a colleague's clone, who pushes to the base
	led   *ledger.Ledger
	forge *repoForge
	flow  *pullreq.Flow
	ids   []string
}

func newWalk(t *testing.T) *walk {
	bare, wss := ledgertest.Team(t, 2)
	led := ledgertest.Ledger(wss[0])
	fg := newRepoForge(t, bare)
	return &walk{t: t, bare: bare, ws: wss[0], other: wss[1], led: led, forge: fg, ids: ledgertest.Elements(t, wss[0]),
		flow: &pullreq.Flow{Ledger: led, Forge: fg, Remote: "origin", Base: "main"}}
}

// open submits a plan to the inbox and opens its pull request.
func (w *walk) open(name string, raw []byte) *pullreq.State {
	w.t.Helper()
	if err := w.led.Inbox().Submit(name, raw); err != nil {
		w.t.Fatal(err)
	}
	st, err := w.flow.Open(context.Background(), name)
	if err != nil {
		w.t.Fatal(err)
	}
	return st
}

func (w *walk) apply(name string) *pullreq.Outcome {
	w.t.Helper()
	o, err := w.flow.Apply(context.Background(), name)
	if err != nil {
		w.t.Fatal(err)
	}
	return o
}

// TestWalk_PlanAsPullRequest walks a plan from the inbox to its apply on merge: the branch holds
// the plan, its preview and pictures; the description is the preview with the pictures linked to
// the branch's commit, the planner's text escaped; the author's own approval and none at all do
// not apply it; the other person's approval of the head does, through the ledger (one commit,
// their account in Approved-By), and the forge merges it.
func TestWalk_PlanAsPullRequest(t *testing.T) {
	w := newWalk(t)
	ctx := context.Background()
	summary := "rename *it* <b>now</b>"
	plan := []byte(`{"schema_version":"2.0","status":"ready","summary":"` + summary + `","actions":[{"op":"rename_element","element_id":"` + w.ids[0] + `","new_name":"Renamed [x](http://evil)"}]}`)
	st := w.open("rename-1", plan)
	if st.Number != 1 || st.Branch != "archiplan/plan/rename-1" {
		t.Fatalf("state %+v", st)
	}
	files := ledgertest.Git(t, w.bare, "ls-tree", "-r", "--name-only", st.Head, ".archiplan/proposed/rename-1")
	for _, want := range []string{"rename-1.json", "rename-1.preview.md", ".svg"} {
		if !strings.Contains(files, want) {
			t.Errorf("the branch lacks %s:\n%s", want, files)
		}
	}
	if strings.Contains(files, "report.json") {
		t.Errorf("the report is for programs, not the branch:\n%s", files)
	}
	if parent := ledgertest.Git(t, w.bare, "rev-parse", st.Head+"^"); parent != st.Base {
		t.Errorf("the branch is not on the base previewed: %s, %s", parent, st.Base)
	}
	body := w.forge.body(1)
	if strings.Contains(body, "<b>") || strings.Contains(body, "[x](http://evil)") {
		t.Errorf("the planner's text reaches the description as markup:\n%s", body)
	}
	if !strings.Contains(body, "http://forge.test/team/model/raw/commit/"+st.Head+"/.archiplan/proposed/rename-1/rename-1.view-1.after.svg") &&
		!strings.Contains(body, "/raw/commit/"+st.Head+"/.archiplan/proposed/rename-1/") {
		t.Errorf("the pictures are not linked to the branch's commit:\n%s", body)
	}
	if s := w.forge.status(st.Head, pullreq.StatusContext); s.State != forge.StatusSuccess {
		t.Errorf("status %+v", s)
	}

	if o := w.apply("rename-1"); o.State != pullreq.Waiting || !strings.Contains(o.Reason, "no approval") {
		t.Fatalf("applied without an approval: %+v", o)
	}
	w.forge.review(1, "bot", forge.ReviewApproved)
	if o := w.apply("rename-1"); o.State != pullreq.Waiting || !strings.Contains(o.Reason, "opened it") {
		t.Fatalf("the author's own approval applied it: %+v", o)
	}
	w.forge.review(1, "alice", forge.ReviewApproved)
	o := w.apply("rename-1")
	if o.State != pullreq.Applied || !o.Merged || o.Warning != "" {
		t.Fatalf("not applied on approval: %+v", o)
	}
	if main := ledgertest.Git(t, w.bare, "rev-parse", "main"); main != o.Commit {
		t.Errorf("the forge's main is %s, not the apply commit %s", main, o.Commit)
	}
	msg := ledgertest.Git(t, w.bare, "log", "-1", "--format=%B", o.Commit)
	if !hasLine(msg, "Approved-By: alice <alice@forge.test>") || !strings.Contains(msg, "Plan-Id: rename-1-") {
		t.Errorf("trailers:\n%s", msg)
	}
	if files := ledgertest.Git(t, w.bare, "ls-tree", "-r", "--name-only", o.Commit); strings.Contains(files, ".archiplan/proposed") {
		t.Errorf("the proposal reached the base:\n%s", files)
	}
	if n := ledgertest.Git(t, w.bare, "rev-list", "--count", st.Base+".."+o.Commit); n != "1" {
		t.Errorf("%s commits for one plan", n)
	}
	m, err := archixml.Load([]byte(ledgertest.Git(t, w.bare, "show", o.Commit+":model.archimate")))
	if err != nil {
		t.Fatal(err)
	}
	if obj, _ := m.Object(w.ids[0]); obj.Name() != "Renamed [x](http://evil)" {
		got := obj.Name()
		t.Errorf("the model says %q", got)
	}
	if again := w.apply("rename-1"); again.State != pullreq.Applied || again.Commit != o.Commit {
		t.Errorf("a second look applied again: %+v", again)
	}
	_ = ctx
}

// TestWalk_PushAfterApprovalVoidsIt: an approval counts only on the head archiplan pushed with
// the preview. A push to the branch after it leaves the plan unapplied and the pull request
// marked stale; a re-preview (archiplan pr NAME again) pushes a new head, on which the old
// approval does not count, and says what changed.
func TestWalk_PushAfterApprovalVoidsIt(t *testing.T) {
	w := newWalk(t)
	st := w.open("push-1", ledgertest.Rename(w.ids[1], "Pushed"))
	w.forge.review(st.Number, "alice", forge.ReviewApproved)
	// someone (a planner with the forge's access) pushes to the branch after the approval, and
	// the forge's API does not say so yet
	w.forge.lag = true
	clone := filepath.Join(t.TempDir(), "c")
	ledgertest.Git(t, filepath.Dir(clone), "clone", "-q", "-b", st.Branch, w.bare, clone)
	if err := os.WriteFile(filepath.Join(clone, ".archiplan/proposed/push-1/push-1.json"), ledgertest.Rename(w.ids[1], "Other"), 0o644); err != nil {
		t.Fatal(err)
	}
	ledgertest.Git(t, clone, "commit", "-qam", "sneak")
	ledgertest.Git(t, clone, "push", "-q", "origin", st.Branch)
	before := ledgertest.Git(t, w.bare, "rev-parse", "main")
	o := w.apply("push-1")
	if o.State != pullreq.Stale || !strings.Contains(o.Reason, "branch moved") {
		t.Fatalf("applied after a push: %+v", o)
	}
	if after := ledgertest.Git(t, w.bare, "rev-parse", "main"); after != before {
		t.Fatal("the base moved")
	}
	if body := w.forge.body(st.Number); !strings.HasPrefix(body, "<!-- archiplan:pull-request -->\n> **Stale**") {
		t.Errorf("not marked stale:\n%s", body)
	}
	if s := w.forge.status(st.Head, pullreq.StatusContext); s.State != forge.StatusFailure {
		t.Errorf("status %+v", s)
	}
	w.forge.lag = false
	// previewed again: a new head, the old approval void
	again, err := w.flow.Open(context.Background(), "push-1")
	if err != nil {
		t.Fatal(err)
	}
	if again.Number != st.Number || again.Head == st.Head {
		t.Fatalf("re-preview %+v", again)
	}
	if body := w.forge.body(st.Number); strings.Contains(body, "**Stale**") || !strings.Contains(body, "approvals given before this preview are void") {
		t.Errorf("the re-preview's description:\n%s", body)
	}
	if o := w.apply("push-1"); o.State != pullreq.Waiting || !strings.Contains(o.Reason, "not the head previewed") {
		t.Fatalf("an approval of an earlier head applied it: %+v", o)
	}
	w.forge.review(st.Number, "alice", forge.ReviewApproved)
	if o := w.apply("push-1"); o.State != pullreq.Applied {
		t.Fatalf("%+v", o)
	}
}

// TestWalk_StaleBase: the base moved after the approval (a colleague pushed): not applied, the
// pull request marked stale; previewed again on the new base it says the base moved and that
// every change reads as before, and an approval of that head applies it.
func TestWalk_StaleBase(t *testing.T) {
	w := newWalk(t)
	st := w.open("stale-1", ledgertest.Rename(w.ids[2], "Later"))
	w.forge.review(st.Number, "alice", forge.ReviewApproved)
	// the colleague applies a plan of their own and pushes it
	col := ledgertest.Ledger(w.other)
	ledgertest.Preview(t, col, "theirs", ledgertest.Rename(w.ids[3], "Theirs"))
	if _, err := ledgertest.Approve(t, col, "theirs"); err != nil {
		t.Fatal(err)
	}
	if _, err := col.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	o := w.apply("stale-1")
	if o.State != pullreq.Stale || !strings.Contains(o.Reason, "base moved") {
		t.Fatalf("applied on a moved base: %+v", o)
	}
	if body := w.forge.body(st.Number); !strings.Contains(body, "**Stale**") {
		t.Errorf("not marked:\n%s", body)
	}
	again, err := w.flow.Open(context.Background(), "stale-1")
	if err != nil {
		t.Fatal(err)
	}
	body := w.forge.body(st.Number)
	if !strings.Contains(body, "the base moved from") || !strings.Contains(body, "every change reads as before") {
		t.Errorf("the re-preview does not say what changed:\n%s", body)
	}
	w.forge.review(again.Number, "alice", forge.ReviewApproved)
	if o := w.apply("stale-1"); o.State != pullreq.Applied || !o.Merged {
		t.Fatalf("%+v", o)
	}
}

// TestWalk_OwnersByForgeAccount: where policy/owners.yaml asks for an owner's approval, a forge
// review counts by the reviewer's forge account: an approval by someone else leaves the plan
// waiting for the owner, and the owner's applies it with both in the trailers.
func TestWalk_OwnersByForgeAccount(t *testing.T) {
	w := newWalk(t)
	w.own("owners:\n  - name: business\n    layer: Business\n    from: [carol]\n")
	st := w.open("owned-1", ledgertest.Rename(w.ids[0], "Owned"))
	w.forge.review(st.Number, "alice", forge.ReviewApproved)
	o := w.apply("owned-1")
	if o.State != pullreq.Waiting || !strings.Contains(o.Reason, "carol") {
		t.Fatalf("applied without the owner: %+v", o)
	}
	if again := w.apply("owned-1"); again.State != pullreq.Waiting {
		t.Fatalf("a second look: %+v", again)
	}
	w.forge.review(st.Number, "carol", forge.ReviewApproved)
	o = w.apply("owned-1")
	if o.State != pullreq.Applied {
		t.Fatalf("the owner's approval did not apply it: %+v", o)
	}
	msg := ledgertest.Git(t, w.bare, "log", "-1", "--format=%B", o.Commit)
	if !strings.Contains(msg, "Approved-By: carol (owner, preview sha256") || !hasLine(msg, "Approved-By: carol <carol@forge.test>") {
		t.Errorf("trailers:\n%s", msg)
	}
}

// own commits policy/owners.yaml (pushed to the base) and has the ledger judge by it.
func (w *walk) own(owners string) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Join(w.ws.Root, "policy"), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.ws.Root, "policy", "owners.yaml"), []byte(owners), 0o644); err != nil {
		w.t.Fatal(err)
	}
	ledgertest.Git(w.t, w.ws.Root, "add", "policy")
	ledgertest.Git(w.t, w.ws.Root, "commit", "-qm", "owners")
	ledgertest.Git(w.t, w.ws.Root, "push", "-q", "origin", "main")
	w.led.SetOptions(plans.Options{Rules: policy.Load(w.ws.Root)})
}

// TestOpen_SamePreviewKeepsTheHead: opening a plan's pull request again with nothing moved
// pushes nothing: the head, and the approvals given on it, stay.
func TestOpen_SamePreviewKeepsTheHead(t *testing.T) {
	w := newWalk(t)
	tick := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w.flow.Now = func() time.Time { tick = tick.Add(time.Minute); return tick } // every commit a time of its own
	st := w.open("same-1", ledgertest.Rename(w.ids[0], "Same"))
	w.forge.review(st.Number, "alice", forge.ReviewApproved)
	again, err := w.flow.Open(context.Background(), "same-1")
	if err != nil {
		t.Fatal(err)
	}
	if again.Head != st.Head || ledgertest.Git(t, w.bare, "rev-parse", st.Branch) != st.Head {
		t.Fatalf("a new head for the same preview: %s, was %s", again.Head, st.Head)
	}
	if o := w.apply("same-1"); o.State != pullreq.Applied {
		t.Fatalf("%+v", o)
	}
}

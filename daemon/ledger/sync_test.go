package ledger_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// applyAndSync applies a plan from the command line's path (no preview) and pushes it.
func applyAndSync(t *testing.T, l *ledger.Ledger, name string, raw []byte) *ledger.SyncResult {
	t.Helper()
	if _, err := l.Apply(context.Background(), ledger.Request{Name: name, File: name + ".json", Raw: raw}); err != nil {
		t.Fatalf("apply %s: %v", name, err)
	}
	res, err := l.Sync(context.Background())
	if err != nil {
		t.Fatalf("sync %s: %v", name, err)
	}
	return res
}

func TestSync_RebasesWhenTheRemoteMoved(t *testing.T) {
	bare, w := lt.Team(t, 2)
	a, b := lt.Ledger(w[0]), lt.Ledger(w[1])
	els := lt.Elements(t, w[0])
	customer, desk := els[0], els[1]

	// a pushes first
	if res := applyAndSync(t, a, "client", lt.Rename(customer, "Client")); !res.Pushed {
		t.Fatal("not pushed")
	}
	// b applied on the old base: its push is rejected, its plan made again on top, then pushed
	res := applyAndSync(t, b, "desk", lt.Rename(desk, "Front Desk"))
	if !res.Pushed || res.Rebased != 1 || len(res.Dropped) != 0 {
		t.Fatalf("%+v", res)
	}
	log := strings.Join(lt.Linear(t, bare), "\n")
	if !strings.Contains(log, "rename to Client") || !strings.Contains(log, "rename to Front Desk") {
		t.Fatalf("remote history:\n%s", log)
	}
	model, _ := os.ReadFile(w[1].ModelPath())
	if !strings.Contains(string(model), `name="Client"`) || !strings.Contains(string(model), `name="Front Desk"`) {
		t.Fatal("b's work tree is not the remote's model")
	}

	// the same object changed on the remote: b's plan is dropped as stale, naming the remote
	// commit, and rejected in b's inbox with that reason
	if err := a.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	applyAndSync(t, a, "client2", lt.Rename(customer, "Customer Ltd"))
	res = applyAndSync(t, b, "client3", lt.Rename(customer, "Patron"))
	if len(res.Dropped) != 1 || !strings.Contains(res.Dropped[0].Reason, "stale: remote commit") ||
		!strings.Contains(res.Dropped[0].Reason, "rename to Customer Ltd") {
		t.Fatalf("%+v", res)
	}
	if a, _, _ := w[1].AheadBehind("origin"); a != 0 {
		t.Fatalf("b still %d ahead", a)
	}
	model, _ = os.ReadFile(w[1].ModelPath())
	if strings.Contains(string(model), "Patron") || !strings.Contains(string(model), "Customer Ltd") {
		t.Fatal("the dropped plan is still in b's model")
	}
	if out := lt.Git(t, w[1].Root, "status", "--porcelain"); out != "" {
		t.Fatalf("b's git status: %s", out)
	}
	e, err := b.Inbox().Find("client3")
	if err != nil || e.State != inbox.Rejected {
		t.Fatalf("the dropped plan is not rejected in b's inbox: %+v %v", e, err)
	}
	lt.CheckRemoteModels(t, bare)
}

func TestSync_UnreachableRemote(t *testing.T) {
	bare, w := lt.Team(t, 1)
	l := lt.Ledger(w[0])
	moved := bare + ".away"
	if err := os.Rename(bare, moved); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Apply(context.Background(), ledger.Request{Name: "p", File: "p.json", Raw: lt.Rename(lt.Elements(t, w[0])[0], "Client")}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Sync(context.Background()); !errors.Is(err, store.ErrUnreachable) {
		t.Fatalf("got %v, want ErrUnreachable", err)
	}
	if err := l.Pull(context.Background()); !errors.Is(err, store.ErrUnreachable) {
		t.Fatalf("pull: %v", err)
	}
	if a, _, _ := w[0].AheadBehind("origin"); a != 1 {
		t.Fatalf("%d ahead, want 1 (the commit stays local)", a)
	}
	if rs := w[0].RemoteState(); rs.LastPushError == "" {
		t.Fatal("the failed push is not recorded")
	}
	if err := os.Rename(moved, bare); err != nil {
		t.Fatal(err)
	}
	res, err := l.Sync(context.Background())
	if err != nil || !res.Pushed {
		t.Fatalf("%+v %v", res, err)
	}
	if !strings.Contains(lt.Git(t, bare, "log", "--format=%s", "main"), "rename to Client") {
		t.Fatal("not on the remote")
	}
}

// A colleague's commit pushed between a preview and its approval makes the approval stale when
// it changed what the plan changes; one that changed something else lets the approval be
// validated again and applied, the commit saying so.
func TestSync_ColleagueCommitBetweenPreviewAndApproval(t *testing.T) {
	bare, w := lt.Team(t, 2)
	me, colleague := lt.Ledger(w[0]), lt.Ledger(w[1])
	els := lt.Elements(t, w[0])
	lt.Preview(t, me, "same", lt.Rename(els[0], "Client"))
	lt.Preview(t, me, "other", lt.Rename(els[2], "Clerk"))
	applyAndSync(t, colleague, "colleague", lt.Rename(els[0], "Customer Ltd"))
	if err := me.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, err := lt.Approve(t, me, "same")
	if !errors.Is(err, ledger.ErrRefused) || res.Verdict != ledger.VerdictStale || !strings.Contains(res.Reason, "rename to Customer Ltd") {
		t.Fatalf("%v %+v", err, res)
	}
	if e, err := me.Inbox().Find("same"); err != nil || e.State != inbox.Rejected {
		t.Fatalf("%+v %v", e, err)
	}
	res, err = lt.Approve(t, me, "other")
	if err != nil || res.Revalid == "" {
		t.Fatalf("%v %+v", err, res)
	}
	if res, err := me.Sync(context.Background()); err != nil || !res.Pushed {
		t.Fatalf("%+v %v", res, err)
	}
	msg := lt.Git(t, bare, "log", "-1", "--format=%B", "main")
	if !strings.Contains(msg, "validated again") || !strings.Contains(msg, "rename to Clerk") {
		t.Fatalf("the commit does not say it was validated again:\n%s", msg)
	}
}

// A revert made locally while the remote moved is made again on top, like an apply.
func TestSync_RevertRebased(t *testing.T) {
	bare, w := lt.Team(t, 2)
	a, b := lt.Ledger(w[0]), lt.Ledger(w[1])
	els := lt.Elements(t, w[0])
	customer, desk := els[0], els[1]
	applyAndSync(t, a, "client", lt.Rename(customer, "Client"))
	if err := b.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	applyAndSync(t, a, "desk", lt.Rename(desk, "Front Desk"))
	id := ledger.PlanID("client", plans.SHA256(lt.Rename(customer, "Client")))
	if _, err := b.Revert(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	res, err := b.Sync(context.Background())
	if err != nil || !res.Pushed || res.Rebased != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	log := lt.Linear(t, bare)
	if !strings.HasPrefix(log[0], "revert: rename to Client") || !strings.Contains(strings.Join(log, "\n"), "rename to Front Desk") {
		t.Fatalf("remote history:\n%s", strings.Join(log, "\n"))
	}
	model, _ := os.ReadFile(w[1].ModelPath())
	if strings.Contains(string(model), `name="Client"`) || !strings.Contains(string(model), `name="Front Desk"`) {
		t.Fatal("the rebased revert lost something")
	}
	lt.CheckRemoteModels(t, bare)
}

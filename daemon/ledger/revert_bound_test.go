package ledger_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/store"
)

// TestRevertWith_PreviewThenBound: a revert previewed (what a revert's pull request shows) is a
// commit on no branch, the same one for the same HEAD, and moves nothing; the revert made on
// approval is bound to it: on another base, or writing another model, nothing is committed
// (ErrRevertMoved); bound as previewed, it is one commit by the approver with their Approved-By,
// writing the model previewed.
func TestRevertWith_PreviewThenBound(t *testing.T) {
	seed, _ := archixml.Example().Save()
	ws := workspaceWith(t, seed)
	tick := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// every commit a second of its own: a preview made again is the same commit by what it is made of
	l := ledger.New(ledger.Config{Workspace: ws, Inbox: lt.Inbox(ws), ApprovedBy: lt.Signature,
		Now: func() time.Time { tick = tick.Add(time.Second); return tick }})
	ctx := context.Background()
	ids := lt.Elements(t, ws)
	res, err := l.Apply(ctx, ledger.Request{Name: "r1", File: "r1.json", Raw: lt.Rename(ids[0], "Renamed")})
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.RevertWith(ctx, res.PlanID, ledger.RevertOptions{Preview: true})
	if err != nil {
		t.Fatal(err)
	}
	if head, _ := ws.Head(); head != res.Commit || p.Base != res.Commit {
		t.Fatalf("a preview moved HEAD to %s (base %s)", head, p.Base)
	}
	if !strings.Contains(string(lt.Model(t, ws)), `name="Renamed"`) {
		t.Fatal("a preview changed the model")
	}
	if got := lt.Git(t, ws.Root, "rev-parse", p.Commit+":model.archimate"); got != p.Blob {
		t.Fatalf("the previewed commit's model %s, not %s", got, p.Blob)
	}
	if again, err := l.RevertWith(ctx, res.Commit, ledger.RevertOptions{Preview: true}); err != nil || again.Commit != p.Commit {
		t.Fatalf("previewed again: %+v %v: not the same commit %s", again, err, p.Commit)
	}
	bob := store.Signature{Name: "bob", Email: "bob@forge.example"}
	if _, err := l.RevertWith(ctx, res.PlanID, ledger.RevertOptions{ApprovedBy: &bob, Base: p.Base, Blob: strings.Repeat("0", 40)}); !errors.Is(err, ledger.ErrRevertMoved) {
		t.Fatalf("another model: %v", err)
	}
	if _, err := l.RevertWith(ctx, res.PlanID, ledger.RevertOptions{ApprovedBy: &bob, Base: strings.Repeat("1", 40), Blob: p.Blob}); !errors.Is(err, ledger.ErrRevertMoved) {
		t.Fatalf("another base: %v", err)
	}
	if head, _ := ws.Head(); head != res.Commit {
		t.Fatal("a refused revert committed")
	}
	done, err := l.RevertWith(ctx, res.PlanID, ledger.RevertOptions{ApprovedBy: &bob, Base: p.Base, Blob: p.Blob})
	if err != nil {
		t.Fatal(err)
	}
	msg := lt.Git(t, ws.Root, "log", "-1", "--format=%an <%ae>%n%B", done.Commit)
	if !strings.HasPrefix(msg, "bob <bob@forge.example>\n") || !strings.Contains(msg, "Approved-By: bob <bob@forge.example>") {
		t.Errorf("author and trailers:\n%s", msg)
	}
	if string(lt.Model(t, ws)) != string(seed) || done.Blob != p.Blob {
		t.Error("the revert is not the model previewed, the one before the plan")
	}
}

package ledger_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/store"
)

// handCommit commits the work tree as a person does after saving in Archi.
func handCommit(t *testing.T, dir, msg string) string {
	t.Helper()
	lt.Git(t, dir, "-c", "user.name=Ada", "-c", "user.email=ada@example.org", "commit", "-q", "-am", msg)
	return lt.Git(t, dir, "rev-parse", "HEAD")
}

// A person's commit made in the workspace (an edit saved in Archi, committed by hand, not
// pushed yet) and a colleague's pushed meanwhile (another element renamed, a file added) are
// merged as models by the sync, as the merge driver merges them, instead of being refused; a
// local plan applied after the hand commit is made again on top by replaying its ops. The
// remote gets all three, in a straight line, the hand commit with its author and message, each
// model one Archi opens.
func TestSync_HandMadeLocalCommitIsMerged(t *testing.T) {
	bare, w := lt.Team(t, 1)
	l := lt.Ledger(w[0])
	els := lt.Elements(t, w[0])
	dir := colleagueClone(t, bare)
	lt.RenameIn(t, dir+"/model.archimate", els[0], "Renamed by Bob")
	os.WriteFile(dir+"/notes.txt", []byte("notes\n"), 0o644)
	colleaguePush(t, dir, "Bob's edit in Archi")

	lt.RenameIn(t, w[0].ModelPath(), els[1], "Renamed by Ada")
	handCommit(t, w[0].Root, "Ada's edit in Archi")
	if _, err := l.Apply(context.Background(), ledger.Request{Name: "plan", File: "plan.json", Raw: lt.Rename(els[2], "Renamed by a plan")}); err != nil {
		t.Fatal(err)
	}
	res, err := l.Sync(context.Background())
	if err != nil || !res.Pushed || res.Rebased != 2 || len(res.Dropped) != 0 {
		t.Fatalf("sync: %+v %v", res, err)
	}
	model := lt.Git(t, bare, "show", "main:model.archimate")
	for _, name := range []string{"Renamed by Bob", "Renamed by Ada", "Renamed by a plan"} {
		if !strings.Contains(model, `name="`+name+`"`) {
			t.Errorf("the remote's model has no %q", name)
		}
	}
	if subjects := lt.Linear(t, bare); len(subjects) < 3 || !strings.HasPrefix(subjects[0], "plan: ") || subjects[1] != "Ada's edit in Archi" || subjects[2] != "Bob's edit in Archi" {
		t.Errorf("the remote's history: %q", subjects)
	}
	if who := lt.Git(t, bare, "log", "-1", "--format=%an <%ae>", "main~1"); who != "Ada <ada@example.org>" {
		t.Errorf("the hand commit's author: %s", who)
	}
	if notes := lt.Git(t, bare, "show", "main:notes.txt"); notes != "notes" {
		t.Errorf("the colleague's file: %q", notes)
	}
	if got, _ := os.ReadFile(w[0].ModelPath()); string(got) != model+"\n" && string(got) != model {
		t.Error("the work tree is not the pushed model")
	}
	lt.CheckRemoteModels(t, bare)
}

// The same field changed differently on both sides (the same element renamed by a person here
// and by a colleague there) stops the sync: nothing moves, nothing is pushed, no commit is left
// on the branch, and status names the object and the field with both values.
func TestSync_HandMadeLocalCommitConflicts(t *testing.T) {
	bare, w := lt.Team(t, 1)
	l := lt.Ledger(w[0])
	els := lt.Elements(t, w[0])
	dir := colleagueClone(t, bare)
	lt.RenameIn(t, dir+"/model.archimate", els[0], "Bob's name")
	theirs := colleaguePush(t, dir, "Bob's edit in Archi")
	lt.RenameIn(t, w[0].ModelPath(), els[0], "Ada's name")
	mine := handCommit(t, w[0].Root, "Ada's edit in Archi")
	before, _ := os.ReadFile(w[0].ModelPath())

	_, err := l.Sync(context.Background())
	if !errors.Is(err, ledger.ErrMergeConflict) {
		t.Fatalf("sync over a conflicting hand commit: %v", err)
	}
	if head, _ := w[0].Head(); head != mine {
		t.Fatalf("the branch moved to %s", head)
	}
	if got := lt.Git(t, bare, "rev-parse", "main"); got != theirs {
		t.Fatal("something was pushed")
	}
	if after, _ := os.ReadFile(w[0].ModelPath()); string(after) != string(before) {
		t.Fatal("the work tree's model changed")
	}
	st := w[0].RemoteState().Refused
	for _, want := range []string{els[0], " name:", `remote "Bob's name"`, `here "Ada's name"`} {
		if !strings.Contains(st, want) {
			t.Errorf("status line %q does not say %q", st, want)
		}
	}
}

// pullOnly is a ledger on the team's workspace that pulls and never pushes.
func pullOnly(ws *store.Workspace) *ledger.Ledger {
	return ledger.New(ledger.Config{Workspace: ws, Inbox: lt.Inbox(ws), ApprovedBy: lt.Signature, Remote: ledger.Remote{Name: "origin", Pull: true}})
}

// A pull onto a branch that has a person's commit (an edit saved in Archi, committed by hand)
// and no plan to push, after a colleague pushed: the hand commit is made again on top of the
// colleague's, the models merged as the merge driver merges them, its author, message and date
// kept; the branch is no longer diverged, nothing is pushed, and every model on it is one Archi
// opens. A pull that only pulled left the branch diverged for good.
func TestPull_HandMadeLocalCommitIsMerged(t *testing.T) {
	bare, w := lt.Team(t, 1)
	l := pullOnly(w[0])
	els := lt.Elements(t, w[0])
	dir := colleagueClone(t, bare)
	lt.RenameIn(t, dir+"/model.archimate", els[0], "Renamed by Bob")
	os.WriteFile(dir+"/notes.txt", []byte("notes\n"), 0o644)
	theirs := colleaguePush(t, dir, "Bob's edit in Archi")
	lt.RenameIn(t, w[0].ModelPath(), els[1], "Renamed by Ada")
	mine := handCommit(t, w[0].Root, "Ada's edit in Archi")

	if err := l.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	head, _ := w[0].Head()
	if parent := lt.Git(t, w[0].Root, "rev-parse", head+"~1"); head == mine || parent != theirs {
		t.Fatalf("the branch is at %s (its parent %s), want the hand commit made again on the colleague's %s", head, parent, theirs)
	}
	format := "%an <%ae>|%ad|%B"
	if got, want := lt.Git(t, w[0].Root, "log", "-1", "--format="+format, head), lt.Git(t, w[0].Root, "log", "-1", "--format="+format, mine); got != want {
		t.Errorf("the hand commit made again says\n%s\nwant\n%s", got, want)
	}
	model := lt.Git(t, w[0].Root, "show", "HEAD:model.archimate")
	for _, name := range []string{"Renamed by Bob", "Renamed by Ada"} {
		if !strings.Contains(model, `name="`+name+`"`) {
			t.Errorf("the merged model has no %q", name)
		}
	}
	if got, _ := os.ReadFile(w[0].ModelPath()); strings.TrimSpace(string(got)) != model {
		t.Error("the work tree is not the merged model")
	}
	if notes, _ := os.ReadFile(w[0].Root + "/notes.txt"); string(notes) != "notes\n" {
		t.Errorf("the colleague's file: %q", notes)
	}
	if got := lt.Git(t, bare, "rev-parse", "main"); got != theirs {
		t.Error("a pull pushed")
	}
	lt.CheckRemoteModels(t, w[0].Root)
	// pulled again: nothing to do (ahead of the remote)
	if err := l.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	if again, _ := w[0].Head(); again != head {
		t.Errorf("a second pull moved the branch to %s", again)
	}
}

// The same field changed differently by the person here and the colleague there: the pull stops
// before the branch moves, the work tree as it was, and status names the object and the field
// with both values.
func TestPull_HandMadeLocalCommitConflicts(t *testing.T) {
	bare, w := lt.Team(t, 1)
	l := pullOnly(w[0])
	els := lt.Elements(t, w[0])
	dir := colleagueClone(t, bare)
	lt.RenameIn(t, dir+"/model.archimate", els[0], "Bob's name")
	colleaguePush(t, dir, "Bob's edit in Archi")
	lt.RenameIn(t, w[0].ModelPath(), els[0], "Ada's name")
	mine := handCommit(t, w[0].Root, "Ada's edit in Archi")
	before, _ := os.ReadFile(w[0].ModelPath())

	if err := l.Pull(context.Background()); !errors.Is(err, ledger.ErrMergeConflict) {
		t.Fatalf("pull over a conflicting hand commit: %v", err)
	}
	if head, _ := w[0].Head(); head != mine {
		t.Fatalf("the branch moved to %s", head)
	}
	if after, _ := os.ReadFile(w[0].ModelPath()); string(after) != string(before) {
		t.Fatal("the work tree's model changed")
	}
	st := w[0].RemoteState().Refused
	for _, want := range []string{els[0], " name:", `remote "Bob's name"`, `here "Ada's name"`} {
		if !strings.Contains(st, want) {
			t.Errorf("status line %q does not say %q", st, want)
		}
	}
}

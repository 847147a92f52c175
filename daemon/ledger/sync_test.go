package ledger_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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

// colleague is a plain git clone of the team's remote, where a colleague who can push commits
// what they like.
func colleagueClone(t *testing.T, bare string) string {
	t.Helper()
	dir := t.TempDir() + "/colleague"
	lt.Git(t, t.TempDir(), "clone", "-q", bare, dir)
	return dir
}

func colleaguePush(t *testing.T, dir, msg string) string {
	t.Helper()
	lt.Git(t, dir, "add", "-A")
	lt.Git(t, dir, "commit", "-q", "-m", msg)
	lt.Git(t, dir, "push", "-q", "origin", "main")
	return lt.Git(t, dir, "rev-parse", "HEAD")
}

// refusedPull pulls a commit the workspace must refuse: the pull says so with its code, the
// branch and the work tree stay where they were, status records why, and the workspace keeps
// serving: a plan is applied, and its push waits (the rebase onto the refused commit is
// refused too) instead of carrying the colleague's change in.
func refusedPull(t *testing.T, ws *store.Workspace, l *ledger.Ledger, bad, why string) {
	t.Helper()
	before, _ := ws.Head()
	err := l.Pull(context.Background())
	var re *store.RemoteError
	if !errors.Is(err, store.ErrCommitRefused) || !errors.As(err, &re) || re.Code != store.CodeCommitRefused || !strings.Contains(err.Error(), why) {
		t.Fatalf("pull: %v; want %s naming %q", err, store.CodeCommitRefused, why)
	}
	if head, _ := ws.Head(); head != before {
		t.Fatalf("the branch moved to %s", head)
	}
	if st := ws.RemoteState(); st.RefusedCommit != bad || !strings.Contains(st.Refused, why) {
		t.Fatalf("status does not say why: %+v", st)
	}
	if out := lt.Git(t, ws.Root, "status", "--porcelain"); out != "" {
		t.Fatalf("the work tree changed:\n%s", out)
	}
	els := lt.Elements(t, ws)
	if _, err := l.Apply(context.Background(), ledger.Request{Name: "after", File: "after.json", Raw: lt.Rename(els[1], "Still Serving")}); err != nil {
		t.Fatalf("the workspace no longer applies: %v", err)
	}
	if _, err := l.Sync(context.Background()); !errors.Is(err, store.ErrCommitRefused) {
		t.Fatalf("sync onto the refused commit: %v", err)
	}
	if ahead, _, _ := ws.AheadBehind("origin"); ahead != 1 {
		t.Fatalf("%d ahead, want the local apply kept (1)", ahead)
	}
}

// A colleague makes plans/ a symbolic link: archiplan used to move the branch and then fail the
// work tree ("file exists"), wedging every later command.
func TestSync_RefusesInboxLink(t *testing.T) {
	bare, w := lt.Team(t, 1)
	l := lt.Ledger(w[0])
	dir := colleagueClone(t, bare)
	os.RemoveAll(dir + "/plans")
	if err := os.Symlink("/tmp", dir+"/plans"); err != nil {
		t.Fatal(err)
	}
	bad := colleaguePush(t, dir, "plans elsewhere")
	refusedPull(t, w[0], l, bad, `"plans" is a symbolic link`)
}

// A commit with a tree entry under .git/ (git never makes one; a crafted push can): go-git would
// write it and every later pull failed.
func TestSync_RefusesPathUnderGit(t *testing.T) {
	bare, w := lt.Team(t, 1)
	l := lt.Ledger(w[0])
	dir := colleagueClone(t, bare)
	blob := lt.Git(t, dir, "hash-object", "-w", "model.archimate") // any blob
	inner := gitStdin(t, dir, "100644 blob "+blob+"\tconfig\n", "mktree")
	top := gitStdin(t, dir, lt.Git(t, dir, "ls-tree", "HEAD")+"\n040000 tree "+inner+"\t.git\n", "mktree")
	commit := lt.Git(t, dir, "commit-tree", top, "-p", "HEAD", "-m", "under .git")
	lt.Git(t, dir, "push", "-q", "origin", commit+":refs/heads/main")
	refusedPull(t, w[0], l, commit, `its tree cannot be checked out: invalid path component: ".git"`)
}

// A committed configuration pointing the inbox outside the workspace: the next daemon would have
// deleted and written files there.
func TestSync_RefusesConfigOutside(t *testing.T) {
	bare, w := lt.Team(t, 1)
	l := lt.Ledger(w[0])
	dir := colleagueClone(t, bare)
	os.WriteFile(dir+"/.archiplan.yaml", []byte("inbox: ../elsewhere\n"), 0o644)
	bad := colleaguePush(t, dir, "inbox elsewhere")
	refusedPull(t, w[0], l, bad, `inbox: "../elsewhere", outside the workspace`)
}

// A pulled configuration is read as the commands read it (viper: keys in any case, a list as a
// string of words): an inbox outside the workspace under "Inbox" is refused, and a policy
// loosened under "Policy" is shown as what it adds.
func TestSync_PulledConfigReadAsTheCommandsReadIt(t *testing.T) {
	bare, w := lt.Team(t, 1)
	l := lt.Ledger(w[0])
	dir := colleagueClone(t, bare)
	os.WriteFile(dir+"/.archiplan.yaml", []byte("policy:\n  allowed_ops: [rename_element]\n"), 0o644)
	colleaguePush(t, dir, "policy")
	if err := l.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(dir+"/.archiplan.yaml", []byte("Policy:\n  Allowed_Ops: rename_element delete_element\n"), 0o644)
	colleaguePush(t, dir, "looser policy, other spelling")
	if err := l.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	if note := w[0].RemoteState().PolicyNote; !strings.Contains(note, "allowed_ops adds delete_element") {
		t.Fatalf("policy note: %q", note)
	}
	os.WriteFile(dir+"/.archiplan.yaml", []byte("Inbox: ../elsewhere\n"), 0o644)
	bad := colleaguePush(t, dir, "inbox elsewhere, capitalised")
	refusedPull(t, w[0], l, bad, `inbox: "../elsewhere", outside the workspace`)
}

// A pulled executable hook is written executable, as git writes it (it came in -rw-r--r-- and
// the team's veto silently stopped running); a pulled configuration that loosens the policy is
// let in and shown.
func TestSync_PulledHookModeAndPolicy(t *testing.T) {
	bare, w := lt.Team(t, 1)
	l := lt.Ledger(w[0])
	dir := colleagueClone(t, bare)
	os.WriteFile(dir+"/.archiplan.yaml", []byte("policy:\n  allowed_ops: [rename_element]\n  protected_folders: [Business]\n"), 0o644)
	colleaguePush(t, dir, "policy")
	if err := l.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := w[0].RemoteState(); st.PolicyNote != "" {
		t.Fatalf("a tighter policy noted as looser: %s", st.PolicyNote)
	}
	os.MkdirAll(dir+"/hooks", 0o755)
	os.WriteFile(dir+"/hooks/pre-apply", []byte("#!/bin/sh\nexit 1\n"), 0o755)
	os.WriteFile(dir+"/.archiplan.yaml", []byte("policy:\n  allowed_ops: [rename_element, delete_element]\n"), 0o644)
	colleaguePush(t, dir, "veto hook, looser policy")
	if err := l.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(w[0].Root + "/hooks/pre-apply")
	if err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Fatalf("the pulled hook is not executable: %v %v", fi.Mode(), err)
	}
	if out := lt.Git(t, w[0].Root, "status", "--porcelain"); out != "" {
		t.Fatalf("git sees the work tree differ:\n%s", out)
	}
	note := w[0].RemoteState().PolicyNote
	if !strings.Contains(note, "allowed_ops adds delete_element") || !strings.Contains(note, "no longer protects Business") {
		t.Fatalf("policy note: %q", note)
	}
}

// The rejection of a plan the remote made stale describes the plan as the person previewed it
// (the archived preview and report), naming the remote commit: not a report made against the
// commit it is dropped from ("Rename X to X", a NOOP warning, model.commit the discarded commit).
func TestSync_StaleReportAsPreviewed(t *testing.T) {
	_, w := lt.Team(t, 2)
	a, b := lt.Ledger(w[0]), lt.Ledger(w[1])
	customer := lt.Elements(t, w[0])[0]
	applyAndSync(t, a, "theirs", lt.Rename(customer, "Client"))
	base, _ := w[1].Head()
	lt.Preview(t, b, "mine", lt.Rename(customer, "Patron"))
	if _, err := lt.Approve(t, b, "mine"); err != nil {
		t.Fatal(err)
	}
	discarded, _ := w[1].Head()
	res, err := b.Sync(context.Background())
	if err != nil || len(res.Dropped) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	remote, _ := w[1].RemoteHead("origin")
	report, _ := os.ReadFile(w[1].Root + "/plans/mine.report.json")
	preview, _ := os.ReadFile(w[1].Root + "/plans/mine.preview.md")
	var r struct {
		Verdict, Reason string
		StaleBy         string `json:"stale_by"`
		Model           plans.ModelInfo
	}
	if err := json.Unmarshal(report, &r); err != nil {
		t.Fatal(err)
	}
	if r.Verdict != ledger.VerdictStale || r.StaleBy != remote || !strings.Contains(r.Reason, store.Short(remote)) {
		t.Fatalf("report: %s", report)
	}
	if r.Model.Commit != base || r.Model.Commit == discarded {
		t.Fatalf("the report speaks of commit %s, want the previewed base %s", r.Model.Commit, base)
	}
	if strings.Contains(string(report), "NOOP") || strings.Contains(string(preview), `"Patron" to "Patron"`) {
		t.Fatalf("a report made from the discarded commit:\n%s\n%s", report, preview)
	}
	if !strings.Contains(string(preview), "Patron") || !strings.Contains(string(preview), "Not applied") {
		t.Fatalf("preview:\n%s", preview)
	}
}

func gitStdin(t *testing.T, dir, in string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// go-git's fetch and push write the remote-tracking ref in place: the file is truncated, then
// written. Read in between, it was taken for "no remote", and a branch with an apply not yet
// pushed looked in sync (AheadBehind 0, no error): the team test's wait for "applied and pushed"
// ended there, while the sync was about to drop that apply and reject its plan, so the plan
// looked lost. The ref file as go-git leaves it in between must never read as in sync.
func TestSync_TrackingRefBeingWrittenIsNotInSync(t *testing.T) {
	_, w := lt.Team(t, 1)
	ws, l := w[0], lt.Ledger(w[0])
	els := lt.Elements(t, ws)
	if _, err := l.Apply(context.Background(), ledger.Request{Name: "client", File: "client.json", Raw: lt.Rename(els[0], "Client")}); err != nil {
		t.Fatal(err)
	}
	if a, _, err := ws.AheadBehind("origin"); err != nil || a != 1 {
		t.Fatalf("ahead %d, %v before the fetch", a, err)
	}
	ref := ws.GitPath(filepath.Join("refs", "remotes", "origin", "main"))
	written, err := os.ReadFile(ref)
	if err != nil {
		t.Fatalf("the tracking ref is not a loose file: %v", err)
	}
	if err := os.WriteFile(ref, nil, 0o644); err != nil { // truncated, not yet written
		t.Fatal(err)
	}
	if rh, err := ws.RemoteHead("origin"); err == nil {
		t.Fatalf("a tracking ref being written read as %q, with no error", rh)
	} else if !errors.Is(err, store.ErrRefBeingWritten) {
		t.Fatal(err)
	}
	if a, _, err := ws.AheadBehind("origin"); err == nil {
		t.Fatalf("a tracking ref being written: ahead %d, no error", a)
	}
	// once written, it reads as it is
	if err := os.WriteFile(ref, written, 0o644); err != nil {
		t.Fatal(err)
	}
	if a, _, err := ws.AheadBehind("origin"); err != nil || a != 1 {
		t.Fatalf("ahead %d, %v", a, err)
	}
}

// editFile rewrites a file of a clone with Go's strings.Replace, once; the test fails when old is
// not there.
func editFile(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s holds no %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A local revert commit archiplan did not write (made by hand with archiplan's trailers, or by an
// archiplan older than the proof) names an apply a colleague pushed with a crafted inverse: one
// more step renames another element to "Mallory". archiplan's own revert refuses that inverse;
// a sync must not make the revert again on top of the remote with it either: the revert is
// dropped, saying why, and nothing of it reaches the remote.
func TestSync_RerevertRefusesACraftedInverse(t *testing.T) {
	bare, w := lt.Team(t, 2)
	me, them := lt.Ledger(w[0]), lt.Ledger(w[1])
	els := lt.Elements(t, w[0])
	customer, desk := els[0], els[1]

	// the colleague's apply, its inverse edited before the push
	raw := lt.Rename(customer, "Client")
	if _, err := them.Apply(context.Background(), ledger.Request{Name: "client", File: "client.json", Raw: raw}); err != nil {
		t.Fatal(err)
	}
	id := ledger.PlanID("client", plans.SHA256(raw))
	editFile(t, filepath.Join(w[1].Root, ".archiplan", "applied", id, "inverse.json"),
		`"steps": [`, `"steps": [{"op": "attr", "id": "`+desk+`", "key": "name", "old": "Mallory"},`)
	lt.Git(t, w[1].Root, "commit", "-q", "--amend", "--no-edit", "-a")
	lt.Git(t, w[1].Root, "push", "-q", "origin", "main")
	crafted := lt.Git(t, w[1].Root, "rev-parse", "HEAD")
	if err := me.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := me.Revert(context.Background(), id); !errors.Is(err, ledger.ErrBadInverse) {
		t.Fatalf("archiplan's revert of the crafted inverse: %v", err)
	}

	// the revert made by hand, with the trailers archiplan writes
	editFile(t, w[0].ModelPath(), `name="Client"`, `name="Customer"`)
	lt.Git(t, w[0].Root, "commit", "-q", "-am", "revert: rename to Client\n\n"+
		store.TrailerRevertsPlan+": "+id+"\n"+store.TrailerRevertsCommit+": "+crafted+"\n"+store.TrailerApprovedBy+": t <t@t>")
	// the remote moves on: the push is rejected and the revert is to be made again on top
	applyAndSync(t, them, "clerk", lt.Rename(els[2], "Clerk"))
	remote := lt.Git(t, bare, "rev-parse", "main")

	res, err := me.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Rebased != 0 || len(res.Dropped) != 1 || res.Dropped[0].PlanID != id ||
		!strings.Contains(res.Dropped[0].Reason, "the revert is not made again") || !strings.Contains(res.Dropped[0].Reason, "not one archiplan wrote") {
		t.Fatalf("%+v", res)
	}
	if got := lt.Git(t, bare, "rev-parse", "main"); got != remote {
		t.Fatalf("the remote moved to %s: %s", got, lt.Git(t, bare, "log", "-1", "--format=%B", "main"))
	}
	if model := lt.Git(t, bare, "show", "main:model.archimate"); strings.Contains(model, "Mallory") {
		t.Fatal("the crafted step reached the remote")
	}
	if model, _ := os.ReadFile(w[0].ModelPath()); strings.Contains(string(model), "Mallory") {
		t.Fatal("the crafted step reached the work tree")
	}
}

// A local apply is made again on top of a colleague's commit written by another tool: the empty
// Strategy folder as an open and a close tag (<folder ...></folder>, where Archi writes
// <folder .../>). The plan (a new Capability, which goes into that folder) applies there and
// touches nothing the colleague changed, but its inverse would write the folder back as Archi
// does: it would not give back the remote's model byte for byte, and a revert could never prove
// it. The sync drops the plan, saying why, rather than push a commit that cannot be reverted.
// (Should archiplan learn to undo that layout exactly, this test fails: find another edit whose
// inverse cannot be proved, since the guard stays.)
func TestSync_ReapplyRefusesAnInverseItCannotProve(t *testing.T) {
	bare, w := lt.Team(t, 1)
	l := lt.Ledger(w[0])
	lt.Preview(t, l, "cap", []byte(`{"schema_version":"2.0","status":"ready","summary":"a capability","actions":[{"op":"create_element","type":"Capability","name":"Self Service"}]}`))
	if _, err := lt.Approve(t, l, "cap"); err != nil {
		t.Fatal(err)
	}
	dir := colleagueClone(t, bare)
	editFile(t, dir+"/model.archimate", `type="strategy"/>`, `type="strategy"></folder>`)
	theirs := colleaguePush(t, dir, "the model written by another tool")

	res, err := l.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Rebased != 0 || len(res.Dropped) != 1 || !strings.Contains(res.Dropped[0].Reason, "its inverse would not undo it exactly") {
		t.Fatalf("%d rebased, %d dropped: %v", res.Rebased, len(res.Dropped), res.Dropped)
	}
	if got := lt.Git(t, bare, "rev-parse", "main"); got != theirs {
		t.Fatalf("a commit reached the remote: %s", lt.Git(t, bare, "log", "-1", "--format=%B", "main"))
	}
	if e, err := l.Inbox().Find("cap"); err != nil || e.State != inbox.Rejected {
		t.Fatalf("the dropped plan is not rejected: %+v %v", e, err)
	}
}

// A committed configuration whose inbox is not a path, or that cannot be read at all: the next
// daemon could not start on it.
func TestSync_RefusesConfigNotAPath(t *testing.T) {
	for why, yaml := range map[string]string{
		".archiplan.yaml sets inbox to something not a path": "inbox: [plans, ../elsewhere]\n",
		".archiplan.yaml sets model to something not a path": "model:\n  path: ../m.archimate\n",
		".archiplan.yaml cannot be read":                     "inbox: [plans\n",
	} {
		t.Run(why, func(t *testing.T) {
			bare, w := lt.Team(t, 1)
			dir := colleagueClone(t, bare)
			os.WriteFile(dir+"/.archiplan.yaml", []byte(yaml), 0o644)
			bad := colleaguePush(t, dir, "configuration")
			refusedPull(t, w[0], lt.Ledger(w[0]), bad, why)
		})
	}
}

// A pull never drops a local commit: with an apply not pushed yet and the remote moved on, the
// branch stays where it is (the sync makes the apply again on top), never moved to the remote.
func TestSync_PullNeverDropsALocalCommit(t *testing.T) {
	bare, w := lt.Team(t, 1)
	l := lt.Ledger(w[0])
	els := lt.Elements(t, w[0])
	if _, err := l.Apply(context.Background(), ledger.Request{Name: "client", File: "client.json", Raw: lt.Rename(els[0], "Client")}); err != nil {
		t.Fatal(err)
	}
	mine, _ := w[0].Head()
	dir := colleagueClone(t, bare)
	os.WriteFile(dir+"/notes.txt", []byte("notes\n"), 0o644)
	colleaguePush(t, dir, "notes")
	if err := l.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	if head, _ := w[0].Head(); head != mine {
		t.Fatalf("the pull moved the branch from the local apply %s to %s", mine, head)
	}
	if ahead, behind, err := w[0].AheadBehind("origin"); ahead != 1 || behind != 1 || err != nil {
		t.Fatalf("ahead %d, behind %d, %v", ahead, behind, err)
	}
	if res, err := l.Sync(context.Background()); err != nil || !res.Pushed || res.Rebased != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if model := lt.Git(t, bare, "show", "main:model.archimate"); !strings.Contains(model, `name="Client"`) {
		t.Fatal("the local apply did not reach the remote")
	}
}

// A colleague pushes a model Archi cannot open (two objects share an id). archiplan pulls it (it
// is the team's model to repair), but previews every plan invalid (MODEL_INVALID) and applies
// none over it.
func TestSync_PulledModelArchiCannotOpen(t *testing.T) {
	bare, w := lt.Team(t, 1)
	l := lt.Ledger(w[0])
	els := lt.Elements(t, w[0])
	dir := colleagueClone(t, bare)
	editFile(t, dir+"/model.archimate", `id="`+els[1]+`"`, `id="`+els[0]+`"`)
	broken := colleaguePush(t, dir, "two objects, one id")
	if err := l.Pull(context.Background()); err != nil {
		t.Fatal(err)
	}
	lt.Preview(t, l, "clerk", lt.Rename(els[2], "Clerk"))
	if rec, err := l.Inbox().Record("clerk"); err != nil || rec.Verdict != "invalid" {
		t.Fatalf("previewed over a model Archi cannot open: %+v %v", rec, err)
	}
	if report, _ := os.ReadFile(w[0].Root + "/plans/clerk.report.json"); !strings.Contains(string(report), string(plans.ModelInvalid)) {
		t.Fatalf("report:\n%s", report)
	}
	res, err := l.Apply(context.Background(), ledger.Request{Name: "direct", File: "direct.json", Raw: lt.Rename(els[2], "Clerk")})
	if !errors.Is(err, ledger.ErrRefused) || res == nil || !strings.Contains(res.Reason, "cannot be opened by Archi") {
		t.Fatalf("applied over a model Archi cannot open: %+v %v", res, err)
	}
	if head, _ := w[0].Head(); head != broken {
		t.Fatalf("a commit was made: %s", head)
	}
}

// issue 35: a delete made again on top of the remote after a lost push race takes along what the
// person's preview named, or nothing: a relationship the remote added to the deleted element is
// one the preview never showed, so the plan is dropped (PLAN_WORDS_CHANGED), not pushed.
func TestSync_ReapplyBindsTheCascade(t *testing.T) {
	bare, w := lt.Team(t, 2)
	a, b := lt.Ledger(w[0]), lt.Ledger(w[1])
	els := lt.Elements(t, w[0])
	desk, service := els[1], els[3] // Rental Desk, Bike Rental (with 3 relationships)
	del := []byte(`{"schema_version":"2.0","status":"ready","summary":"drop the service","actions":[{"op":"delete_element","element_id":"` + service + `"}]}`)
	lt.Preview(t, b, "del", del)
	if _, err := lt.Approve(t, b, "del"); err != nil {
		t.Fatal(err)
	}
	// a pushes first: a fourth relationship of the service
	serve := []byte(`{"schema_version":"2.0","status":"ready","summary":"the service serves the desk","actions":[{"op":"create_relationship","relationship_type":"Serving","source_id":"` +
		service + `","target_id":"` + desk + `"}]}`)
	if res := applyAndSync(t, a, "serve", serve); !res.Pushed {
		t.Fatal("not pushed")
	}
	theirs := lt.Git(t, bare, "rev-parse", "main")
	res, err := b.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Rebased != 0 || len(res.Dropped) != 1 || !strings.Contains(res.Dropped[0].Reason, string(plans.PlanWordsChanged)) {
		t.Fatalf("%d rebased, %d dropped: %+v", res.Rebased, len(res.Dropped), res.Dropped)
	}
	if got := lt.Git(t, bare, "rev-parse", "main"); got != theirs {
		t.Fatalf("the delete reached the remote: %s", lt.Git(t, bare, "log", "-1", "--format=%B", "main"))
	}
}

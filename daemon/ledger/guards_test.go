package ledger_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/plans"
)

func apply(t *testing.T, l *ledger.Ledger, name string, raw []byte) (*ledger.Result, error) {
	t.Helper()
	return l.Apply(context.Background(), ledger.Request{Name: name, File: name + ".json", Raw: raw})
}

// A pre-apply hook runs with the plan's environment (ARCHIPLAN_BASE_COMMIT the HEAD it is applied
// on), and its veto leaves no trace: the model the ledger keeps is the one at HEAD again, so the
// next apply commits its own changes and none of the vetoed plan's.
func TestApply_PreApplyHook(t *testing.T) {
	_, w := lt.Team(t, 1)
	ws := w[0]
	l := lt.Ledger(ws)
	els := lt.Elements(t, ws)
	envFile := filepath.Join(t.TempDir(), "env")
	os.MkdirAll(filepath.Join(ws.Root, "hooks"), 0o755)
	hook := "#!/bin/sh\nenv | grep '^ARCHIPLAN_' | sort > '" + envFile + "'\n" +
		"case \"$ARCHIPLAN_PLAN\" in veto*) echo 'not today'; exit 3;; esac\n"
	if err := os.WriteFile(filepath.Join(ws.Root, "hooks", "pre-apply"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	head := lt.Git(t, ws.Root, "rev-parse", "HEAD")
	res, err := apply(t, l, "veto", lt.Rename(els[0], "Vetoed Name"))
	if !errors.Is(err, ledger.ErrRefused) || !strings.Contains(res.Reason, "vetoed by the pre-apply hook (exit 3)") {
		t.Fatalf("the veto: %v", err)
	}
	env, _ := os.ReadFile(envFile)
	digest := plans.SHA256(lt.Rename(els[0], "Vetoed Name"))
	for _, want := range []string{"ARCHIPLAN_BASE_COMMIT=" + head, "ARCHIPLAN_PLAN=veto.json", "ARCHIPLAN_PLAN_SHA256=" + digest,
		"ARCHIPLAN_PLAN_ID=veto-" + digest[:12], "ARCHIPLAN_MODEL=model.archimate"} {
		if !strings.Contains("\n"+string(env), "\n"+want+"\n") {
			t.Errorf("the hook's environment lacks %s:\n%s", want, env)
		}
	}
	if got := lt.Git(t, ws.Root, "rev-parse", "HEAD"); got != head {
		t.Fatal("a vetoed plan was committed")
	}
	if _, err := apply(t, l, "kept", lt.Rename(els[1], "Kept Name")); err != nil {
		t.Fatal(err)
	}
	model := string(lt.Model(t, ws))
	if strings.Contains(model, "Vetoed Name") {
		t.Fatal("the next apply committed the vetoed plan's change")
	}
	if !strings.Contains(model, "Kept Name") {
		t.Fatal("the next apply's own change is not committed")
	}
	if env, _ := os.ReadFile(envFile); !strings.Contains(string(env), "ARCHIPLAN_BASE_COMMIT="+head+"\n") {
		t.Errorf("the second apply's hook saw another base:\n%s", env)
	}
}

// A preview's commit that history no longer holds (a reset, a rebase, a force-push) counts as a
// change: the approval is stale, even when the commits now on the branch touch nothing it reads.
func TestApprove_HistoryRewrittenIsStale(t *testing.T) {
	_, w := lt.Team(t, 1)
	ws := w[0]
	l := lt.Ledger(ws)
	els := lt.Elements(t, ws)
	if _, err := apply(t, l, "a", lt.Rename(els[2], "Renamed A")); err != nil {
		t.Fatal(err)
	}
	lt.Preview(t, l, "p", lt.Rename(els[0], "Renamed P"))
	lt.Git(t, ws.Root, "reset", "-q", "--hard", "HEAD~1")
	if _, err := apply(t, l, "b", lt.Rename(els[3], "Renamed B")); err != nil {
		t.Fatal(err)
	}
	head := lt.Git(t, ws.Root, "rev-parse", "HEAD")
	res, err := lt.Approve(t, l, "p")
	if !errors.Is(err, ledger.ErrRefused) || res.Verdict != ledger.VerdictStale || !strings.Contains(res.Reason, "history no longer holds") {
		t.Fatalf("an approval previewed on a commit history dropped: %v (%+v)", err, res)
	}
	if lt.Git(t, ws.Root, "rev-parse", "HEAD") != head || strings.Contains(string(lt.Model(t, ws)), "Renamed P") {
		t.Fatal("applied")
	}
}

// An approval holds only for the changes its preview showed, in the preview's words: when the
// plan would now make other changes (here the record says the preview showed others), it is
// stale, never applied.
func TestApprove_OtherChangesThanPreviewIsStale(t *testing.T) {
	_, w := lt.Team(t, 1)
	ws := w[0]
	l := lt.Ledger(ws)
	els := lt.Elements(t, ws)
	lt.Preview(t, l, "p", lt.Rename(els[0], "Renamed P"))
	path := filepath.Join(ws.GitPath("archiplan/inbox"), "p.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	json.Unmarshal(data, &rec)
	changes, _ := rec["changes"].([]any)
	if len(changes) != 1 {
		t.Fatalf("the record's changes: %v", rec["changes"])
	}
	rec["changes"] = []string{"rename something else"}
	data, _ = json.Marshal(rec)
	os.WriteFile(path, data, 0o644)
	head := lt.Git(t, ws.Root, "rev-parse", "HEAD")
	res, err := lt.Approve(t, l, "p")
	if !errors.Is(err, ledger.ErrRefused) || res.Verdict != ledger.VerdictStale || !strings.Contains(res.Reason, "other changes than its preview") {
		t.Fatalf("%v (%+v)", err, res)
	}
	if lt.Git(t, ws.Root, "rev-parse", "HEAD") != head {
		t.Fatal("applied")
	}
}

// A plan is reverted once: a second revert says so, and commits nothing.
func TestRevert_Twice(t *testing.T) {
	_, w := lt.Team(t, 1)
	ws := w[0]
	l := lt.Ledger(ws)
	els := lt.Elements(t, ws)
	res, err := apply(t, l, "r", lt.Rename(els[0], "Renamed R"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Revert(context.Background(), res.PlanID); err != nil {
		t.Fatal(err)
	}
	head := lt.Git(t, ws.Root, "rev-parse", "HEAD")
	if _, err := l.Revert(context.Background(), res.PlanID); !errors.Is(err, ledger.ErrAlreadyReverted) {
		t.Fatalf("a second revert: %v", err)
	}
	if lt.Git(t, ws.Root, "rev-parse", "HEAD") != head {
		t.Fatal("a second revert committed")
	}
}

// An approval binds to the context (scope) it was previewed under: a context changed since, even
// one the plan still fits, withdraws the approval (NAME.json again, previewed anew), never applies.
func TestApprove_ScopeChangedIsPreviewedAgain(t *testing.T) {
	_, w := lt.Team(t, 1)
	ws := w[0]
	l := lt.Ledger(ws)
	els := lt.Elements(t, ws)
	b := l.Inbox()
	if err := b.WriteContext("p", []byte(`{"elements":[{"id":"`+els[0]+`"}]}`)); err != nil {
		t.Fatal(err)
	}
	lt.Preview(t, l, "p", lt.Rename(els[0], "Renamed P"))
	if err := b.WriteContext("p", []byte(`{"elements":[{"id":"`+els[0]+`"},{"id":"`+els[1]+`"}]}`)); err != nil {
		t.Fatal(err)
	}
	head := lt.Git(t, ws.Root, "rev-parse", "HEAD")
	if _, err := lt.Approve(t, l, "p"); !errors.Is(err, ledger.ErrRepreview) {
		t.Fatalf("an approval whose context changed: %v", err)
	}
	if e, err := b.Find("p"); err != nil || e.File != "p.json" {
		t.Fatalf("not withdrawn to p.json: %+v %v", e, err)
	}
	if lt.Git(t, ws.Root, "rev-parse", "HEAD") != head {
		t.Fatal("applied")
	}
}

// An approval to be previewed again is never withdrawn over a NAME.json a planner dropped beside
// it: it is rejected with the inbox's reason instead (audited before NAME.rejected is written),
// and the planner's NAME.json is left as it is.
func TestApprove_NotWithdrawnOverAPlanIsRejected(t *testing.T) {
	_, w := lt.Team(t, 1)
	ws := w[0]
	l := lt.Ledger(ws)
	els := lt.Elements(t, ws)
	b := l.Inbox()
	if err := b.WriteContext("p", []byte(`{"elements":[{"id":"`+els[0]+`"}]}`)); err != nil {
		t.Fatal(err)
	}
	lt.Preview(t, l, "p", lt.Rename(els[0], "Renamed P"))
	if err := b.WriteContext("p", []byte(`{"elements":[{"id":"`+els[0]+`"},{"id":"`+els[1]+`"}]}`)); err != nil {
		t.Fatal(err)
	}
	if err := b.Approve("p"); err != nil {
		t.Fatal(err)
	}
	dropped := lt.Rename(els[1], "Dropped beside")
	if err := b.Submit("p", dropped); err != nil {
		t.Fatal(err)
	}
	e, err := b.Find("p")
	if err != nil || e.State != inbox.Approved {
		t.Fatalf("the approval: %+v %v", e, err)
	}
	res, err := l.Approve(context.Background(), e)
	if !errors.Is(err, ledger.ErrRefused) || !strings.Contains(res.Reason, "changed since the preview") {
		t.Fatalf("an approval that cannot be withdrawn: %v (%+v)", err, res)
	}
	if _, err := os.Stat(b.Path("p.rejected")); err != nil {
		t.Fatalf("not rejected: %v", err)
	}
	if data, err := os.ReadFile(b.Path("p.json")); err != nil || string(data) != string(dropped) {
		t.Fatalf("the planner's p.json is %q (%v)", data, err)
	}
	events, err := ledger.AuditLog(ws)
	if err != nil {
		t.Fatal(err)
	}
	if last := events[len(events)-1]; last.Event != ledger.EventRejected || last.Name != "p" {
		t.Fatalf("the last event: %+v", last)
	}
}

// A commit since the preview that changed what the plan reads or changes makes the approval
// stale, naming that commit; one that touched nothing of it lets the plan be validated again.
func TestApprove_LaterCommitTouchingIsStale(t *testing.T) {
	_, w := lt.Team(t, 1)
	ws := w[0]
	l := lt.Ledger(ws)
	els := lt.Elements(t, ws)
	lt.Preview(t, l, "p", lt.Rename(els[0], "Renamed P"))
	lt.Preview(t, l, "q", lt.Rename(els[1], "Renamed Q"))
	if _, err := apply(t, l, "other", lt.Rename(els[0], "Renamed Other")); err != nil {
		t.Fatal(err)
	}
	res, err := lt.Approve(t, l, "p")
	if !errors.Is(err, ledger.ErrRefused) || res.Verdict != ledger.VerdictStale || !strings.Contains(res.Reason, "(plan: rename to Renamed Other) changed what this plan reads or changes") {
		t.Fatalf("an approval whose element a later commit renamed: %v (%+v)", err, res)
	}
	if res, err := lt.Approve(t, l, "q"); err != nil || res.Revalid == "" {
		t.Fatalf("an approval no later commit touched: %v (%+v)", err, res)
	}
	model := string(lt.Model(t, ws))
	if strings.Contains(model, "Renamed P") || !strings.Contains(model, "Renamed Q") {
		t.Fatal("the model is not the one expected")
	}
}

// A model archiplan found openable, or committed itself, is noted under .git by its blob id, and
// a cold ledger does not check it again; a model a person committed broken is never noted, so a
// cold ledger still checks it and refuses every plan over it.
func TestColdLoad_CleanNote(t *testing.T) {
	_, w := lt.Team(t, 1)
	ws := w[0]
	els := lt.Elements(t, ws)
	blobAt := func() string {
		_, blob, err := ws.HeadBlob()
		if err != nil {
			t.Fatal(err)
		}
		return blob
	}
	first := blobAt()
	if ws.KnownClean(first) {
		t.Fatal("noted clean before anything checked it")
	}
	if _, err := apply(t, lt.Ledger(ws), "one", lt.Rename(els[0], "One")); err != nil {
		t.Fatal(err)
	}
	if !ws.KnownClean(first) || !ws.KnownClean(blobAt()) {
		t.Fatal("neither the checked model nor the applied one is noted clean")
	}
	// a cold ledger applies over the noted model
	if _, err := apply(t, lt.Ledger(ws), "two", lt.Rename(els[1], "Two")); err != nil {
		t.Fatal(err)
	}
	// a person commits a model Archi cannot open: two objects, one id
	editFile(t, ws.ModelPath(), `id="`+els[2]+`"`, `id="`+els[0]+`"`)
	lt.Git(t, ws.Root, "commit", "-q", "-am", "two objects, one id")
	broken := blobAt()
	for i := 0; i < 2; i++ { // each a cold ledger
		res, err := apply(t, lt.Ledger(ws), "three", lt.Rename(els[3], "Three"))
		if !errors.Is(err, ledger.ErrRefused) || res == nil || !strings.Contains(res.Reason, "cannot be opened by Archi") {
			t.Fatalf("cold ledger %d over a broken model: %v %+v", i, err, res)
		}
		if ws.KnownClean(broken) {
			t.Fatal("a broken model was noted clean")
		}
	}
}

// The model an apply leaves in hand is used again only once it is known to read as the bytes the
// apply committed (the comparison a command applying one plan never needs is made then): when it
// does, the next caller gets it as is; when it does not, HEAD's model is read again from git.
func TestApply_KeptModelIsProvedBeforeItIsUsedAgain(t *testing.T) {
	_, w := lt.Team(t, 1)
	ws := w[0]
	l := lt.Ledger(ws)
	els := lt.Elements(t, ws)
	if _, err := apply(t, l, "one", lt.Rename(els[0], "One")); err != nil {
		t.Fatal(err)
	}
	check := l.Unproved()
	if check == nil || !check() {
		t.Fatal("the apply left no comparison of its model with its commit, or a failing one")
	}
	kept, asked := l.Kept(), 0
	l.SetUnproved(func() bool { asked++; return true })
	h, err := l.Head()
	if err != nil {
		t.Fatal(err)
	}
	if h.Model != kept || asked != 1 || l.Unproved() != nil {
		t.Fatalf("a model that reads as its commit: used %v, asked %d times", h.Model == kept, asked)
	}
	if _, err := apply(t, l, "two", lt.Rename(els[1], "Two")); err != nil {
		t.Fatal(err)
	}
	kept = l.Kept()
	l.SetUnproved(func() bool { return false })
	h, err = l.Head()
	if err != nil {
		t.Fatal(err)
	}
	if h.Model == kept {
		t.Fatal("a model that does not read as its commit was used again")
	}
	if got, _ := h.Model.Save(); !bytes.Equal(got, lt.Model(t, ws)) {
		t.Fatal("the model read again is not HEAD's")
	}
}

// A cold ledger parses the work tree's model file while it hashes it, and keeps what it parsed
// only when the file is the blob committed at HEAD: with edits saved but not committed (from
// Archi, say), the model it previews and applies over is HEAD's, read from git, never the file's.
func TestHead_WorkTreeEditsAreNeverTheModel(t *testing.T) {
	_, w := lt.Team(t, 1)
	ws := w[0]
	els := lt.Elements(t, ws)
	committed := lt.Model(t, ws)
	m, err := lt.Ledger(ws).Head()
	if err != nil {
		t.Fatal(err)
	}
	o, _ := m.Model.Object(els[0])
	name := o.Name()
	editFile(t, ws.ModelPath(), `name="`+name+`"`, `name="Saved in Archi, not committed"`)
	h, err := lt.Ledger(ws).Head()
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := h.Model.Object(els[0]); o.Name() != name {
		t.Fatalf("the model at HEAD names %s %q: the work tree's edit", els[0], o.Name())
	}
	if got, _ := h.Model.Save(); !bytes.Equal(got, committed) || !bytes.Equal(h.Data, committed) {
		t.Fatal("the model at HEAD is not the committed one")
	}
}

// A revert whose result Archi could not open is refused, and commits nothing: a plan made an
// element, and a commit made outside archiplan since points a relationship at it without touching
// it, so undoing the plan would leave that relationship naming nothing.
func TestRevert_RefusesAModelArchiCannotOpen(t *testing.T) {
	_, w := lt.Team(t, 1)
	ws := w[0]
	l := lt.Ledger(ws)
	els := lt.Elements(t, ws)
	res, err := apply(t, l, "add", []byte(`{"schema_version":"2.0","status":"ready","summary":"add","actions":[{"op":"create_element","type":"Goal","name":"Newcomer","ref_id":"n"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := archixml.Load(lt.Model(t, ws))
	if err != nil {
		t.Fatal(err)
	}
	var made string
	for _, e := range m.Elements() {
		if e.Name() == "Newcomer" {
			made = e.ID()
		}
	}
	model := string(lt.Model(t, ws))
	at := strings.Index(model, `type="relations">`)
	if made == "" || at < 0 {
		t.Fatalf("no element made (%q) or no relations folder", made)
	}
	at += len(`type="relations">`)
	rel := fmt.Sprintf("\n    <element xsi:type=\"archimate:AssociationRelationship\" id=\"id-outside\" source=%q target=%q/>", els[0], made)
	if err := os.WriteFile(ws.ModelPath(), []byte(model[:at]+rel+model[at:]), 0o644); err != nil {
		t.Fatal(err)
	}
	lt.Git(t, ws.Root, "commit", "-q", "-am", "a relationship to the new element, made in Archi")
	head := lt.Git(t, ws.Root, "rev-parse", "HEAD")
	before := lt.Model(t, ws)
	if _, err := l.Revert(context.Background(), res.PlanID); err == nil || !strings.Contains(err.Error(), "Archi cannot open") {
		t.Fatalf("the revert: %v", err)
	}
	if lt.Git(t, ws.Root, "rev-parse", "HEAD") != head || !bytes.Equal(lt.Model(t, ws), before) {
		t.Fatal("a refused revert committed or wrote the model")
	}
}

// A rejection by hand that is made reports no error (it is what was asked), and leaves the plan
// NAME.rejected with the reason; an approval that cannot be applied is still a refusal.
func TestReject_MadeIsNoError(t *testing.T) {
	_, w := lt.Team(t, 1)
	ws := w[0]
	l := lt.Ledger(ws)
	els := lt.Elements(t, ws)
	e := lt.Preview(t, l, "byhand", lt.Rename(els[0], "Not Wanted"))
	res, err := l.Reject(e, "not this one")
	if err != nil {
		t.Fatalf("a rejection that is made reported %v", err)
	}
	if res.Verdict != ledger.VerdictRejected || res.Reason != "not this one" {
		t.Fatalf("the rejection: %+v", res)
	}
	if got, err := l.Inbox().Find("byhand"); err != nil || got.State != inbox.Rejected {
		t.Fatalf("byhand is %v (%v), not rejected", got.State, err)
	}
	lt.Preview(t, l, "changed", lt.Rename(els[1], "First"))
	if err := os.WriteFile(filepath.Join(ws.Root, "plans", "changed.json"), lt.Rename(els[1], "Second"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := lt.Approve(t, l, "changed"); !errors.Is(err, ledger.ErrRefused) {
		t.Fatalf("an approval of a plan changed after its preview: %v, not refused", err)
	}
}

package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
)

// A commit made by hand, on a colleague's branch merged in, whose message copies an applied
// plan's Plan-Id and an Approved-By trailer (anyone who can commit writes them), and whose
// author's name hides a right-to-left override: the page's history and the object's history
// never show it approved by anyone nor as that plan, and show the override as its code.
func TestLocal_ForgedApproverNotShown(t *testing.T) {
	ws, led, m := exampleLedger(t)
	a, b := m.Elements()[0].ID(), m.Elements()[1].ID()
	res, err := led.Apply(context.Background(), ledger.Request{Name: "a", File: "a.json",
		Raw: []byte(renamePlan("rename a", a, "Renamed a"))})
	if err != nil {
		t.Fatal(err)
	}
	lt.Git(t, ws.Root, "checkout", "-q", "-b", "feature")
	path := filepath.Join(ws.Root, "model.archimate")
	data, _ := os.ReadFile(path)
	name := m.Elements()[1].Name()
	if !strings.Contains(string(data), `name="`+name+`"`) {
		t.Fatalf("no %q in the model", name)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), `name="`+name+`"`, `name="Taken over"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	lt.Git(t, ws.Root, "-c", "user.name=Mallory\u202eecilA", "commit", "-q", "-a", "-m",
		"plan: rename a\n\nPlan-Id: "+res.PlanID+"\nApproved-By: Alice <alice@example.com>")
	forged := strings.TrimSpace(lt.Git(t, ws.Root, "rev-parse", "HEAD"))
	lt.Git(t, ws.Root, "checkout", "-q", "-")
	lt.Git(t, ws.Root, "merge", "-q", "--no-ff", "-m", "Merge feature", "feature")

	l := NewLocal(LocalConfig{Ledger: led})
	lp, err := l.Log(1)
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, e := range lp.Entries {
		if e.Commit != forged {
			continue
		}
		seen = true
		if e.ApprovedBy != "" || e.PlanID != "" || e.Kind != KindOutside {
			t.Errorf("the hand-made commit is shown as %s of plan %q approved by %q", e.Kind, e.PlanID, e.ApprovedBy)
		}
		if strings.ContainsRune(e.Author, '\u202e') {
			t.Errorf("its author %q is shown with the override raw", e.Author)
		}
	}
	if !seen {
		t.Fatalf("the hand-made commit %s is not in the history", forged)
	}
	op, err := l.ObjectHistory(b)
	if err != nil {
		t.Fatal(err)
	}
	seen = false
	for _, e := range op.Entries {
		if e.Commit == forged {
			seen = true
			if e.ApprovedBy != "" || e.PlanID != "" {
				t.Errorf("the object's history shows the hand-made commit as plan %q approved by %q", e.PlanID, e.ApprovedBy)
			}
		}
	}
	if !seen {
		t.Fatalf("the hand-made commit %s is not in %s's history", forged, b)
	}
}

// A planner's words in the audit (a plan's summary, a rejection's reason quoting it) reach the
// history page's events with their hidden characters as codes, as every other text of the page.
func TestLocal_AuditEventsShowHidden(t *testing.T) {
	ws, led, m := exampleLedger(t)
	_ = ws
	if _, err := led.Apply(context.Background(), ledger.Request{Name: "a", File: "a.json",
		Raw: []byte(renamePlan("rename \u202eevil\u202c a", m.Elements()[0].ID(), "Renamed a"))}); err != nil {
		t.Fatal(err)
	}
	events, err := NewLocal(LocalConfig{Ledger: led}).Audit()
	if err != nil {
		t.Fatal(err)
	}
	if len(events) == 0 {
		t.Fatal("no event recorded")
	}
	for _, e := range events {
		if s := fmt.Sprintf("%+v", e); strings.ContainsAny(s, "\u202e\u202c") {
			t.Errorf("an event carries a hidden character raw: %s", s)
		}
	}
}

// A plan applied on a branch that a merge then drops (git merge -s ours keeps the first parent's
// model) is shown undone by that merge, not as standing in the model.
func TestLocal_MergeKeepingOursUndoesSideApply(t *testing.T) {
	ws, led, m := exampleLedger(t)
	lt.Git(t, ws.Root, "checkout", "-q", "-b", "feature")
	res, err := led.Apply(context.Background(), ledger.Request{Name: "a", File: "a.json",
		Raw: []byte(renamePlan("rename a", m.Elements()[0].ID(), "Renamed a"))})
	if err != nil {
		t.Fatal(err)
	}
	lt.Git(t, ws.Root, "checkout", "-q", "-")
	lt.Git(t, ws.Root, "merge", "-q", "-s", "ours", "-m", "Merge feature, keeping ours", "feature")
	merge, _ := ws.Head()
	lp, err := NewLocal(LocalConfig{Ledger: led}).Log(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range lp.Entries {
		if e.Commit == res.Commit {
			if e.Kind != KindApply || e.UndoneBy != merge {
				t.Errorf("the apply the merge dropped: %s, undone by %q, want %s", e.Kind, e.UndoneBy, merge)
			}
			return
		}
	}
	t.Fatalf("the apply %s is not in the history", res.Commit)
}

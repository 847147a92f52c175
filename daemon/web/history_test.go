package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/store"
)

// The history comes in pages, newest first, each read from HEAD only as far as it needs: with one
// entry a page, every page holds the entry a whole reading puts there: a git revert of an apply
// older than what page 1 read is still a git revert, an outside commit that changed the model is
// listed, the reverted apply says who reverted it; past the end a page is empty, and the page
// links and a bad page number work.
func TestLocal_LogPages(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	defer func(n int) { HistoryPageSize = n }(HistoryPageSize)
	HistoryPageSize = 1
	ws, led, m := exampleLedger(t)
	els := m.Elements()
	apply := func(name string, el int) string {
		res, err := led.Apply(context.Background(), ledger.Request{Name: name, File: name + ".json",
			Raw: []byte(renamePlan("rename "+name, els[el].ID(), "Renamed "+name))})
		if err != nil {
			t.Fatal(err)
		}
		return res.Commit
	}
	a := apply("a", 0)
	apply("b", len(els)/2)
	// a commit outside archiplan that changes the model
	path := filepath.Join(ws.Root, "model.archimate")
	data, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), "</archimate:model>", "<purpose>outside</purpose>\n</archimate:model>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	lt.Git(t, ws.Root, "commit", "-q", "-a", "-m", "outside")
	apply("c", len(els)-1)
	lt.Git(t, ws.Root, "revert", "--no-edit", a)
	revert, _ := ws.Head()

	want := []struct {
		kind    EntryKind
		summary string
	}{{KindGitRevert, ""}, {KindApply, "rename c"}, {KindOutside, "outside"}, {KindApply, "rename b"}, {KindApply, "rename a"}, {KindOutside, ""}} // the last: the commit that made the workspace
	l := NewLocal(LocalConfig{Ledger: led})
	for i, w := range want {
		lp, err := l.Log(i + 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(lp.Entries) != 1 || lp.Entries[0].Kind != w.kind || (w.summary != "" && lp.Entries[0].Summary != w.summary) {
			t.Fatalf("page %d: %+v, want one %s %q", i+1, lp.Entries, w.kind, w.summary)
		}
		if lp.Older != (i < len(want)-1) {
			t.Fatalf("page %d: older %v", i+1, lp.Older)
		}
	}
	if lp, _ := l.Log(1); lp.Entries[0].Reverts != a {
		t.Fatalf("the git revert reverts %q, want %s", lp.Entries[0].Reverts, a)
	}
	if lp, _ := l.Log(len(want) - 1); lp.Entries[0].RevertedBy != revert {
		t.Fatalf("apply a reverted by %q, want %s", lp.Entries[0].RevertedBy, revert)
	}
	if lp, _ := l.Log(len(want) + 1); len(lp.Entries) != 0 || lp.Older {
		t.Fatalf("past the end: %+v", lp)
	}

	s, err := New(Config{Backend: NewLocal(LocalConfig{Ledger: led})})
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, string) {
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8765"+s.Base()+path, nil)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	if code, page := get("/history?page=2"); code != http.StatusOK || !strings.Contains(page, `href="`+s.Base()+`/history" rel="prev"`) ||
		!strings.Contains(page, `href="`+s.Base()+`/history?page=3" rel="next"`) || !strings.Contains(page, "rename c") || strings.Contains(page, "rename b") {
		t.Fatalf("page 2: %d\n%s", code, page)
	}
	if code, page := get("/history?page=6"); code != http.StatusOK || strings.Contains(page, `rel="next"`) || !strings.Contains(page, `href="`+s.Base()+`/history?page=5" rel="prev"`) {
		t.Fatalf("page 6: %d\n%s", code, page)
	}
	for _, bad := range []string{"0", "-1", "x"} {
		if code, _ := get("/history?page=" + bad); code != http.StatusBadRequest {
			t.Fatalf("page %s: %d, want 400", bad, code)
		}
	}
}

// exampleLedger is a workspace holding the example model and a ledger on it (no daemon).
func exampleLedger(tb testing.TB) (*store.Workspace, *ledger.Ledger, *archixml.Model) {
	tb.Helper()
	m := archixml.Example()
	seed, _ := m.Save()
	op := store.Signature{Name: "t", Email: "t@t"}
	ws, _, err := store.Init(tb.TempDir(), store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed, Author: op})
	if err != nil {
		tb.Fatal(err)
	}
	return ws, ledger.New(ledger.Config{Workspace: ws, Inbox: inbox.New(filepath.Join(ws.Root, "plans"), ws.GitPath("archiplan/inbox")), ApprovedBy: op}), m
}

// issue 35: what a commit changed, as the history page lists it, shows a planner's invisible
// characters (the tag block, a right-to-left mark) as their codes, as the preview did.
func TestLocal_CommitDiffShowsHidden(t *testing.T) {
	ws, led, m := exampleLedger(t)
	res, err := led.Apply(context.Background(), ledger.Request{Name: "hid", File: "hid.json",
		Raw: []byte(`{"schema_version":"1.0","status":"ready","summary":"rename","actions":[{"op":"rename_element","element_id":"` +
			m.Elements()[0].ID() + `","new_name":"Desk\udb40\udc41\udb40\udc49\u200f"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	c, err := ws.Info(res.Commit)
	if err != nil {
		t.Fatal(err)
	}
	d := NewLocal(LocalConfig{Ledger: led}).diffOf(c)
	if d == nil || len(d.changes) != 1 {
		t.Fatalf("the commit's changes: %+v", d)
	}
	if got := d.changes[0]; !strings.Contains(got, `\u{e0041}\u{e0049}\u{200f}`) || strings.ContainsAny(got, "\U000e0041\u200f") {
		t.Errorf("the change reads %q", got)
	}
}

// A plan applied on a branch that was merged (a colleague's git pull, a pull request's merge)
// is on the history page, once, after the merge that brought it and saying so: the page read the
// first-parent line only and left it out.
func TestLocal_LogMergedBranch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	defer func(n int) { HistoryPageSize = n }(HistoryPageSize)
	HistoryPageSize = 1
	ws, led, m := exampleLedger(t)
	lt.Git(t, ws.Root, "checkout", "-q", "-b", "feature")
	res, err := led.Apply(context.Background(), ledger.Request{Name: "a", File: "a.json",
		Raw: []byte(renamePlan("rename a", m.Elements()[0].ID(), "Renamed a"))})
	if err != nil {
		t.Fatal(err)
	}
	lt.Git(t, ws.Root, "checkout", "-q", "-")
	path := filepath.Join(ws.Root, "model.archimate")
	data, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), "</archimate:model>", "<purpose>outside</purpose>\n</archimate:model>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	lt.Git(t, ws.Root, "commit", "-q", "-a", "-m", "outside")
	lt.Git(t, ws.Root, "merge", "-q", "--no-ff", "-m", "Merge feature", "feature")
	merge, _ := ws.Head()
	l := NewLocal(LocalConfig{Ledger: led})
	var kinds []EntryKind
	found := 0
	for page := 1; ; page++ {
		lp, err := l.Log(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range lp.Entries {
			kinds = append(kinds, e.Kind)
			if e.Commit == res.Commit {
				found++
				if e.Kind != KindApply || e.MergedBy != merge || e.Summary != "rename a" {
					t.Errorf("the merged apply: %+v", e)
				}
			}
		}
		if !lp.Older {
			break
		}
	}
	if found != 1 {
		t.Fatalf("the apply merged from a branch listed %d times; the page lists %v", found, kinds)
	}
}

// A plan applied again by a plain git revert of its revert shows as such on the history page,
// with a Revert button while it stands; the plan's next revert (which names the first apply)
// counts as reverting it, and the button goes.
func TestLocal_GitReapplyOnThePage(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ws, led, m := exampleLedger(t)
	res, err := led.Apply(context.Background(), ledger.Request{Name: "a", File: "a.json",
		Raw: []byte(renamePlan("rename a", m.Elements()[0].ID(), "Renamed a"))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := led.Revert(context.Background(), res.PlanID); err != nil {
		t.Fatal(err)
	}
	lt.Git(t, ws.Root, "revert", "--no-edit", "HEAD")
	reapply, _ := ws.Head()
	s, err := New(Config{Backend: NewLocal(LocalConfig{Ledger: led})})
	if err != nil {
		t.Fatal(err)
	}
	page := func() string {
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8765"+s.Base()+"/history", nil)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		return rec.Body.String()
	}
	p := page()
	if !strings.Contains(p, `badge k-git-reapply`) || !strings.Contains(p, "applies the plan again") ||
		!strings.Contains(p, `data-revert="`+res.PlanID+`"`) {
		t.Fatalf("the reapply is not shown as one, revertable:\n%s", p)
	}
	if _, err := led.Revert(context.Background(), res.PlanID); err != nil {
		t.Fatal(err)
	}
	again, _ := ws.Head()
	lp, err := NewLocal(LocalConfig{Ledger: led}).Log(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range lp.Entries {
		if e.Commit == reapply && e.RevertedBy != again {
			t.Fatalf("the reapply is reverted by %q, want %s", e.RevertedBy, again)
		}
	}
	if p := page(); strings.Contains(p, `data-revert="`+res.PlanID+`"`) {
		t.Fatalf("a Revert button for a plan reverted again:\n%s", p)
	}
}

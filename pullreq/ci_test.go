package pullreq_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/forge"
	"github.com/archiplan/archiplan/pullreq"
	"github.com/archiplan/archiplan/store"
)

// checkout is the CI's checkout of a branch of the forge's repository.
func checkout(t *testing.T, bare, branch string) (string, *store.Workspace) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ci")
	ledgertest.Git(t, filepath.Dir(dir), "clone", "-q", "-b", branch, bare, dir)
	ws, err := store.Open(dir, "model.archimate")
	if err != nil {
		t.Fatal(err)
	}
	return dir, ws
}

func runCI(t *testing.T, ci *pullreq.CI) *pullreq.CIResult {
	t.Helper()
	res, err := ci.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCI_PlanPreviewOneComment: archiplan ci on a plan's pull request previews the plan as the
// inbox would, writes it as one comment (edited in place on the next push, never a second one),
// sets archiplan/preview, and says invalid (failure) when a push makes the plan invalid; pictures
// on the branch that are not archiplan's drawing are not shown.
func TestCI_PlanPreviewOneComment(t *testing.T) {
	w := newWalk(t)
	st := w.open("ci-1", ledgertest.Rename(w.ids[0], "From CI"))
	dir, ws := checkout(t, w.bare, st.Branch)
	ci := &pullreq.CI{Workspace: ws, Forge: w.forge, Base: st.Base, Number: st.Number}
	res := runCI(t, ci)
	if !res.Valid() || res.Plans["ci-1"] != "valid" || res.Model {
		t.Fatalf("%+v", res)
	}
	comment := w.forge.comment(st.Number, pullreq.CommentMarker)
	if !strings.HasPrefix(comment, "**archiplan**: valid") || !strings.Contains(comment, "/raw/commit/"+st.Head+"/.archiplan/proposed/ci-1/ci-1.view-1.after.svg") {
		t.Errorf("comment:\n%s", comment)
	}
	if s := w.forge.status(st.Head, pullreq.StatusContext); s.State != forge.StatusSuccess {
		t.Errorf("status %+v", s)
	}
	// a push: a picture drawn by hand
	if err := os.WriteFile(filepath.Join(dir, ".archiplan/proposed/ci-1/ci-1.view-1.after.svg"), []byte("<svg><text>all fine</text></svg>"), 0o644); err != nil {
		t.Fatal(err)
	}
	ledgertest.Git(t, dir, "commit", "-qam", "push")
	ledgertest.Git(t, dir, "push", "-q", "origin", st.Branch)
	if res = runCI(t, ci); !res.Valid() {
		t.Fatalf("%+v", res)
	}
	comment = w.forge.comment(st.Number, pullreq.CommentMarker)
	if !strings.Contains(comment, "not archiplan's drawing") || strings.Contains(comment, "ci-1.view-1.after.svg]: http") {
		t.Errorf("a picture not archiplan's is shown:\n%s", comment)
	}
	// another: the plan names an element that does not exist
	plan := filepath.Join(dir, ".archiplan/proposed/ci-1/ci-1.json")
	if err := os.WriteFile(plan, ledgertest.Rename("id-doesnotexist", "x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ledgertest.Git(t, dir, "commit", "-qam", "push")
	ledgertest.Git(t, dir, "push", "-q", "origin", st.Branch)
	head := ledgertest.Git(t, dir, "rev-parse", "HEAD")
	res = runCI(t, ci)
	if res.Valid() || res.Plans["ci-1"] != "invalid" {
		t.Fatalf("an invalid plan passed: %+v", res)
	}
	if s := w.forge.status(head, pullreq.StatusContext); s.State != forge.StatusFailure {
		t.Errorf("status %+v", s)
	}
	if w.forge.posts != 1 {
		t.Errorf("%d comments posted: one, edited in place, was expected", w.forge.posts)
	}
	comment = w.forge.comment(st.Number, pullreq.CommentMarker)
	if !strings.HasPrefix(comment, "**archiplan**: not valid") || !strings.Contains(comment, "REF\\_NOT\\_FOUND") && !strings.Contains(comment, "REF_NOT_FOUND") {
		t.Errorf("comment:\n%s", comment)
	}
}

// TestCI_HandEdit: a pull request that edits the model by hand gets the review of the range and
// what Archi's validator newly finds; a new error makes it not valid.
func TestCI_HandEdit(t *testing.T) {
	w := newWalk(t)
	dir := filepath.Join(t.TempDir(), "hand")
	ledgertest.Git(t, filepath.Dir(dir), "clone", "-q", w.bare, dir)
	base := ledgertest.Git(t, dir, "rev-parse", "HEAD")
	ledgertest.Git(t, dir, "checkout", "-q", "-b", "hand")
	model := filepath.Join(dir, "model.archimate")
	data, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `name="Customer"`, `name="Client &lt;b&gt;"`, 1)
	if edited == string(data) {
		t.Fatal("no Customer in the example model")
	}
	if err := os.WriteFile(model, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	ledgertest.Git(t, dir, "commit", "-qam", "hand edit")
	ledgertest.Git(t, dir, "push", "-q", "origin", "hand")
	ws, err := store.Open(dir, "model.archimate")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := w.forge.OpenPR(context.Background(), forge.NewPR{Title: "hand", Head: "hand", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	res := runCI(t, &pullreq.CI{Workspace: ws, Forge: w.forge, Base: base, Number: pr.Number})
	if !res.Model || !res.Valid() {
		t.Fatalf("%+v", res)
	}
	comment := w.forge.comment(pr.Number, pullreq.CommentMarker)
	if !strings.Contains(comment, "edited by hand") || !strings.Contains(comment, `"Client &lt;b&gt;"`) || strings.Contains(comment, "<b>") {
		t.Errorf("comment:\n%s", comment)
	}
}

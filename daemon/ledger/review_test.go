package ledger_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// A commit made outside archiplan that deletes an element drawn on a view and adds a view is
// reviewed as a plan's preview shows such changes: the element's figure removed (faint, on the
// before side only) with its legend line, the new view drawn whole on its after side, both in
// the words; a range given wrong is refused as such.
func TestReviewRange_RemovedAndAddedViews(t *testing.T) {
	dir := t.TempDir()
	seed, _ := archixml.Example().Save()
	ws, _, err := store.Init(dir, store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed, Author: ledgertest.Signature})
	if err != nil {
		t.Fatal(err)
	}
	m := archixml.Example()
	desk := m.Named("BusinessRole", "Rental Desk")[0].ID()
	customer := m.Named("BusinessActor", "Customer")[0].ID()
	figure := ""
	for _, ref := range m.ReferencesTo(desk) {
		if ref.Kind() == archixml.KindDiagramObject {
			figure = ref.ID()
		}
	}
	if _, err := m.DeleteElement(desk); err != nil {
		t.Fatal(err)
	}
	v, err := m.CreateView("Customers", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.AddToView(v, customer, nil); err != nil {
		t.Fatal(err)
	}
	out, err := m.Save()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "model.archimate"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	ledgertest.Git(t, dir, "commit", "-q", "-am", "edited in Archi")

	r, err := ledger.ReviewRange(ws, "HEAD", "r")
	if err != nil {
		t.Fatal(err)
	}
	var removed, added bool
	for _, c := range r.Views {
		removed = removed || c.Object == figure && c.What == plans.ViewRemoved
		added = added || c.View == v && c.Object == "" && c.What == plans.ViewAdded
	}
	if !removed || !added {
		t.Fatalf("the review's view changes miss the removed figure (%v) or the added view (%v): %+v", removed, added, r.Views)
	}
	md := string(r.Markdown)
	for _, want := range []string{`removed Business Role "Rental Desk"`, `added view "Customers"`, "### Customers\n\n**before:** (none)\n",
		"Business Role “Rental Desk”: removed (change "} {
		if !strings.Contains(md, want) {
			t.Errorf("the review does not say %q:\n%s", want, md)
		}
	}
	found := false
	for f, data := range r.Pictures {
		if strings.HasSuffix(f, ".before.svg") && strings.Contains(string(data), `data-id="`+figure+`"`) {
			found = strings.Contains(string(data), `opacity="0.35" data-mark="removed"`)
		}
	}
	if !found {
		t.Errorf("no before picture shows the removed figure faint: %v", keys(r.Pictures))
	}
	for _, bad := range []string{"..HEAD", "HEAD..", "nope", "HEAD~5"} {
		if _, err := ledger.ReviewRange(ws, bad, "r"); !errors.Is(err, ledger.ErrBadRange) {
			t.Errorf("review %q: %v, want ErrBadRange", bad, err)
		}
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

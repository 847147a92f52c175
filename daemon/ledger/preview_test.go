package ledger

import (
	"testing"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/plans"
)

// sameChanges: an apply after HEAD moved holds only when the plan would make, in words, the very
// changes its preview showed, and create the very ids.
func TestSameChanges(t *testing.T) {
	o := &plans.Outcome{Results: []plans.ActionResult{
		{Description: "rename Customer to Client", Created: nil},
		{Description: "add Serving from Desk to Client", Created: []string{"id-1"}},
	}}
	rec := func(created []string, changes ...string) *inbox.Record {
		return &inbox.Record{Created: created, Changes: changes, Objects: make([]string, len(o.Results))}
	}
	if !sameChanges(rec([]string{"id-1"}, "rename Customer to Client", "add Serving from Desk to Client"), o) {
		t.Fatal("the same changes are not the same")
	}
	for name, r := range map[string]*inbox.Record{
		"other words":     rec([]string{"id-1"}, "rename Customer to Patron", "add Serving from Desk to Client"),
		"other order":     rec([]string{"id-1"}, "add Serving from Desk to Client", "rename Customer to Client"),
		"one change less": rec([]string{"id-1"}, "rename Customer to Client"),
		"one change more": rec([]string{"id-1"}, "rename Customer to Client", "add Serving from Desk to Client", "delete Desk"),
		"other ids":       rec([]string{"id-2"}, "rename Customer to Client", "add Serving from Desk to Client"),
		"no ids":          rec(nil, "rename Customer to Client", "add Serving from Desk to Client"),
	} {
		if sameChanges(r, o) {
			t.Errorf("%s: taken for the same changes", name)
		}
	}
}

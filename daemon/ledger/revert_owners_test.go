package ledger_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/policy"
)

// A revert is held to the owners (policy/owners.yaml) as an apply of the same changes: a plan
// that deleted the customer (a Business element, and by cascade its Serving relationship) is
// reverted only by a person the owners of what the revert puts back name; else it is refused
// with its code and nothing is committed.
func TestRevert_HeldToTheOwners(t *testing.T) {
	for _, tc := range []struct{ name, owns string }{
		{"the element's layer", "layer: Business"},
		{"a relationship deleted by cascade", "type: ServingRelationship"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seed, err := archixml.Example().Save()
			if err != nil {
				t.Fatal(err)
			}
			ws := workspaceWith(t, seed)
			l := lt.Ledger(ws)
			plan := `{"schema_version":"2.0","status":"ready","summary":"Drop the customer","actions":[{"op":"delete_element","element_id":"id-59a96df4cd3e24d3da41e81a8c7d1335"}]}`
			res, err := l.Apply(context.Background(), ledger.Request{Name: "drop", File: "drop.json", Raw: []byte(plan)})
			if err != nil {
				t.Fatal(err)
			}
			own := func(who string) {
				t.Helper()
				if err := os.MkdirAll(filepath.Join(ws.Root, policy.Dir), 0o755); err != nil {
					t.Fatal(err)
				}
				owners := "owners:\n  - name: theirs\n    " + tc.owns + "\n    from: [" + who + "]\n"
				if err := os.WriteFile(filepath.Join(ws.Root, policy.Dir, policy.OwnersFile), []byte(owners), 0o644); err != nil {
					t.Fatal(err)
				}
				r := policy.Load(ws.Root)
				if r.Err() != nil {
					t.Fatal(r.Err())
				}
				l.SetOptions(plans.Options{Rules: r})
			}
			own("carol")
			head, _ := ws.Head()
			_, err = l.Revert(context.Background(), res.PlanID)
			if !errors.Is(err, ledger.ErrRevertApprovals) || !strings.Contains(err.Error(), "REVERT_NEEDS_APPROVALS") || !strings.Contains(err.Error(), "carol") {
				t.Fatalf("a revert of what carol owns, by %s: %v", inbox.OSUser(), err)
			}
			if now, _ := ws.Head(); now != head {
				t.Fatal("the refused revert committed")
			}
			own(inbox.OSUser())
			if _, err := l.Revert(context.Background(), res.PlanID); err != nil {
				t.Fatalf("a revert by its owner: %v", err)
			}
		})
	}
}

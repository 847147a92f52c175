package web

import (
	"context"
	"errors"
	"testing"

	"github.com/archiplan/archiplan/daemon/ledger"
)

// Where a revert must go through a pull request (deliver: pull-request), the page's Revert
// commits nothing and says why: the branch stays where the apply left it.
func TestLocal_RevertRefused(t *testing.T) {
	ws, led, _ := exampleLedger(t)
	raw := `{"schema_version":"2.0","status":"ready","summary":"rename","actions":[{"op":"rename_element","element_id":"` + customer + `","new_name":"Client"}]}`
	res, err := led.Apply(context.Background(), ledger.Request{Name: "p", File: "p.json", Raw: []byte(raw)})
	if err != nil {
		t.Fatal(err)
	}
	why := errors.New("REVERT_BY_PULL_REQUEST: a revert is a pull request here")
	local := NewLocal(LocalConfig{Ledger: led, RevertRefused: why})
	if _, err := local.Revert(res.PlanID); !errors.Is(err, why) {
		t.Fatalf("Revert: %v", err)
	}
	if head, _ := ws.Head(); head != res.Commit {
		t.Fatalf("HEAD moved to %s: the page reverted", head)
	}
}

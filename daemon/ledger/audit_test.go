package ledger_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/store"
)

// issue 35: an audit event is bounded whatever a planner wrote: a plan near the inbox's cap, a
// hook's long output, thousands of questions are recorded within MaxAuditEvent, each cut said.
func TestAudit_EventIsBounded(t *testing.T) {
	_, w := lt.Team(t, 1)
	huge := strings.Repeat("x", 4<<20)
	many, ctl := make([]string, 5000), make([]string, 5000)
	for i := range many {
		many[i], ctl[i] = strings.Repeat("q", 2000), strings.Repeat("\x01", 8<<10)
	}
	for _, e := range []ledger.Event{
		{Event: ledger.EventReceived, Name: "big", SHA256: "abc", Plan: huge, Reason: huge, Questions: many, Answers: many},
		// control characters are six bytes each once escaped: the texts go, the facts stay
		{Event: ledger.EventRejected, Name: "ctl", SHA256: "def", Summary: ctl[0], Errors: ctl, Warnings: ctl},
	} {
		if err := ledger.Audit(w[0], nil, e); err != nil {
			t.Fatal(err)
		}
	}
	records, err := w[0].AuditRecords()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if len(r.Data) > ledger.MaxAuditEvent {
			t.Errorf("an audit record of %d bytes, over %d", len(r.Data), ledger.MaxAuditEvent)
		}
	}
	events, err := ledger.AuditLog(w[0])
	if err != nil || len(events) != 2 {
		t.Fatalf("%d events, %v", len(events), err)
	}
	if e := events[0]; !strings.Contains(e.Plan, "kept by its sha256 abc only") || !strings.Contains(e.Reason, "bytes more, not kept") ||
		!strings.Contains(e.Questions[len(e.Questions)-1], "more, not kept") {
		t.Errorf("the cuts are not said: plan %.80q, reason ends %q", e.Plan, e.Reason[len(e.Reason)-40:])
	}
	if e := events[1]; e.SHA256 != "def" || !strings.Contains(e.Reason, "its texts are not kept") {
		t.Errorf("the escaped event: %+v", e.Reason)
	}
}

// An approval syncs as git's config says, the approval it writes down before its commit too
// (store's Syncing): with git's default nothing (it made two fsyncs for that note alone, the only
// ones of an approval), with core.fsync = committed its files.
func TestApprove_SyncsAsGitIsConfigured(t *testing.T) {
	home := t.TempDir() // no user config of the machine's may decide
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	for _, synced := range []bool{false, true} {
		_, w := lt.Team(t, 1)
		ws := w[0]
		if synced {
			lt.Git(t, ws.Root, "config", "core.fsync", "committed")
			var err error
			if ws, err = store.Open(ws.Root, "model.archimate"); err != nil { // the config is read once per workspace
				t.Fatal(err)
			}
		}
		l := lt.Ledger(ws)
		lt.Preview(t, l, "p", lt.Rename(lt.Elements(t, ws)[0], "Synced"))
		before := store.Syncs()
		if res, err := lt.Approve(t, l, "p"); err != nil || res.Commit == "" {
			t.Fatalf("core.fsync %v: %v", synced, err)
		}
		if n := store.Syncs() - before; (n > 0) != synced {
			t.Errorf("core.fsync committed %v: the approval made %d syncs", synced, n)
		}
	}
}

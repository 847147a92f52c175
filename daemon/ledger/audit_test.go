package ledger_test

import (
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
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

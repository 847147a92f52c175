package ledger_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/policy"
)

// freezeRule denies every change from 2030 on (a change freeze) and warns of it from the noon
// before: read from the time the rules are judged at (time.now_ns), which the test sets through
// the rules' clock.
const freezeRule = `package policy

deny contains f if {
	time.now_ns() >= time.parse_rfc3339_ns("2030-01-01T00:00:00Z")
	f := {"rule": "change-freeze", "message": "the model is frozen for the year's end"}
}

warn contains f if {
	time.now_ns() >= time.parse_rfc3339_ns("2029-12-31T12:00:00Z")
	f := {"rule": "freeze-soon", "message": "the change freeze begins at midnight"}
}
`

// A rule reading the time is judged again at the apply: a warning that came, or a freeze that
// began, between the preview and its approval withdraws the approval (POLICY_VERDICT_CHANGED, the
// plan previewed again), nothing is committed; a preview made during the freeze (denied) is not
// applied when the freeze is over, either. On mergetest the approval was committed under a warning
// its preview did not show, and an approval in the freeze was rejected with the step to fix the
// plan (resubmit), though the plan is not at fault.
func TestApprove_RulesJudgedAgain(t *testing.T) {
	seed, err := archixml.Example().Save()
	if err != nil {
		t.Fatal(err)
	}
	ws := workspaceWith(t, seed)
	if err := os.MkdirAll(filepath.Join(ws.Root, policy.Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws.Root, policy.Dir, "freeze.rego"), []byte(freezeRule), 0o644); err != nil {
		t.Fatal(err)
	}
	r := policy.Load(ws.Root)
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	before := time.Date(2029, 12, 31, 0, 0, 0, 0, time.UTC)
	var now atomic.Pointer[time.Time]
	set := func(t time.Time) { now.Store(&t) }
	set(before)
	r.Now = func() time.Time { return *now.Load() }
	l := lt.Ledger(ws)
	l.SetOptions(plans.Options{Rules: r})
	plan := []byte(`{"schema_version":"2.0","status":"ready","summary":"A portal","actions":[{"op":"create_element","type":"Application Component","name":"Portal"}]}`)

	lt.Preview(t, l, "portal", plan)
	rec, err := l.Inbox().Record("portal")
	if err != nil || rec.Verdict != plans.VerdictValid {
		t.Fatalf("before the freeze the preview says %+v %v", rec, err)
	}
	head := lt.Git(t, ws.Root, "rev-parse", "HEAD")
	previewAgain := func() *inbox.Record {
		t.Helper()
		e, err := l.Inbox().Find("portal")
		if err != nil || e.State != inbox.Pending {
			t.Fatalf("the approval is not withdrawn to be previewed again: %+v %v", e, err)
		}
		c, err := l.Check(e)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := l.Publish(c)
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	set(time.Date(2029, 12, 31, 18, 0, 0, 0, time.UTC)) // the warning came
	res, err := lt.Approve(t, l, "portal")
	if !errors.Is(err, ledger.ErrRepreview) || !strings.Contains(err.Error(), string(plans.PolicyVerdictChanged)) || !strings.Contains(err.Error(), "freeze-soon") {
		t.Fatalf("an approval applied under a warning its preview did not show: %v (%+v)", err, res)
	}
	if got := lt.Git(t, ws.Root, "rev-parse", "HEAD"); got != head {
		t.Fatal("committed under a warning the person never read")
	}
	if rec := previewAgain(); rec.Verdict != plans.VerdictValid || rec.Rules == "" {
		t.Fatalf("previewed again, the warning is not in its record: %+v", rec)
	}
	set(time.Date(2030, 1, 2, 0, 0, 0, 0, time.UTC)) // the freeze began
	res, err = lt.Approve(t, l, "portal")
	if !errors.Is(err, ledger.ErrRepreview) || !strings.Contains(err.Error(), string(plans.PolicyVerdictChanged)) ||
		!strings.Contains(err.Error(), "change-freeze") || !strings.Contains(res.Reason, "previews the plan again") {
		t.Fatalf("an approval applied in the freeze its preview did not show: %v (%+v)", err, res)
	}
	if got := lt.Git(t, ws.Root, "rev-parse", "HEAD"); got != head {
		t.Fatal("committed against a verdict the person never read")
	}

	// previewed again in the freeze: denied; approved by hand after it, still not applied
	if rec := previewAgain(); rec.Verdict != plans.VerdictInvalid {
		t.Fatalf("in the freeze the preview says %+v", rec)
	}
	set(before) // the freeze is over (the clock as at the first preview): the rules allow it again
	if err := os.Rename(filepath.Join(ws.Root, "plans", "portal.json"), filepath.Join(ws.Root, "plans", "portal.approved")); err != nil {
		t.Fatal(err)
	}
	e, _ := l.Inbox().Find("portal")
	if _, err := l.Approve(t.Context(), e); err == nil {
		t.Fatal("a plan previewed as denied was applied because the rules allow it now")
	}
	if got := lt.Git(t, ws.Root, "rev-parse", "HEAD"); got != head {
		t.Fatal("a denied preview was committed")
	}
}

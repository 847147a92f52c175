package web

import (
	"context"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A retry of plan bytes applied before waits in the inbox (PLAN_APPLIED_BEFORE: revert first);
// the person reverts the apply. Until the daemon had previewed the retry again on the new HEAD,
// the page still said "revert first" and refused Approve with that step, though the revert was
// made. The page now answers as of HEAD, as archiplan approve does: the model changed since the
// preview, and the step is the one approve gives. Held in the daemon's lock, so that no preview
// comes in between (on mergetest the page says the old step).
func TestServer_RevertedPageAsOfHead(t *testing.T) {
	e := newEnv(t)
	plan := `{"schema_version":"2.0","status":"ready","summary":"Add a kiosk","actions":[{"op":"create_element","type":"ApplicationComponent","name":"Kiosk"}]}`
	e.approved("a", plan)
	e.drop("b.json", plan)
	e.previewed("b")
	c := e.client()
	page := func() string {
		t.Helper()
		res, err := c.Get(e.base + "/plan/b")
		if err != nil {
			t.Fatal(err)
		}
		return html.UnescapeString(body(t, res))
	}
	id := regexp.MustCompile(`already applied as (a-[0-9a-f]{12})`).FindStringSubmatch(page())
	if id == nil {
		t.Fatalf("b's page does not name a's apply:\n%s", page())
	}
	err := e.daemon.Exclusive(func() error {
		if _, err := e.daemon.Ledger().Revert(context.Background(), id[1]); err != nil {
			return err
		}
		b := page()
		if strings.Contains(b, "already applied as a-") || !strings.Contains(b, "Next: the model changed since this preview (a revert since may have undone them): archiplan resubmit b") {
			t.Errorf("after the revert the page says the step of before it:\n%s", b)
		}
		rec, err := e.local.box.Record("b")
		if err != nil {
			return err
		}
		_, blob, err := e.ws.HeadBlob()
		if err != nil {
			return err
		}
		// the page's Approve asks the same (its POST waits for this lock, so it is asked here)
		if err := rec.ApprovableAt("b", blob); err == nil || strings.Contains(err.Error(), "already applied as a-") {
			t.Errorf("Approve after the revert: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A planner's directory at a plan's preview's name: the daemon refuses it (INBOX_NAME_TAKEN) and
// writes nothing; the page's inbox list said only "not previewed yet". It now gives the reason,
// in the daemon's words (on mergetest: no reason).
func TestServer_InboxSaysNameTaken(t *testing.T) {
	e := newEnv(t)
	if err := os.Mkdir(filepath.Join(e.inbox, "p.preview.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.drop("p.json", `{"schema_version":"2.0","status":"ready","summary":"s","actions":[]}`)
	waitFor(t, "the inbox list says why p waits", func() bool {
		list, err := e.srv.cfg.Backend.Inbox()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range list {
			if p.Name == "p" && strings.HasPrefix(p.Note, "INBOX_NAME_TAKEN: p.preview.md cannot be written") {
				return true
			}
		}
		return false
	})
}

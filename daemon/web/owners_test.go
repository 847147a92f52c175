package web

import (
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/policy"
)

// A plan that needs two owners' approvals, approved from the page: the page says whose approvals
// are missing; an approval counts as the user the daemon runs as, never as the name typed, so a
// second one under another name is refused and the plan waits; the page says the approval was
// recorded, not that the plan is applied (on old code the typed names alice and bob counted as
// two owners and the plan was approved).
func TestServer_OwnersApprovals(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join(e.ws.Root, policy.Dir)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	owners := "owners:\n  - name: business-two\n    layer: Business\n    approvals: 2\n"
	if err := os.WriteFile(filepath.Join(dir, policy.OwnersFile), []byte(owners), 0o644); err != nil {
		t.Fatal(err)
	}
	rules := policy.Load(e.ws.Root)
	if rules == nil || rules.Err() != nil {
		t.Fatal("the owners do not load")
	}
	e.local.led.SetOptions(plans.Options{Rules: rules})
	e.drop("r.json", renamePlan("Rename the customer", customer, "Client"))
	e.previewed("r")
	pg, err := e.srv.cfg.Backend.Plan("r")
	if err != nil {
		t.Fatal(err)
	}
	if pg.Waiting != "approved by nobody yet; waits for 2 more from anyone (business-two)" {
		t.Fatalf("the page's plan says %q", pg.Waiting)
	}
	c := e.client()
	res, err := c.Get(e.base + "/plan/r")
	if err != nil {
		t.Fatal(err)
	}
	if b := html.UnescapeString(body(t, res)); !strings.Contains(b, pg.Waiting) {
		t.Errorf("the plan page does not say whose approvals are missing:\n%s", b)
	}
	approve := func(reviewer string) (int, string) {
		res := e.post(c, "/plan/r/approve", url.Values{"csrf": {e.srv.csrf}, "preview_sha256": {pg.PreviewSHA256}, "reviewer": {reviewer}}, nil)
		return res.StatusCode, html.UnescapeString(body(t, res))
	}
	code, b := approve("alice")
	if want := "approved by " + inbox.OSUser() + "; waits for 1 more from anyone (business-two)"; code != http.StatusOK || !strings.Contains(b, want) || strings.Contains(b, "applies it now") {
		t.Fatalf("the first approval: %d, want %q in\n%s", code, want, b)
	}
	code, b = approve("bob")
	if code == http.StatusOK || !strings.Contains(b, "approved by this person already") {
		t.Fatalf("a second approval from the same page under another name: %d\n%s", code, b)
	}
	if !e.exists("r.json") || e.exists("r.approved") {
		t.Fatal("one page's two typed names approved the plan")
	}
}

package web

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"
)

// A planner drops again the very bytes of a plan applied before (a retry), and later a person
// removes the archive's record of that apply by a commit. The page offered Approve for the first
// ("Approved: the daemon applies it now, as one commit", and it applied nothing) and said "let
// the planner fix it" of the second, whose step is to revert first. The page now offers no
// Approve for plan bytes applied before, says the step the preview says, and a POST of Approve
// is refused with that step, as archiplan approve refuses it; nothing is renamed.
func TestServer_AppliedBeforeNotApproved(t *testing.T) {
	e := newEnv(t)
	plan := `{"schema_version":"2.0","status":"ready","summary":"Add a kiosk","actions":[{"op":"create_element","type":"ApplicationComponent","name":"Kiosk"}]}`
	e.approved("a", plan)
	c := e.client()
	page := func(name string) string {
		t.Helper()
		res, err := c.Get(e.base + "/plan/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return html.UnescapeString(body(t, res))
	}
	approve := func(name, code, words string) {
		t.Helper()
		pg, err := e.srv.cfg.Backend.Plan(name)
		if err != nil {
			t.Fatal(err)
		}
		res := e.post(c, "/plan/"+name+"/approve", url.Values{"csrf": {e.srv.csrf}, "preview_sha256": {pg.PreviewSHA256}},
			map[string]string{"Accept": "application/json"})
		b := body(t, res)
		var got struct {
			OK      bool   `json:"ok"`
			Code    string `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal([]byte(b), &got); err != nil || got.OK || got.Code != code || !strings.Contains(got.Message, words) {
			t.Errorf("approve %s: %s %q, want refused %s saying %q", name, res.Status, b, code, words)
		}
		if res.StatusCode != http.StatusConflict {
			t.Errorf("approve %s: %s, want 409", name, res.Status)
		}
		if !e.exists(name+".json") || e.exists(name+".approved") {
			t.Fatalf("a refused approval of %s renamed it", name)
		}
	}

	// the same bytes again, their changes standing: nothing to apply
	e.drop("b.json", plan)
	e.previewed("b")
	b := page("b")
	if strings.Contains(b, `id="approve"`) {
		t.Errorf("the page offers Approve for plan bytes applied before:\n%s", b)
	}
	if n := strings.Count(b, "nothing to apply: already applied as a-"); n != 1 {
		t.Errorf("the page says the step %d times, want once", n)
	}
	if !strings.Contains(b, "Next: nothing to apply: already applied as a-") || !strings.Contains(b, "(archiplan resubmit b); archiplan reject b takes it out of the inbox") {
		t.Errorf("the page does not say the step for plan bytes applied before:\n%s", b)
	}
	approve("b", "PLAN_APPLIED_BEFORE", "Next: nothing to apply: already applied as a-")
	list, err := e.srv.cfg.Backend.Inbox()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list {
		if p.Name == "b" && !strings.HasPrefix(p.Note, "nothing to apply: already applied as a-") {
			t.Errorf("the inbox lists b with the note %q, want the preview's step", p.Note)
		}
	}

	// the archive's record removed by a commit, the changes standing: revert first
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", e.ws.Root, "-c", "user.name=Alice", "-c", "user.email=alice@example.org"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("rm", "-r", "-q", ".archiplan/applied")
	git("commit", "-q", "-m", "tidy: the archive")
	e.drop("k.json", plan)
	e.previewed("k")
	k := page("k")
	if strings.Contains(k, `id="approve"`) || strings.Contains(k, "let the planner fix it") {
		t.Errorf("the page offers Approve, or the planner's fix, for plan bytes whose record was removed:\n%s", k)
	}
	if !strings.Contains(k, "Next: nothing to apply: its changes are in the model already. To apply it again, revert it first (archiplan revert a-") ||
		!strings.Contains(k, "(archiplan resubmit k)") {
		t.Errorf("the page does not say the step (revert first, then resubmit k):\n%s", k)
	}
	approve("k", "PLAN_NOT_VALID", "To apply it again, revert it first (archiplan revert a-")
}

// A reviewer's page was drawn before another person approved the plan and the daemon applied it;
// the reviewer clicks Approve (or Reject). The page answered "Not available: plan a: not found".
// It now says where the plan went, coded as archiplan approve says it: PLAN_NOT_IN_INBOX, applied
// as which plan id in which commit.
func TestServer_DecideAppliedSaysWhere(t *testing.T) {
	e := newEnv(t)
	e.drop("a.json", renamePlan("Rename Customer to Client", customer, "Client"))
	e.previewed("a")
	pg, err := e.srv.cfg.Backend.Plan("a")
	if err != nil {
		t.Fatal(err)
	}
	c := e.client()
	if res := e.post(c, "/plan/a/approve", url.Values{"csrf": {e.srv.csrf}, "preview_sha256": {pg.PreviewSHA256}}, nil); res.StatusCode != http.StatusOK {
		t.Fatalf("approve: %s %q", res.Status, body(t, res))
	}
	waitFor(t, "a applied", func() bool { return len(e.history()) == 2 && !e.exists("a.approved") })
	apply := e.history()[0].Hash[:12]
	for _, path := range []string{"/plan/a/approve", "/plan/a/reject"} {
		res := e.post(c, path, url.Values{"csrf": {e.srv.csrf}, "preview_sha256": {pg.PreviewSHA256}, "reason": {"too late"}},
			map[string]string{"Accept": "application/json"})
		b := body(t, res)
		var got struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal([]byte(b), &got); err != nil || res.StatusCode != http.StatusConflict || got.Code != "PLAN_NOT_IN_INBOX" ||
			!strings.Contains(got.Message, "a was applied as a-") || !strings.Contains(got.Message, "in commit "+apply) {
			t.Errorf("%s after the apply: %s %q, want 409 PLAN_NOT_IN_INBOX naming the apply %s", path, res.Status, b, apply)
		}
	}
}

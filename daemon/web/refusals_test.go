package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The page's Approve and Reject say each refusal with the code archiplan approve gives it (the
// preview changed since the page was drawn, a plan no longer waiting, a rejection without a
// reason), on the page first in the message, and apart in a JSON answer; nothing is renamed.
func TestServer_ApproveRejectRefusalsCoded(t *testing.T) {
	e := newEnv(t)
	e.drop("u.json", renamePlan("Rename Customer to Client", customer, "Client"))
	e.previewed("u")
	c := e.client()
	post := func(path string, form url.Values, accept string, status int, code, words string) {
		t.Helper()
		form.Set("csrf", e.srv.csrf)
		res := e.post(c, path, form, map[string]string{"Accept": accept})
		b := body(t, res)
		if res.StatusCode != status {
			t.Fatalf("%s: %s, want %d: %q", path, res.Status, status, b)
		}
		if accept == "" {
			if !strings.Contains(b, code+": "+words) {
				t.Errorf("%s: the page says %q, want %q first", path, b, code+": "+words)
			}
			return
		}
		var got struct {
			OK      bool   `json:"ok"`
			Code    string `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal([]byte(b), &got); err != nil || got.OK || got.Code != code || !strings.HasPrefix(got.Message, code+": "+words) {
			t.Errorf("%s: JSON %q (%v), want code %s and the message %q", path, b, err, code, code+": "+words)
		}
	}
	for _, accept := range []string{"", "application/json"} {
		post("/plan/u/approve", url.Values{"preview_sha256": {strings.Repeat("0", 64)}}, accept, http.StatusConflict,
			"PREVIEW_NOT_THE_ONE_READ", "the preview changed since the page was drawn")
		post("/plan/u/reject", url.Values{"reason": {"  "}}, accept, http.StatusBadRequest,
			"REJECT_NEEDS_REASON", "a rejection needs a reason")
	}
	if !e.exists("u.json") || e.exists("u.approved") || e.exists("u.rejected") {
		t.Fatal("a refused approval or rejection renamed the plan")
	}
	pg, err := e.srv.cfg.Backend.Plan("u")
	if err != nil {
		t.Fatal(err)
	}
	if res := e.post(c, "/plan/u/reject", url.Values{"csrf": {e.srv.csrf}, "reason": {"not now"}}, nil); res.StatusCode != http.StatusOK {
		t.Fatalf("reject with a reason: %s %q", res.Status, body(t, res))
	}
	for _, accept := range []string{"", "application/json"} {
		post("/plan/u/approve", url.Values{"preview_sha256": {pg.PreviewSHA256}}, accept, http.StatusConflict,
			"PLAN_IS_REJECTED", "the plan is not waiting for a decision: u is rejected")
		post("/plan/u/reject", url.Values{"reason": {"again"}}, accept, http.StatusConflict,
			"PLAN_IS_REJECTED", "the plan is not waiting for a decision: u is rejected")
	}
}

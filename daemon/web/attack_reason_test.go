package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// A rejection's reason from the page is capped, and the cap never cuts a character in two: a
// reason of more than the cap whose cut falls inside a letter leaves a preview and a report of
// whole characters (no stray byte that a viewer shows as another letter or drops), with the
// reason's text up to the cut shown and the reviewer's name after it.
func TestAttack_RejectReasonCutWhole(t *testing.T) {
	e := newEnv(t)
	e.drop("u.json", renamePlan("Rename Customer to Client", customer, "Client"))
	e.previewed("u")
	c := e.client()
	reason := strings.Repeat("x", 1999) + "éé tail"
	res := e.post(c, "/plan/u/reject", url.Values{"csrf": {e.srv.csrf}, "reason": {reason}, "reviewer": {"Ann"}}, nil)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("reject: %s %q", res.Status, body(t, res))
	}
	for f, after := range map[string]string{"u.preview.md": ` \(rejected on the review page by Ann`, "u.report.json": ` (rejected on the review page by Ann`} {
		got := e.read(f)
		if !utf8.ValidString(got) {
			i := strings.Index(got, strings.Repeat("x", 1999))
			t.Errorf("%s holds a character cut in two: %q", f, got[i+1990:i+2010])
		}
		if strings.Contains(got, "tail") || strings.Contains(got, "\uFFFD") || !strings.Contains(got, strings.Repeat("x", 1999)+after) {
			i := strings.Index(got, strings.Repeat("x", 1999))
			t.Errorf("%s: the reason is not cut where it should be: %q", f, got[i+1990:i+2040])
		}
	}
}

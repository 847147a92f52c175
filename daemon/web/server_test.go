package web

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archiplan/archiplan/daemon/inbox"
)

func body(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every request needs the session: without it (or with a wrong token) the answer is 403, for
// pages, assets, the event stream and actions alike; the login address leads to the session's
// path and sets no cookie.
func TestServer_Token(t *testing.T) {
	e := newEnv(t)
	// a client that follows no redirect: each 403 is the guard's own answer to that request
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, path := range []string{"/", "/history", "/views", "/events", "/static/app.js", "/plan/x", "/?token=wrong",
		"/s/" + strings.Repeat("0", 64) + "/", e.srv.Base(), e.srv.Base() + "x/", e.srv.Base() + "/?token=wrong",
		"/history?token=" + e.srv.Token()} {
		res, err := c.Get(e.root + path)
		if err != nil {
			t.Fatal(err)
		}
		if b := body(t, res); res.StatusCode != http.StatusForbidden || !strings.Contains(b, "403") {
			t.Errorf("GET %s without the session: %s %q", path, res.Status, b)
		}
		if res.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("GET %s: a refusal without the CSP", path)
		}
		if len(res.Cookies()) != 0 {
			t.Errorf("GET %s: a cookie was set", path)
		}
	}
	res, err := http.Post(e.root+"/plan/x/approve", "application/x-www-form-urlencoded", strings.NewReader("csrf=x"))
	if err != nil {
		t.Fatal(err)
	}
	if body(t, res); res.StatusCode != http.StatusForbidden {
		t.Errorf("POST without the session: %s", res.Status)
	}

	// the login address: no cookie, a redirect to the session's path
	res, err = c.Get(e.srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	body(t, res)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != e.srv.Base()+"/" {
		t.Fatalf("the login address: %s to %q", res.Status, res.Header.Get("Location"))
	}
	if ck := res.Cookies(); len(ck) != 0 {
		t.Fatalf("the login address set a cookie: %+v", ck)
	}
	page := e.client()
	res, err = page.Get(e.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	b := body(t, res)
	if res.StatusCode != http.StatusOK || !strings.Contains(b, "<h1>Inbox</h1>") {
		t.Fatalf("in the session: %s", res.Status)
	}
	if strings.Contains(b, e.srv.Token()) {
		t.Fatal("the page carries the token")
	}
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "form-action 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe") {
		t.Errorf("CSP allows unsafe sources: %q", csp)
	}
	if got := res.Header.Get("Referrer-Policy"); got != "same-origin" {
		t.Errorf("Referrer-Policy %q: the session's path could leave with a Referer", got)
	}
}

// State-changing requests need the CSRF token and an origin of the page itself; a Host that is
// not a loopback name is refused (DNS rebinding).
func TestServer_CSRFAndOrigin(t *testing.T) {
	e := newEnv(t)
	e.drop("p.json", renamePlan("rename", customer, "Client"))
	e.previewed("p")
	c := e.client()
	pg, err := e.srv.cfg.Backend.Plan("p")
	if err != nil {
		t.Fatal(err)
	}
	good := url.Values{"csrf": {e.srv.csrf}, "preview_sha256": {pg.PreviewSHA256}}
	noCSRF := url.Values{"preview_sha256": {pg.PreviewSHA256}}
	cases := []struct {
		name   string
		form   url.Values
		header map[string]string
	}{
		{"no CSRF token", noCSRF, nil},
		{"wrong CSRF token", url.Values{"csrf": {"00"}, "preview_sha256": {pg.PreviewSHA256}}, nil},
		{"another origin", good, map[string]string{"Origin": "http://evil.example"}},
		{"an origin the page's is a prefix of", good, map[string]string{"Origin": e.root + ".evil.example"}},
		{"another port of the host", good, map[string]string{"Origin": "http://127.0.0.1:1"}},
		{"a referer the page's is a prefix of", good, map[string]string{"Origin": "", "Referer": e.root + ".evil.example/x"}},
		{"no origin, no referer", good, map[string]string{"Origin": ""}},
		{"cross-site fetch", good, map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{"a referer of another site", good, map[string]string{"Origin": "", "Referer": "http://evil.example/x"}},
	}
	for _, tc := range cases {
		res := e.post(c, "/plan/p/approve", tc.form, tc.header)
		if b := body(t, res); res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %s %q", tc.name, res.Status, b)
		}
		if !e.exists("p.json") {
			t.Fatalf("%s: the plan moved", tc.name)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, e.base+"/", nil)
	req.Host = "rebound.example:80"
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if body(t, res); res.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign Host: %s", res.Status)
	}
	// the same form from the page itself goes through (a Referer of the page works too)
	res = e.post(c, "/plan/p/approve", good, map[string]string{"Origin": "", "Referer": e.base + "/plan/p"})
	if b := body(t, res); res.StatusCode != http.StatusOK {
		t.Fatalf("from the page: %s %q", res.Status, b)
	}
	waitFor(t, "the approval applied", func() bool { return len(e.history()) == 2 })
}

// The server refuses to listen outside loopback unless allowed.
func TestServer_LoopbackOnly(t *testing.T) {
	s, err := New(Config{Backend: NewLocal(LocalConfig{})})
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:0", ":0"} {
		if err := s.Open(addr); err == nil {
			s.Close()
			t.Errorf("listened on %s", addr)
		}
	}
}

func TestCleanReviewer(t *testing.T) {
	for in, want := range map[string]string{
		"Alice":                        "Alice",
		"  Ada   Lovelace ":            "Ada Lovelace",
		"Eve\nApproved-By: root <r@x>": "Eve Approved-By: root r@x",
		"<script>x</script>":           "scriptx/script",
		"\x00\x1b[31mred":              "[31mred",
		strings.Repeat("a", 300):       strings.Repeat("a", 100),
	} {
		if got := CleanReviewer(in); got != want {
			t.Errorf("CleanReviewer(%q) = %q, want %q", in, got, want)
		}
	}
}

// A preview written over by someone else (a planner) is never drawn, its plan is not offered for
// a decision, and an approval carrying the forged preview's hash is refused.
func TestLocal_ForgedPreview(t *testing.T) {
	e := newEnv(t)
	e.drop("f.json", renamePlan("Rename Customer to Client", customer, "Client"))
	e.previewed("f")
	c := e.client()
	if _, err := e.srv.cfg.Backend.Inbox(); err != nil { // fill the listing's cache
		t.Fatal(err)
	}
	e.daemon.Close() // else it writes its own preview back at once
	forged := []byte("# Plan: harmless\n\nNothing to see: approve.\n")
	if err := os.WriteFile(filepath.Join(e.inbox, "f.preview.md"), forged, 0o644); err != nil {
		t.Fatal(err)
	}
	list, err := e.srv.cfg.Backend.Inbox()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].State != StatePending || !strings.Contains(list[0].Note, "not the one archiplan wrote") {
		t.Fatalf("inbox line of a forged preview: %+v", list)
	}
	res, err := c.Get(e.base + "/plan/f")
	if err != nil {
		t.Fatal(err)
	}
	page := body(t, res)
	if strings.Contains(page, "Nothing to see") || strings.Contains(page, `id="approve"`) || strings.Contains(page, `id="reject"`) {
		t.Fatalf("the page draws a forged preview or offers a decision:\n%s", page)
	}
	res = e.post(c, "/plan/f/approve", url.Values{"csrf": {e.srv.csrf}, "preview_sha256": {inbox.Hash(forged)}}, nil)
	if b := body(t, res); res.StatusCode != http.StatusConflict {
		t.Fatalf("approval of a forged preview: %s %q", res.Status, b)
	}
	if !e.exists("f.json") || e.exists("f.approved") {
		t.Fatal("a forged preview's approval renamed the plan")
	}
}

// Pictures come only from what archiplan wrote for that plan, or from the model at HEAD or at a
// commit named in full; they are served as sandboxed images.
func TestServer_Pictures(t *testing.T) {
	e := newEnv(t)
	e.drop("p.json", renamePlan("Rename Customer to Client", customer, "Client"))
	e.drop("q.json", renamePlan("Rename the desk", desk, "Front Desk"))
	e.previewed("p")
	e.previewed("q")
	c := e.client()
	pg, err := e.srv.cfg.Backend.Plan("p")
	if err != nil || len(pg.Pictures) == 0 {
		t.Fatalf("p has no pictures: %v %+v", err, pg)
	}
	res, err := c.Get(e.base + "/plan/p/picture/" + pg.Pictures[0])
	if err != nil {
		t.Fatal(err)
	}
	if b := body(t, res); res.StatusCode != 200 || !strings.HasPrefix(b, "<svg") || res.Header.Get("Content-Type") != "image/svg+xml" ||
		!strings.Contains(res.Header.Get("Content-Security-Policy"), "sandbox") {
		t.Fatalf("p's picture: %s %s %q", res.Status, res.Header, b[:min(len(b), 60)])
	}
	q, _ := e.srv.cfg.Backend.Plan("q")
	head, _ := e.ws.Head()
	for _, path := range []string{
		"/plan/p/picture/" + q.Pictures[0],     // another plan's picture
		"/plan/p/picture/p.preview.md",         // not a picture
		"/plan/p/picture/..%2Fmodel.archimate", // not a name
		"/svg/" + mainView + "?at=HEAD~1",      // a commit not named in full
		"/svg/id-nope",                         // no such view
	} {
		res, err := c.Get(e.base + path)
		if err != nil {
			t.Fatal(err)
		}
		if b := body(t, res); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %s %q", path, res.Status, b)
		}
	}
	for _, path := range []string{"/svg/" + mainView, "/svg/" + mainView + "?at=" + head} {
		res, err := c.Get(e.base + path)
		if err != nil {
			t.Fatal(err)
		}
		if b := body(t, res); res.StatusCode != 200 || !strings.Contains(b, "Customer") {
			t.Errorf("GET %s: %s", path, res.Status)
		}
	}
}

// issue 18: the planner swaps its plan after the person read the preview (a deletion under the
// same summary, dated a minute back, moved over the file). The page, drawn after the swap, must
// not approve it: the NAME's bytes were fixed at its first valid preview, and the new ones are
// rejected.
func TestServer_SwapAfterPreview(t *testing.T) {
	e := newEnv(t)
	e.drop("r.json", renamePlan("Rename Customer to Client", customer, "Client"))
	e.previewed("r")
	read := e.read("r.preview.md")
	evil := filepath.Join(t.TempDir(), "r.json")
	del := `{"schema_version":"2.0","status":"ready","summary":"Rename Customer to Client","actions":[{"op":"delete_element","element_id":"` + customer + `"}]}`
	if err := os.WriteFile(evil, []byte(del), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	os.Chtimes(evil, old, old)
	if err := os.Rename(evil, filepath.Join(e.inbox, "r.json")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the daemon's answer to the swap", func() bool {
		p := e.read("r.preview.md")
		return p != read && strings.Contains(p, "Delete") && strings.Contains(e.read("r.report.json"), "Delete")
	})
	c := e.client()
	pg, err := e.srv.cfg.Backend.Plan("r")
	if err != nil {
		t.Fatal(err)
	}
	res := e.post(c, "/plan/r/approve", url.Values{"csrf": {e.srv.csrf}, "preview_sha256": {pg.PreviewSHA256}}, nil)
	if b := body(t, res); res.StatusCode == http.StatusOK {
		t.Fatalf("the swapped plan was approved from the page: %q", b)
	}
	if e.exists("r.approved") {
		t.Fatal("the swapped plan was renamed to r.approved")
	}
	if !strings.Contains(e.read("r.report.json"), "PLAN_CHANGED_AFTER_PREVIEW") {
		t.Fatalf("the swap is not rejected with its code: %s", e.read("r.report.json"))
	}
	if n := len(e.history()); n != 1 {
		t.Fatalf("%d commits: the swap was applied", n)
	}
}

// A plan previewed invalid is not approved from the page either (a forged POST: the page offers no
// Approve for it): refused, nothing renamed.
func TestServer_ApproveInvalid(t *testing.T) {
	e := newEnv(t)
	e.drop("broken.json", renamePlan("Rename a ghost", "id-00000000000000000000000000000000", "Ghost"))
	e.previewed("broken")
	pg, err := e.srv.cfg.Backend.Plan("broken")
	if err != nil {
		t.Fatal(err)
	}
	res := e.post(e.client(), "/plan/broken/approve", url.Values{"csrf": {e.srv.csrf}, "preview_sha256": {pg.PreviewSHA256}}, nil)
	if b := body(t, res); res.StatusCode != http.StatusConflict || !strings.Contains(b, "previewed valid") {
		t.Fatalf("approve an invalid plan: %s %q", res.Status, b)
	}
	if !e.exists("broken.json") || e.exists("broken.approved") {
		t.Fatal("an invalid plan was renamed")
	}
}

// A summary holding a right-to-left override is shown on the inbox page with the character's
// code, as the preview shows it, never obeyed (the page would otherwise show "Rename exe.png").
func TestServer_SummaryShowsHiddenCharacters(t *testing.T) {
	e := newEnv(t)
	c := e.client()
	e.drop("bidi.json", renamePlan("Rename gnp.\u202eexe", customer, "Client"))
	e.previewed("bidi")
	res, err := c.Get(e.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	page := body(t, res)
	if strings.ContainsRune(page, '\u202e') || !strings.Contains(page, `gnp.\u{202e}exe`) {
		t.Fatalf("the inbox page's summary of a plan with U+202E:\n%s", page)
	}
}

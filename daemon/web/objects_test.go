package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/inbox"
)

// The review page shows who changed each object a view shows: the view lists them, each linked
// to its history page, which reads log --object's index: the plan that renamed it (a planner's
// summary and name, escaped) and the commit that created it, newest first.
// names a planner might write to break out of a page (as the published site's tests use them)
const (
	hostileScript = `<script>alert("name")</script>`
	hostileAttr   = `"><img src=x onerror=alert(1)>`
)

func TestServer_ObjectHistory(t *testing.T) {
	e := newEnv(t)
	// asked for with a request that breaks out of a page: the entry says it, escaped
	if err := inbox.New(e.inbox, e.ws.GitPath("archiplan/inbox")).SaveConversation(&inbox.Conversation{Name: "hostile", Intent: "call it " + hostileScript + " \u202eevil"}); err != nil {
		t.Fatal(err)
	}
	e.approved("hostile", renamePlan(hostileScript, customer, hostileAttr))
	c := e.client()
	get := func(path string) (int, string) {
		res, err := c.Get(e.base + path)
		if err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, body(t, res)
	}
	code, view := get("/view/" + mainView)
	link := `href="` + e.srv.Base() + `/object/` + url.PathEscape(customer) + `"`
	if code != http.StatusOK || !strings.Contains(view, link) {
		t.Fatalf("the view's page does not link the customer's history (%d):\n%s", code, view)
	}
	code, page := get("/object/" + customer)
	if code != http.StatusOK {
		t.Fatalf("%d\n%s", code, page)
	}
	renamed := strings.Index(page, "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;")
	created := strings.Index(page, "created as Business Actor")
	if renamed < 0 || created < 0 || renamed > created {
		t.Errorf("the rename (%d) and the creation (%d), newest first:\n%s", renamed, created, page)
	}
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "<img src=x") || !strings.Contains(page, "&lt;script&gt;alert") {
		t.Errorf("the page holds the planner's text unescaped, or not at all:\n%s", page)
	}
	if !strings.Contains(page, "plan <code>hostile-") || !strings.Contains(page, "approved by Daemon Operator") {
		t.Errorf("the page does not name the plan and its approver:\n%s", page)
	}
	if !strings.Contains(page, "asked for: <bdi>call it &lt;script&gt;alert") {
		t.Errorf("the page does not say what the plan was asked for:\n%s", page)
	}
	if strings.Contains(page, "\u202e") || !strings.Contains(page, `\u{202e}evil`) {
		t.Errorf("the page obeys a character that reorders text instead of showing it:\n%s", page)
	}
	if code, _ := get("/object/no-such-object"); code != http.StatusNotFound {
		t.Errorf("an unknown object: %d", code)
	}
}

// A name with characters a person cannot see is shown with their codes on the object's history
// page and in a view's list of what it shows, as the preview, the pictures and the site write it.
func TestServer_ObjectNamesShowHiddenCharacters(t *testing.T) {
	e := newEnv(t)
	e.approved("hidden", renamePlan("rename", customer, "Customer\u202e\u200b"))
	c := e.client()
	for _, path := range []string{"/object/" + customer, "/view/" + mainView} {
		res, err := c.Get(e.base + path)
		if err != nil {
			t.Fatal(err)
		}
		page := body(t, res)
		if res.StatusCode != http.StatusOK || strings.ContainsAny(page, "\u202e\u200b") || !strings.Contains(page, `Customer\u{202e}\u{200b}`) {
			t.Errorf("%s (%d) obeys the hidden characters instead of showing their codes:\n%s", path, res.StatusCode, page)
		}
	}
}

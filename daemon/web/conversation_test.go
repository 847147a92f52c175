package web

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
)

// The page answers a plan's questions (kept under .git/, audited) and its history lists every
// plan's events beside the commits: answered, rejected, withdrawn and applied, each with the
// request and the planner archiplan kept.
func TestServer_AnswersAndAudit(t *testing.T) {
	e := newEnv(t)
	box := inbox.New(e.inbox, e.ws.GitPath("archiplan/inbox"))
	asked := func(name, intent string) {
		if err := box.SaveConversation(&inbox.Conversation{Name: name, Intent: intent, Planner: "codex", Model: "fake-model"}); err != nil {
			t.Fatal(err)
		}
	}
	c := e.client()

	asked("q", "Rename the customer")
	e.drop("q.json", `{"schema_version":"2.0","status":"needs_clarification","summary":"Rename the customer","questions":["What should the customer be called?"],"actions":[]}`)
	e.previewed("q")
	res, err := c.Get(e.base + "/plan/q")
	if err != nil {
		t.Fatal(err)
	}
	if b := body(t, res); !strings.Contains(b, "What should the customer be called?") || !strings.Contains(b, `action="`+e.srv.Base()+`/plan/q/answer"`) ||
		!strings.Contains(b, "Rename the customer") {
		t.Fatalf("the plan page offers no answer form:\n%s", b)
	}
	if res := e.post(c, "/plan/q/answer", url.Values{"csrf": {e.srv.csrf}}, nil); body(t, res) == "" || res.StatusCode != http.StatusBadRequest {
		t.Fatalf("no answers: %s", res.Status)
	}
	res = e.post(c, "/plan/q/answer", url.Values{"csrf": {e.srv.csrf}, "answer0": {"Client"}, "reviewer": {"Ann"}}, nil)
	if b := body(t, res); res.StatusCode != http.StatusOK || !strings.Contains(b, "archiplan answer q") {
		t.Fatalf("answer: %s %s", res.Status, b)
	}
	if conv, _ := box.Conversation("q"); conv == nil || !conv.Open() || conv.Answers[0] != "Client" || conv.AnsweredBy != "Ann" {
		t.Fatalf("kept: %+v", conv)
	}

	asked("bad", "Rename the desk")
	e.drop("bad.json", renamePlan("Rename the desk to Counter", desk, "Counter"))
	e.previewed("bad")
	if res := e.post(c, "/plan/bad/reject", url.Values{"csrf": {e.srv.csrf}, "reason": {"not that name"}}, nil); body(t, res) == "" || res.StatusCode != http.StatusOK {
		t.Fatalf("reject: %s", res.Status)
	}
	asked("gone", "Something withdrawn")
	e.drop("gone.json", renamePlan("Rename the customer to Patron", customer, "Patron"))
	e.previewed("gone")
	os.Remove(filepath.Join(e.inbox, "gone.json"))
	asked("good", "Rename the customer to Client")
	e.drop("good.json", renamePlan("Rename the customer to Client", customer, "Client"))
	e.previewed("good")
	before := len(e.history())
	if err := os.Rename(filepath.Join(e.inbox, "good.json"), filepath.Join(e.inbox, "good.approved")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the apply", func() bool { return len(e.history()) > before })
	for _, want := range []struct {
		ev   ledger.EventKind
		name string
	}{{ledger.EventWithdrawn, "gone"}, {ledger.EventApplied, "good"}} {
		waitFor(t, string(want.ev)+" in the audit", func() bool {
			evs, _ := ledger.AuditLog(e.ws)
			for _, ev := range evs {
				if ev.Event == want.ev && ev.Name == want.name {
					return true
				}
			}
			return false
		})
	}
	res, err = c.Get(e.base + "/history")
	if err != nil {
		t.Fatal(err)
	}
	b := body(t, res)
	for _, want := range []string{
		`badge e-answered`, `intent “Rename the customer”`, `planner codex (fake-model)`,
		`badge e-rejected`, `intent “Rename the desk”`, `not that name`,
		`badge e-withdrawn`, `intent “Something withdrawn”`,
		`badge e-applied`, `intent “Rename the customer to Client”`,
		`badge e-received`, `badge e-previewed`, `badge e-approved`,
	} {
		if !strings.Contains(b, want) {
			t.Errorf("the history lacks %s", want)
		}
	}
}

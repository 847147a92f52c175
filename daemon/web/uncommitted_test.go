package web

import (
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/archiplan/archiplan/daemon/ledger"
)

// saveUncommitted writes the model as Archi saves it, an element renamed, without committing it.
func (e *env) saveUncommitted() {
	e.t.Helper()
	path := filepath.Join(e.ws.Root, "model.archimate")
	data, err := os.ReadFile(path)
	if err != nil {
		e.t.Fatal(err)
	}
	saved := strings.Replace(string(data), `name="Rental Desk"`, `name="Front Desk"`, 1)
	if saved == string(data) {
		e.t.Fatal("the example model has no Rental Desk")
	}
	if err := os.WriteFile(path, []byte(saved), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// commitSave commits the save as the refusal says (git commit -am MESSAGE) and waits for NAME's
// preview on the new HEAD.
func (e *env) commitSave(name string) {
	e.t.Helper()
	cmd := exec.Command("git", "-c", "user.name=Alice", "-c", "user.email=alice@example.org", "commit", "-q", "-am", "MESSAGE")
	cmd.Dir = e.ws.Root
	if out, err := cmd.CombinedOutput(); err != nil {
		e.t.Fatalf("git commit: %v\n%s", err, out)
	}
	head := e.history()[0].Hash
	waitFor(e.t, name+" previewed on the save", func() bool { return strings.Contains(e.read(name+".report.json"), head) })
	e.previewed(name)
}

// uncommittedRefusal is what the page says to an approval over a save not committed: the words
// archiplan approve and status say, with the code.
var uncommittedRefusal = "not approved: " + ledger.Uncommitted("model.archimate") + ", then approve it again"

// A save of the model from Archi, not committed, refuses the page's approval as archiplan approve
// refuses it (MODEL_UNCOMMITTED, in the same words): the page renamed the plan NAME.approved over
// the save, which the apply could only reject (the plan then resubmitted under a new name). The
// plan stays waiting; once the save is committed its approval applies it.
func TestServer_ApproveOverUncommittedSave(t *testing.T) {
	e := newEnv(t)
	e.drop("u.json", renamePlan("Rename Customer to Client", customer, "Client"))
	e.previewed("u")
	e.saveUncommitted()
	c := e.client()
	approve := func() *http.Response {
		pg, err := e.srv.cfg.Backend.Plan("u")
		if err != nil {
			t.Fatal(err)
		}
		return e.post(c, "/plan/u/approve", url.Values{"csrf": {e.srv.csrf}, "preview_sha256": {pg.PreviewSHA256}}, nil)
	}
	res := approve()
	if b := body(t, res); res.StatusCode != http.StatusConflict || !strings.Contains(b, uncommittedRefusal) {
		t.Fatalf("approve over an uncommitted save: %s %q", res.Status, b)
	}
	if !e.exists("u.json") || e.exists("u.approved") || e.exists("u.rejected") || len(e.history()) != 1 {
		t.Fatal("an approval refused renamed or applied the plan")
	}
	e.commitSave("u")
	if res := approve(); res.StatusCode != http.StatusOK {
		t.Fatalf("approve once the save is committed: %s %q", res.Status, body(t, res))
	}
	waitFor(t, "the apply", func() bool { return len(e.history()) == 3 && !e.exists("u.approved") })
}

// The person clicking Approve on the page over a save not committed reads why and what to do.
func TestBrowser_ApproveOverUncommittedSave(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t)
	e.drop("u.json", renamePlan("Rename Customer to Client", customer, "Client"))
	e.previewed("u")
	e.saveUncommitted()
	b.open(t, e, "/plan/u")
	if status := b.submit(t, "#approve"); status != http.StatusConflict {
		t.Fatalf("approve over an uncommitted save: HTTP %d", status)
	}
	if got := b.text(t, "#result"); !strings.Contains(got, uncommittedRefusal) {
		t.Fatalf("the refusal shown: %q", got)
	}
	if !e.exists("u.json") || e.exists("u.approved") || len(e.history()) != 1 {
		t.Fatal("an approval refused renamed or applied the plan")
	}
	e.commitSave("u")
	b.goTo(t, e, "/plan/u")
	b.do(t, chromedp.WaitVisible(chromedp.ID("approve")))
	if status := b.submit(t, "#approve"); status != http.StatusOK {
		t.Fatalf("approve once the save is committed: HTTP %d: %s", status, b.text(t, "#result"))
	}
	waitFor(t, "the apply", func() bool { return len(e.history()) == 3 && !e.exists("u.approved") })
}

// The page's Revert says each refusal with its code first, as archiplan revert does (the
// ledger's words, whichever front end shows them): no such plan, a later change in the way, the
// work tree's save not committed.
func TestServer_RevertRefusalsCoded(t *testing.T) {
	e := newEnv(t)
	e.approved("a", renamePlan("Rename Customer to Client", customer, "Client"))
	e.approved("b", renamePlan("Rename Client to Patron", customer, "Patron"))
	h := e.history()
	c := e.client()
	revert := func(target, want string) {
		t.Helper()
		res := e.post(c, "/history/revert", url.Values{"csrf": {e.srv.csrf}, "target": {target}}, nil)
		if b := body(t, res); res.StatusCode != http.StatusConflict || !strings.Contains(b, want) {
			t.Fatalf("revert %s: %s, want %q in %q", target, res.Status, want, b)
		}
	}
	revert("nosuch-0123456789ab", "REVERT_NO_SUCH_PLAN: no applied plan")
	revert(h[1].Trailers["Plan-Id"], "REVERT_CONFLICT: a later commit changed the same objects")
	e.saveUncommitted()
	revert(h[0].Trailers["Plan-Id"], "REVERT_WORK_TREE_DIRTY: the model file has uncommitted changes")
	if len(e.history()) != 3 {
		t.Fatal("a refused revert committed")
	}
}

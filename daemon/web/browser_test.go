package web

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/archiplan/archiplan/store"
)

var update = flag.Bool("update", false, "write the README's screenshots (docs/review-*.png)")

// browserPath is Debian's chromium (or another Chromium on PATH); "" when there is none.
func browserPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is a headless Chromium, driven over its DevTools protocol, with a fresh profile. It
// records every JavaScript dialog opened (no page of ours opens one: a dialog means a script a
// planner wrote ran).
type browser struct {
	ctx     context.Context
	dialogs *atomic.Int64
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	path := browserPath()
	if path == "" {
		t.Skip("no chromium binary found (apt-get install chromium)")
	}
	if testing.Short() {
		t.Skip("browser tests start Chromium")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1100, 760),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 15*time.Minute) // only a hang: far beyond a loaded machine's need
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	b := &browser{ctx: ctx, dialogs: &atomic.Int64{}}
	if err := chromedp.Listen(ctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			b.dialogs.Add(1)
			go chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return b
}

func (b *browser) do(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func (b *browser) text(t *testing.T, sel string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Minute)
	defer cancel()
	// the live page redraws rows by replacing them, so a node found by one DevTools call may be
	// gone by the next: wait until the selector is visible, then read it in one script run (a
	// redraw between the two waits again)
	js := fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e ? e.innerText.trim() : null })()`, sel)
	for {
		if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		s, err := chromedp.Run(ctx, chromedp.Evaluate[*string](js))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		if s != nil {
			return *s
		}
	}
}

func (b *browser) eval(t *testing.T, js string) any {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[any](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// open opens the address the daemon prints and waits until the page's event stream is open.
func (b *browser) open(t *testing.T, e *env, path string) {
	t.Helper()
	b.do(t, chromedp.Navigate(e.srv.URL()), chromedp.WaitVisible(chromedp.CSS("h1")))
	b.goTo(t, e, path)
}

func (b *browser) goTo(t *testing.T, e *env, path string) {
	t.Helper()
	b.do(t, chromedp.Navigate(e.base+path), chromedp.WaitVisible(chromedp.CSS(`body[data-live="open"]`)))
}

// submit clicks a button that posts a form and waits for the answer page; it returns the answer's
// HTTP status.
func (b *browser) submit(t *testing.T, sel string) int64 {
	t.Helper()
	// the live page redraws what it fills in (a history entry's changes, a row) by replacing
	// nodes, so the node a click found can be gone before the click reaches it; that error comes
	// before any click, so the click is tried again on the node found afresh
	//
	// the mouse goes to the button's place as it was measured, and a click that lands beside the
	// button starts no navigation (RunResponse then waits for the test's deadline): so the click
	// waits until the page is still: the update made as its event stream opened done, nothing
	// in it being filled in (a history entry comparing), every picture in sight loaded, and the
	// button in sight with nothing covering it
	still := chromedp.Poll[bool](fmt.Sprintf(`(() => {
		const b = document.querySelector(%q), s = document.body.dataset;
		if (!b || document.querySelector('.comparing') || (s.live === 'open' && !(Number(s.updates) >= 1))) return false;
		b.scrollIntoView({block: 'center'});
		const seen = (e) => { const r = e.getBoundingClientRect(); return r.bottom >= 0 && r.top <= innerHeight; };
		if (![...document.images].every((i) => !seen(i) || i.complete)) return false;
		const r = b.getBoundingClientRect(), at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
		return at === b || b.contains(at);
	})()`, sel), chromedp.WithPollingTimeout(0))
	for try := 1; ; try++ {
		if _, err := chromedp.Run(b.ctx, still); err != nil {
			t.Fatalf("wait until %s can be clicked: %v", sel, err)
		}
		res, err := chromedp.RunResponse(b.ctx, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
		if err != nil && try < 20 && nodeGone(err) {
			continue
		}
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "deadline exceeded") {
				// the daemon and the page run in this process: what each goroutine waits on
				// says whether the request hung in the server (a lock) or never left the page
				var dump strings.Builder
				pprof.Lookup("goroutine").WriteTo(&dump, 1)
				t.Logf("the goroutines when the click timed out:\n%s", dump.String())
			}
			t.Fatalf("click %s: %v", sel, err)
		}
		return res.Status
	}
}

// nodeGone reports a DevTools error about a node the page replaced since it was found.
func nodeGone(err error) bool {
	s := err.Error()
	return strings.Contains(s, "Could not find node with given id") || strings.Contains(s, "No node with given id found")
}

// shot writes a screenshot for the README when -update is given.
func (b *browser) shot(t *testing.T, name string, full bool) {
	t.Helper()
	if !*update {
		return
	}
	capture := chromedp.CaptureScreenshot()
	if full {
		capture = chromedp.FullScreenshot(100) // 100: PNG
	}
	png, err := chromedp.Run(b.ctx, capture)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join("..", "..", "docs", name)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A plan dropped in the inbox appears on the open page without a reload.
func TestBrowser_LiveInbox(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t)
	e.drop("first.json", renamePlan("Rename Customer to Client", customer, "Client"))
	e.previewed("first")
	b.open(t, e, "/")
	// a row is read once it is in the state whose text is checked (drawn from the record), never
	// while an earlier drawing of it may still be on the page
	b.do(t, chromedp.WaitVisible(chromedp.CSS(`tr[data-plan="first"].state-previewed`)))
	if got := b.text(t, `tr[data-plan="first"] td.summary`); got != "Rename Customer to Client" {
		t.Fatalf("first plan's summary: %q", got)
	}
	b.eval(t, "window.drawnOnce = 'yes'") // a reload would lose it
	e.drop("second.json", renamePlan("Rename the desk", desk, "Front Desk"))
	b.do(t, chromedp.WaitVisible(chromedp.CSS(`tr[data-plan="second"].state-previewed`)))
	if got := b.text(t, `tr[data-plan="second"].state-previewed td.summary`); got != "Rename the desk" {
		t.Fatalf("second plan's summary: %q", got)
	}
	if got := b.eval(t, "window.drawnOnce"); got != "yes" {
		t.Fatalf("the page was reloaded (marker %v)", got)
	}
	// an invalid plan shows its verdict and counts
	e.drop("broken.json", renamePlan("Rename a ghost", "id-00000000000000000000000000000000", "Ghost"))
	b.do(t, chromedp.WaitVisible(chromedp.CSS(`tr[data-plan="broken"].state-previewed .v-invalid`)))
	if got := b.text(t, `tr[data-plan="broken"].state-previewed td.num`); got != "1" {
		t.Fatalf("errors of the broken plan: %q", got)
	}
	b.shot(t, "review-inbox.png", false)
	// its page lists the finding with its severity and code, and offers Reject, not Approve
	b.goTo(t, e, "/plan/broken")
	if got := b.text(t, ".findings tr.sev-error td:nth-child(2)"); got != "REF_NOT_FOUND" {
		t.Fatalf("the broken plan's finding: %q", got)
	}
	n, _ := chromedp.Run(b.ctx, chromedp.Evaluate[float64](`document.querySelectorAll('#approve').length + 10*document.querySelectorAll('#reject').length`))
	if n != 10 {
		t.Fatalf("an invalid plan's page offers approve+10*reject = %v, want 10", n)
	}
}

// Approving from the page produces the commit, with the daemon's user and the reviewer's name.
func TestBrowser_Approve(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t)
	e.drop("rename.json", renamePlan("Rename Customer to Client", customer, "Client"))
	e.previewed("rename")
	b.open(t, e, "/plan/rename")
	if got := b.text(t, ".preview h1"); got != "Plan: Rename Customer to Client" {
		t.Fatalf("preview title: %q", got)
	}
	// the preview's pictures (before and after) are drawn, from the page's own address
	pics, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]any](`Array.from(document.querySelectorAll('.preview img')).map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0])`))
	if err != nil {
		t.Fatal(err)
	}
	if len(pics) < 2 {
		t.Fatalf("the preview shows %d pictures, want before and after", len(pics))
	}
	for _, p := range pics {
		pair := p.([]any)
		if src := pair[0].(string); !strings.HasPrefix(src, e.srv.Base()+"/plan/rename/picture/rename.view-") || pair[1] != true {
			t.Fatalf("picture %v not drawn from the page", pair)
		}
	}
	b.shot(t, "review-plan.png", true)
	b.do(t, chromedp.SendKeys(chromedp.ID("reviewer"), "Alice Reviewer"))
	if status := b.submit(t, "#approve"); status != 200 {
		t.Fatalf("approve: HTTP %d: %s", status, b.text(t, "#result"))
	}
	waitFor(t, "the apply commit", func() bool { return len(e.history()) == 2 })
	c := e.history()[0]
	if !strings.HasPrefix(c.Subject, "plan: Rename Customer to Client") {
		t.Fatalf("commit subject %q", c.Subject)
	}
	want := "Daemon Operator (review page: Alice Reviewer) <ops@example.org>"
	if got := c.Trailers[store.TrailerApprovedBy]; got != want {
		t.Fatalf("Approved-By %q, want %q", got, want)
	}
	waitFor(t, "the inbox cleared", func() bool { return !e.exists("rename.approved") })
}

// A plan rewritten after the page was drawn refuses the approval: archiplan rejects the new bytes
// (a NAME's plan is fixed at its first valid preview), the page says so as soon as it changes,
// and the approval it still sends is refused and renames nothing.
func TestBrowser_PreviewChanged(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t)
	e.drop("p.json", renamePlan("Rename Customer to Client", customer, "Client"))
	e.previewed("p")
	b.open(t, e, "/plan/p")
	// the planner rewrites its plan: archiplan rejects it
	e.drop("p.json", renamePlan("Rename Customer to Churned", customer, "Churned"))
	waitFor(t, "the rejection", func() bool {
		return e.exists("p.rejected") && strings.Contains(e.read("p.report.json"), "PLAN_CHANGED_AFTER_PREVIEW")
	})
	b.do(t, chromedp.WaitVisible(chromedp.ID("changed")))
	if status := b.submit(t, "#approve"); status != 409 {
		t.Fatalf("approve after the change: HTTP %d", status)
	}
	if got := b.text(t, "#result"); !strings.Contains(got, "not waiting for a decision") {
		t.Fatalf("refusal: %q", got)
	}
	if e.exists("p.json") || e.exists("p.approved") || len(e.history()) != 1 {
		t.Fatal("a refused approval renamed or applied the plan")
	}
}

// Rejecting with a reason writes NAME.rejected, and the reason into its preview and report.
func TestBrowser_Reject(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t)
	e.drop("r.json", renamePlan("Rename Customer to Client", customer, "Client"))
	e.previewed("r")
	b.open(t, e, "/plan/r")
	b.do(t, chromedp.SendKeys(chromedp.ID("reason"), "Clients are called customers here"))
	if status := b.submit(t, "#reject"); status != 200 {
		t.Fatalf("reject: HTTP %d", status)
	}
	waitFor(t, "r.rejected", func() bool { return e.exists("r.rejected") && !e.exists("r.json") })
	if pv := e.read("r.preview.md"); !strings.Contains(pv, "Clients are called customers here") || !strings.Contains(pv, "Rename Customer to Client") {
		ls, _ := os.ReadDir(e.inbox)
		var names []string
		for _, f := range ls {
			names = append(names, f.Name())
		}
		t.Fatalf("preview lacks the reason or the plan (inbox: %v):\n%s", names, pv)
	}
	if rep := e.read("r.report.json"); !strings.Contains(rep, "Clients are called customers here") || !strings.Contains(rep, `"verdict": "rejected"`) {
		t.Fatalf("report:\n%s", rep)
	}
	if len(e.history()) != 1 {
		t.Fatal("a rejection changed git")
	}
}

// Revert from history works; a revert that a later commit conflicts with names the object and
// the field that changed since (issue 33: the models decide, in any order).
func TestBrowser_Revert(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t)
	e.approved("a", renamePlan("Rename Customer to Client", customer, "Client"))
	e.approved("b", renamePlan("Rename Client to Patron", customer, "Patron"))
	h := e.history()
	aID, bCommit := h[1].Trailers[store.TrailerPlanID], h[0].Hash
	b.open(t, e, "/history")
	// each entry's changes in words fill in live as the page compares each commit with its parent
	b.do(t, chromedp.WaitVisible(chromedp.CSS(`ol.history > li:first-child ul.changes`)))
	if got := b.text(t, `ol.history > li:first-child ul.changes`); !strings.Contains(got, `renamed "Client" to "Patron"`) {
		t.Fatalf("the newest entry's changes: %q", got)
	}
	b.do(t, chromedp.WaitVisible(chromedp.CSS(`ol.history > li:first-child .pictures img`)))
	b.shot(t, "review-history.png", false)
	if status := b.submit(t, `button[data-revert="`+aID+`"]`); status != 409 {
		t.Fatalf("conflicting revert: HTTP %d", status)
	}
	if got := b.text(t, "#result"); !strings.Contains(got, customer) || !strings.Contains(got, `name is now "Patron"`) {
		t.Fatalf("the refusal does not name the object and field that changed since: %q", got)
	}
	if len(e.history()) != 3 {
		t.Fatal("a refused revert committed")
	}
	bID := h[0].Trailers[store.TrailerPlanID]
	b.goTo(t, e, "/history")
	if status := b.submit(t, `button[data-revert="`+bID+`"]`); status != 200 {
		t.Fatalf("revert: HTTP %d: %s", status, b.text(t, "#result"))
	}
	h = e.history()
	if len(h) != 4 || h[0].Trailers[store.TrailerRevertsPlan] != bID || h[0].Trailers[store.TrailerRevertsCommit] != bCommit {
		t.Fatalf("revert commit: %+v", h[0])
	}
	// the history shows it, and offers no second revert of b
	b.goTo(t, e, "/history")
	b.do(t, chromedp.WaitVisible(chromedp.CSS(`li.kind-revert`)))
	n, _ := chromedp.Run(b.ctx, chromedp.Evaluate[float64](`document.querySelectorAll('button[data-revert="`+bID+`"]').length`))
	if n != 0 {
		t.Fatal("a reverted plan still offers Revert")
	}
}

// The history page holds still under a person's pointer: each picture has its room before it
// loads, and a change that leaves the page as it was redraws nothing. The page's first update,
// made as its event stream opens, replaced every entry while a test (or a person) was clicking
// Revert, and the pictures, loading again without a size, moved the buttons below them: a click
// measured before that landed beside its button.
func TestBrowser_HistoryHoldsStill(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t)
	e.approved("a", renamePlan("Rename Customer to Client", customer, "Client"))
	b.open(t, e, "/history")
	// the update made as the stream opened is done, the entry compared, its pictures loaded
	loaded := `Number(document.body.dataset.updates || 0) >= 1 && !document.querySelector('.comparing') &&
		document.querySelectorAll('ol.history figure img').length > 0 &&
		[...document.querySelectorAll('ol.history figure img')].every((i) => i.complete && i.naturalWidth > 0)`
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](loaded, chromedp.WithPollingTimeout(0))); err != nil {
		t.Fatalf("the history's pictures: %v", err)
	}
	pics := b.eval(t, `[...document.querySelectorAll('ol.history figure img')].map((i) =>
		[i.getAttribute('width'), i.getAttribute('height'), String(i.naturalWidth), String(i.naturalHeight), i.closest('.viewer') !== null])`).([]any)
	for _, p := range pics {
		p := p.([]any)
		if p[0] == nil || p[0] != p[2] || p[1] != p[3] {
			t.Errorf("a picture's room is %vx%v before it loads, and it is %vx%v", p[0], p[1], p[2], p[3])
		}
		if p[4] != true {
			t.Errorf("a picture lost its viewer when the page was updated")
		}
	}
	// a change that leaves the history as it was: the page updates and keeps every node
	n := b.eval(t, `document.querySelector('ol.history').dataset.kept = "1"; Number(document.body.dataset.updates)`).(float64)
	e.local.Notify()
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](fmt.Sprintf(`Number(document.body.dataset.updates) > %v`, n), chromedp.WithPollingTimeout(0))); err != nil {
		t.Fatalf("no update after a change: %v", err)
	}
	if kept := b.eval(t, `document.querySelector('ol.history').dataset.kept`); kept != "1" {
		t.Fatalf("an update that changed nothing redrew the history (mark %v)", kept)
	}
}

// A request without the token gets 403, in a browser too.
func TestBrowser_NoToken(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t)
	res, err := chromedp.Run(b.ctx, chromedp.NavigateResponse(e.root+"/"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != 403 {
		t.Fatalf("without the token: HTTP %d", res.Status)
	}
	if got := b.text(t, "body"); !strings.Contains(got, "403 forbidden") || strings.Contains(got, "Inbox") {
		t.Fatalf("page without the token: %q", got)
	}
}

// A name and a summary holding <script> show as text; nothing a planner wrote runs.
func TestBrowser_ScriptName(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t)
	evil := "<script>alert(1)<script>"
	e.drop(evil+".json", renamePlan("x", customer, "y"))
	summary := `<script>alert(2)</script><img src=x onerror="alert(3)">`
	e.drop("summary.json", renamePlan(summary, customer, "<b>bold</b>"))
	e.previewed("summary")
	b.open(t, e, "/")
	b.do(t, chromedp.WaitVisible(chromedp.CSS(`tr.state-refused`)))
	if got := b.text(t, `tr.state-refused td.name span`); got != evil {
		t.Fatalf("the name shows as %q", got)
	}
	if got := b.text(t, `tr[data-plan="summary"] td.summary`); got != summary {
		t.Fatalf("the summary shows as %q", got)
	}
	b.goTo(t, e, "/plan/summary")
	if got := b.text(t, ".preview h1"); !strings.Contains(got, "<script>alert(2)</script>") {
		t.Fatalf("the preview's title shows as %q", got)
	}
	scripts, _ := chromedp.Run(b.ctx, chromedp.Evaluate[float64](`document.querySelectorAll('main script, main img[src="x"], main b').length`))
	if scripts != 0 {
		t.Fatalf("%v elements a planner wrote became HTML", scripts)
	}
	if n := b.dialogs.Load(); n != 0 {
		t.Fatalf("%d dialogs opened: a planner's script ran", n)
	}
}

// The views page lists the model's views, and a view is drawn at HEAD.
func TestBrowser_Views(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t)
	b.open(t, e, "/views")
	if got := b.text(t, `ul.views a`); got != "Main view" {
		t.Fatalf("views: %q", got)
	}
	b.do(t, chromedp.Click(chromedp.CSS(`ul.views a`), chromedp.NodeVisible), chromedp.WaitVisible(chromedp.CSS(`figure.view img`)))
	ok, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`(() => { const i = document.querySelector('figure.view img'); return i.complete && i.naturalWidth > 0 })()`))
	if err != nil || !ok {
		t.Fatalf("the view is not drawn: %v", err)
	}
	src, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('figure.view img').getAttribute('src')`))
	if src != e.srv.Base()+"/svg/"+mainView {
		t.Fatalf("the view's picture comes from %q", src)
	}
}

// issue 18: after the person opens the login address, the same browser visits a listener a
// planner runs on another loopback port (another OS user may run it). It must receive nothing it
// can use: no cookie, no Referer, neither the token nor the session's path; and what it received,
// sent back to the page with the page's CSRF value and Origin, is refused.
func TestBrowser_OtherPort(t *testing.T) {
	e := newEnv(t)
	b := newBrowser(t)
	e.drop("p.json", renamePlan("Rename Customer to Client", customer, "Client"))
	e.previewed("p")
	b.open(t, e, "/plan/p")

	got := make(chan http.Header, 4)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Clone()
		h.Set("X-Request-URI", r.RequestURI)
		got <- h
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!doctype html><title>other</title><h1 id=other-port>other port</h1>")
	}))
	defer other.Close()
	// from the page itself (a link the person follows) and typed in
	b.eval(t, `(() => { const a = document.createElement('a'); a.href = `+strconv.Quote(other.URL+"/from-page")+`; document.body.append(a); a.click(); return 1; })()`)
	var received []http.Header
	for len(received) < 2 {
		if len(received) == 1 {
			// the followed link's page first, whole: a navigation typed while it is still
			// loading is aborted by it (net::ERR_ABORTED on a loaded machine)
			b.do(t, chromedp.WaitVisible(chromedp.CSS("#other-port")))
			b.do(t, chromedp.Navigate(other.URL+"/typed"))
		}
		select {
		case h := <-got:
			if strings.HasPrefix(h.Get("X-Request-URI"), "/favicon") {
				continue
			}
			received = append(received, h)
		case <-time.After(5 * time.Minute):
			t.Fatalf("the other port received %d requests, want 2", len(received))
		}
	}
	for _, h := range received {
		if c := h.Get("Cookie"); c != "" {
			t.Errorf("the other port received a cookie: %q", c)
		}
		for k, vs := range h {
			for _, v := range vs {
				if strings.Contains(v, e.srv.Token()) || strings.Contains(v, e.srv.Base()) {
					t.Errorf("the other port received the page's secret in %s: %q", k, v)
				}
			}
		}
	}
	// the replay: whatever the other port received, with the page's CSRF value and Origin
	pg, err := e.srv.cfg.Backend.Plan("p")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range received {
		for _, path := range []string{"/", "/plan/p", "/plan/p/approve"} {
			method, form := http.MethodGet, ""
			if strings.HasSuffix(path, "/approve") {
				method, form = http.MethodPost, url.Values{"csrf": {e.srv.csrf}, "preview_sha256": {pg.PreviewSHA256}}.Encode()
			}
			req, _ := http.NewRequest(method, e.root+path, strings.NewReader(form))
			for k, vs := range h {
				if k != "X-Request-Uri" && k != "Content-Length" {
					req.Header[k] = vs
				}
			}
			req.Header.Set("Origin", e.root)
			if form != "" {
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Body.Close(); res.StatusCode != http.StatusForbidden {
				t.Errorf("%s %s replayed from the other port: %s", method, path, res.Status)
			}
		}
	}
	if !e.exists("p.json") || len(e.history()) != 1 {
		t.Fatal("a replay approved the plan")
	}
}

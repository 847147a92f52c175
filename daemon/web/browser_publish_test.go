package web

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/publish"
	"github.com/archiplan/archiplan/internal/testenv"
	"github.com/archiplan/archiplan/store"
)

// The published site of the largest corpus model, opened from the file system in Chromium: a
// view page shows its picture, a click on an object reaches its element's page, the search box
// finds an element by name, and no request leaves the site's folder.
func TestBrowser_PublishedSite(t *testing.T) {
	var biggest string
	var size int64
	for _, f := range testenv.CorpusModels(t) {
		if fi, err := os.Stat(f); err == nil && fi.Size() > size {
			biggest, size = f, fi.Size()
		}
	}
	b := newBrowser(t)
	seed, err := os.ReadFile(biggest)
	if err != nil {
		t.Fatal(err)
	}
	ws, _, err := store.Init(t.TempDir(), store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed,
		Author: store.Signature{Name: "Test", Email: "test@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	head, err := ws.Head()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "site")
	if _, err := publish.Publish(ws, head, dir); err != nil {
		t.Fatal(err)
	}
	m, err := archixml.Load(seed)
	if err != nil {
		t.Fatal(err)
	}
	root := (&url.URL{Scheme: "file", Path: dir + "/"}).String()

	// every request the pages make, and every load that fails (a CSP refusal among them)
	var mu sync.Mutex
	var requests, failures []string
	if err := chromedp.Listen(b.ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			requests = append(requests, ev.Request.URL)
		case *network.EventLoadingFailed:
			failures = append(failures, ev.ErrorText+" "+string(ev.BlockedReason))
		}
	}); err != nil {
		t.Fatal(err)
	}

	// the view with the most elements drawn
	var view archixml.Object
	most := 0
	for _, v := range m.Views() {
		n := 0
		for _, d := range v.DiagramObjects() {
			if c, ok := d.Concept(); ok && c.Kind() == archixml.KindElement {
				n++
			}
		}
		if n > most {
			view, most = v, n
		}
	}
	if most == 0 {
		t.Fatalf("%s has no view with elements", biggest)
	}
	b.do(t, chromedp.Navigate(root+"v/"+publish.FileName(view.ID())+".html"), chromedp.WaitVisible(chromedp.CSS("#picture svg")))
	w := b.eval(t, `document.querySelector("#picture svg").getBoundingClientRect().width`)
	if f, _ := w.(float64); f < 50 {
		t.Fatalf("the view's picture is %v px wide", w)
	}
	b.shot(t, "publish-view.png", false)
	// an element's object that a click at its middle reaches (a nested one may cover another)
	picked := b.eval(t, `(() => {
  for (const a of document.querySelectorAll('#picture svg a[href^="../e/"]')) {
    a.scrollIntoView({block: "center", inline: "center"});
    const r = a.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (r.width > 10 && hit && hit.closest("a") === a) { a.setAttribute("data-picked", ""); return a.getAttribute("href"); }
  }
  return "";
})()`)
	href, _ := picked.(string)
	if href == "" {
		t.Fatal("no object of the view can be clicked")
	}
	id := strings.TrimSuffix(strings.TrimPrefix(href, "../e/"), ".html")
	want := ""
	for _, e := range m.Elements() {
		if publish.FileName(e.ID()) == id {
			want = e.Name()
		}
	}
	b.do(t, chromedp.Click(chromedp.CSS("[data-picked]")))
	waitFor(t, "the element's page", func() bool {
		loc, err := chromedp.Run(b.ctx, chromedp.Location())
		return err == nil && strings.HasSuffix(loc, "/e/"+id+".html")
	})
	b.do(t, chromedp.WaitVisible(chromedp.CSS("h1")))
	if got := b.text(t, "h1"); got != strings.TrimSpace(want) && !(want == "" && got == "(no name)") {
		t.Fatalf("the element's page is titled %q, want %q", got, want)
	}
	b.shot(t, "publish-element.png", false)

	// the search box, from the index page: an element found by its name
	var name string
	for _, e := range m.Elements() {
		if n := e.Name(); len(n) > 8 && len(n) < 40 && !strings.ContainsAny(n, "\r\n\t") {
			name = n
			break
		}
	}
	b.do(t, chromedp.Navigate(root+"index.html"), chromedp.WaitVisible(chromedp.CSS("#q")),
		chromedp.SendKeys(chromedp.CSS("#q"), name+"\r"))
	b.do(t, chromedp.WaitVisible(chromedp.CSS("#results a")))
	found := b.eval(t, `Array.from(document.querySelectorAll("#results a")).map((a) => a.textContent)`)
	hits, _ := found.([]any)
	ok := false
	for _, h := range hits {
		ok = ok || h == name
	}
	if !ok {
		t.Fatalf("searching %q finds %v", name, hits)
	}
	b.shot(t, "publish-search.png", false)
	b.do(t, chromedp.Click(chromedp.CSS("#results a")))
	waitFor(t, "a result's page", func() bool {
		loc, err := chromedp.Run(b.ctx, chromedp.Location())
		return err == nil && strings.Contains(loc, "/e/")
	})

	mu.Lock()
	defer mu.Unlock()
	if len(requests) < 5 {
		t.Fatalf("only %d requests seen: %v", len(requests), requests)
	}
	for _, u := range requests {
		if !strings.HasPrefix(u, root) {
			t.Errorf("a request outside the site's folder: %s", u)
		}
	}
	if len(failures) > 0 {
		t.Errorf("loads that failed: %v", failures)
	}
}

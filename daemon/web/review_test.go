package web

import (
	"html"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/archiplan/archiplan/archixml"
)

// branchWith commits a model on a new branch beside the one checked out (git's plumbing: the
// work tree and HEAD the daemon watches stay as they are), as a colleague's pushed branch is.
func (e *env) branchWith(name string, model []byte) {
	e.t.Helper()
	git := func(env []string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = e.ws.Root
		cmd.Env = append(os.Environ(), env...)
		cmd.Env = append(cmd.Env, "GIT_AUTHOR_NAME=Alice", "GIT_AUTHOR_EMAIL=alice@example.org",
			"GIT_COMMITTER_NAME=Alice", "GIT_COMMITTER_EMAIL=alice@example.org")
		out, err := cmd.CombinedOutput()
		if err != nil {
			e.t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	f := filepath.Join(e.t.TempDir(), "model.archimate")
	if err := os.WriteFile(f, model, 0o644); err != nil {
		e.t.Fatal(err)
	}
	idx := []string{"GIT_INDEX_FILE=" + filepath.Join(e.t.TempDir(), "index")}
	blob := git(nil, "hash-object", "-w", f)
	git(idx, "read-tree", "HEAD")
	git(idx, "update-index", "--add", "--cacheinfo", "100644,"+blob+",model.archimate")
	tree := git(idx, "write-tree")
	commit := git(nil, "commit-tree", tree, "-p", "HEAD", "-m", "edited in Archi")
	git(nil, "branch", name, commit)
}

// The review page lists the local branches and shows what one changes against the branch the
// workspace is on, as a plan's preview shows a plan: the changes in words, the picture of the
// changed view (served by the page, as archiplan drew it), the finding of Archi's validator it
// adds. A branch's name is text wherever it is shown; a name that is no local branch is 404.
func TestServer_ReviewsABranch(t *testing.T) {
	e := newEnv(t)
	m := archixml.Example()
	if err := m.Rename(customer, "Client"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateElement("BusinessActor", "Auditor", ""); err != nil {
		t.Fatal(err)
	}
	model, err := m.Save()
	if err != nil {
		t.Fatal(err)
	}
	const odd = `al"<i>&ice`
	e.branchWith(odd, model)
	c := e.client()
	res, err := c.Get(e.base + "/review")
	if err != nil {
		t.Fatal(err)
	}
	b := body(t, res)
	if res.StatusCode != http.StatusOK || !strings.Contains(b, `id="branches"`) {
		t.Fatalf("the branches page: %s\n%s", res.Status, b)
	}
	if strings.Contains(b, "<i>") || !strings.Contains(b, html.EscapeString(odd)) {
		t.Fatalf("the branch's name is not shown as text:\n%s", b)
	}
	if strings.Contains(b, ">main</a>") {
		t.Error("the branch the workspace is on is offered for review against itself")
	}
	link := regexp.MustCompile(`href="([^"]*/review\?branch=[^"]*)"`).FindStringSubmatch(b)
	if link == nil {
		t.Fatalf("no link to the branch's review:\n%s", b)
	}
	res, err = c.Get(e.root + html.UnescapeString(link[1]))
	if err != nil {
		t.Fatal(err)
	}
	b = body(t, res)
	for _, want := range []string{`id="review"`, `renamed &quot;Customer&quot; to &quot;Client&quot;`, `added Business Actor &quot;Auditor&quot;`,
		"ARCHI_UNUSED_ELEMENT", "Review of <code>main..al&#34;&lt;i&gt;&amp;ice</code>"} {
		if !strings.Contains(b, want) {
			t.Errorf("the review does not show %s:\n%s", want, b)
		}
	}
	img := regexp.MustCompile(`<img src="([^"]*/review/picture\?[^"]*)"`).FindStringSubmatch(b)
	if img == nil {
		t.Fatalf("the review shows no picture:\n%s", b)
	}
	res, err = c.Get(e.root + html.UnescapeString(img[1]))
	if err != nil {
		t.Fatal(err)
	}
	svg := body(t, res)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "image/svg+xml") ||
		!strings.Contains(res.Header.Get("Content-Security-Policy"), "sandbox") || !strings.Contains(svg, `data-mark="renamed"`) {
		t.Fatalf("the picture: %s %v\n%.300s", res.Status, res.Header, svg)
	}
	for _, path := range []string{"/review?branch=nope", "/review/picture?branch=nope&file=review.view-1.after.svg"} {
		res, err = c.Get(e.base + path)
		if err != nil {
			t.Fatal(err)
		}
		if body(t, res); res.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %s, want 404", path, res.Status)
		}
	}
	// without the session, nothing
	res, err = http.Get(e.root + "/review")
	if err != nil {
		t.Fatal(err)
	}
	if b := body(t, res); res.StatusCode == http.StatusOK || strings.Contains(b, "Auditor") {
		t.Errorf("the review page without the session: %s", res.Status)
	}
}

// In a browser, a branch's review shows its pictures (loaded from the page, under its CSP), and a
// branch named like markup runs nothing.
func TestBrowser_ReviewPictures(t *testing.T) {
	e := newEnv(t)
	m := archixml.Example()
	if err := m.Rename(customer, "Client"); err != nil {
		t.Fatal(err)
	}
	model, err := m.Save()
	if err != nil {
		t.Fatal(err)
	}
	e.branchWith(`x"><img/src=x/onerror=alert(1)>`, model)
	b := newBrowser(t)
	b.open(t, e, "/review")
	b.do(t, chromedp.Click(chromedp.CSS("#branches a"), chromedp.NodeVisible), chromedp.WaitVisible(chromedp.CSS("#review")))
	waitFor(t, "the review's pictures loaded", func() bool {
		return b.eval(t, `(() => { const l = Array.from(document.querySelectorAll("#review img"));
			return l.length >= 2 && l.every(i => i.complete && i.naturalWidth > 0); })()`) == true
	})
	if n := b.dialogs.Load(); n != 0 {
		t.Fatalf("%d dialog(s) opened: a branch's name ran as a script", n)
	}
}

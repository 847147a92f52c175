package publish

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/internal/testenv"
	"github.com/archiplan/archiplan/store"
)

// Names a planner might write to break out of a page: markup, an attribute break-out, Markdown
// that would turn into a link, and a right-to-left override that would reverse the text after it.
const (
	hostileScript   = `<script>alert("name")</script>`
	hostileAttr     = `"><img src=x onerror=alert(1)>`
	hostileMarkdown = `[click](javascript:alert(1)) **bold** <b>raw</b>`
	hostileBidi     = "invoice\u202Etxt.exe"
	hostileID       = `../evil "><b>id</b>`
)

// hostileModel is the example model with planner-written names, documentation and properties
// that try to break out of the page, and one element whose id does.
func hostileModel(t *testing.T) []byte {
	t.Helper()
	m := archixml.Example()
	steps := []error{
		m.Rename(customer, hostileScript),
		m.SetDocumentation(customer, hostileMarkdown+"\n"+hostileAttr),
		m.SetProperty(customer, hostileAttr, hostileScript),
		m.Rename(desk, hostileAttr),
	}
	id, err := m.CreateElement("BusinessActor", hostileBidi, "")
	steps = append(steps, err)
	_, _, err = m.AddToView(mainView, id, nil)
	steps = append(steps, err)
	v, err := m.CreateView(hostileMarkdown, "", "")
	steps = append(steps, err)
	_, _, err = m.AddToView(v, customer, nil)
	steps = append(steps, err)
	if err := errors.Join(steps...); err != nil {
		t.Fatal(err)
	}
	data, err := m.Save()
	if err != nil {
		t.Fatal(err)
	}
	// an id is the model file's to choose: one that is a path and markup
	var esc bytes.Buffer
	if err := xmlEscape(&esc, hostileID); err != nil {
		t.Fatal(err)
	}
	return bytes.ReplaceAll(data, []byte(id), esc.Bytes())
}

func xmlEscape(b *bytes.Buffer, s string) error {
	r := strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&quot;")
	_, err := r.WriteString(b, s)
	return err
}

// Ids of the built-in example model.
const (
	customer = "id-59a96df4cd3e24d3da41e81a8c7d1335"
	desk     = "id-37914ef915915bd2606e2c7216356e27"
	mainView = "id-8ec058ffdd586dec87035fe47b31819a"
)

// env is a real workspace (a temp git repository) with a ledger over it.
type env struct{ ws *store.Workspace }

// renamePlan is a ready plan that renames one element.
func renamePlan(summary, id, name string) string {
	return fmt.Sprintf(`{"schema_version": "1.0", "status": "ready", "summary": %q, "questions": [],
  "actions": [{"op": "rename_element", "element_id": %q, "new_name": %q}]}`+"\n", summary, id, name)
}

// newEnv is a workspace holding the example model.
func newEnv(t *testing.T) *env {
	t.Helper()
	seed, err := archixml.Example().Save()
	if err != nil {
		t.Fatal(err)
	}
	ws, _, err := store.Init(t.TempDir(), store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed, Author: ledgertest.Signature})
	if err != nil {
		t.Fatal(err)
	}
	return &env{ws: ws}
}

// publishEnv is a workspace with the hostile model, one applied plan with a hostile summary in
// its history, and its site.
func publishEnv(t *testing.T) (*env, string) {
	t.Helper()
	ws, _, err := store.Init(t.TempDir(), store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: hostileModel(t),
		Author: ledgertest.Signature})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{ws: ws}
	led := ledger.New(ledger.Config{Workspace: ws, Inbox: ledgertest.Inbox(ws), ApprovedBy: ledgertest.Signature})
	if err := ledgertest.Inbox(ws).SaveConversation(&inbox.Conversation{Name: "hostile", Intent: "call it " + hostileScript}); err != nil {
		t.Fatal(err)
	}
	ledgertest.Preview(t, led, "hostile", []byte(renamePlan(hostileScript+" "+hostileBidi, customer, hostileAttr+" renamed")))
	if _, err := ledgertest.Approve(t, led, "hostile"); err != nil {
		t.Fatal(err)
	}
	head, err := e.ws.Head()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "site")
	site, err := Publish(e.ws, head, dir)
	if err != nil {
		t.Fatal(err)
	}
	if site.Pages < 10 || site.Commit != head {
		t.Fatalf("site: %+v", site)
	}
	if os.Getenv("KEEP_SITE") != "" {
		_ = os.RemoveAll(os.Getenv("KEEP_SITE"))
		_ = os.CopyFS(os.Getenv("KEEP_SITE"), os.DirFS(dir))
	}
	return e, dir
}

// sitePages reads every HTML page of a site, by path from its root.
func readSite(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// Every page of the site: its links all lead to files of the site, nothing is loaded from
// outside it, no script runs inline, and the planner's names are text, isolated for direction.
func TestPublish_PagesEscapedAndLinked(t *testing.T) {
	_, dir := publishEnv(t)
	files := readSite(t, dir)
	texts := map[string]bool{} // every text node of every page
	bdi := map[string]bool{}   // the texts inside <bdi>
	links := 0
	for rel, data := range files {
		switch {
		case strings.HasSuffix(rel, ".css"):
			if bytes.Contains(data, []byte("url(")) || bytes.Contains(data, []byte("@import")) {
				t.Errorf("%s loads something: %s", rel, data)
			}
			continue
		case !strings.HasSuffix(rel, ".html"):
			continue
		}
		if !bytes.Contains(data, []byte(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self'`)) {
			t.Errorf("%s: no strict CSP", rel)
		}
		z := html.NewTokenizer(bytes.NewReader(data))
		var stack []string
		for {
			tt := z.Next()
			if tt == html.ErrorToken {
				break
			}
			tok := z.Token()
			switch tt {
			case html.StartTagToken, html.SelfClosingTagToken:
				if tt == html.StartTagToken {
					stack = append(stack, tok.Data)
				}
				for _, a := range tok.Attr {
					key := strings.ToLower(a.Key)
					if strings.HasPrefix(key, "on") || key == "style" || key == "srcdoc" {
						t.Errorf("%s: <%s %s=%q>", rel, tok.Data, a.Key, a.Val)
					}
					if key != "href" && key != "src" && key != "action" && key != "xlink:href" {
						continue
					}
					links++
					u := a.Val
					if scheme.MatchString(u) || strings.HasPrefix(u, "/") || strings.HasPrefix(u, "\\") {
						t.Errorf("%s: <%s %s=%q> leaves the site", rel, tok.Data, a.Key, u)
						continue
					}
					if u == "" || strings.HasPrefix(u, "#") { // the page itself (a link the preview's Markdown had, emptied)
						continue
					}
					u, _, _ = strings.Cut(u, "#")
					u, _, _ = strings.Cut(u, "?")
					target := path.Clean(path.Join(path.Dir(rel), u))
					if strings.HasPrefix(target, "..") {
						t.Errorf("%s: %q leads out of the site", rel, a.Val)
					} else if _, ok := files[target]; !ok {
						t.Errorf("%s: %q leads to %s, which was not written", rel, a.Val, target)
					}
				}
				if tok.Data == "script" {
					if !hasAttr(tok, "src") {
						t.Errorf("%s: an inline script", rel)
					}
				}
			case html.EndTagToken:
				if n := len(stack); n > 0 {
					stack = stack[:n-1]
				}
			case html.TextToken:
				if len(stack) > 0 && stack[len(stack)-1] == "script" && strings.TrimSpace(tok.Data) != "" {
					t.Errorf("%s: inline script %q", rel, tok.Data)
				}
				texts[tok.Data] = true
				if len(stack) > 0 && stack[len(stack)-1] == "bdi" {
					bdi[tok.Data] = true
				}
			}
		}
		for _, bad := range []string{"<script>alert", "<img src=x", "<b>raw</b>", "<b>id</b>", `href="javascript`} {
			if bytes.Contains(data, []byte(bad)) {
				t.Errorf("%s holds %q unescaped", rel, bad)
			}
		}
	}
	if links < 100 {
		t.Fatalf("only %d links checked", links)
	}
	// the names are there, as text, each isolated (the override as its code, as everywhere)
	for _, name := range []string{hostileAttr, hidden.Show(hostileBidi), hostileMarkdown, hostileAttr + " renamed"} {
		if !bdi[name] {
			t.Errorf("the name %q is not text inside <bdi> on any page", name)
		}
	}
	if !texts[hostileMarkdown+"\n"+hostileAttr] {
		t.Errorf("the documentation is not shown as text")
	}
	// the hostile id has a page, under a name that is no path
	for rel := range files {
		if strings.Contains(rel, "evil") || strings.Contains(rel, "<") {
			t.Errorf("a file named from a hostile id: %s", rel)
		}
	}
	// the applied plan: in the history, with its preview
	if !bytes.Contains(files["history.html"], []byte("hostile-")) {
		t.Errorf("the history does not name the applied plan")
	}
	plans := 0
	for rel, data := range files {
		if strings.HasPrefix(rel, "h/") && strings.HasSuffix(rel, ".html") {
			plans++
			if !bytes.Contains(data, []byte(`class="preview"`)) {
				t.Errorf("%s has no preview", rel)
			}
			// its pictures are images, never documents a link opens
			if !bytes.Contains(data, []byte(`<img src="hostile-`)) || regexp.MustCompile(`href="[^"]*\.svg"`).Match(data) {
				t.Errorf("%s: the pictures are not images only", rel)
			}
		}
	}
	if plans != 1 {
		t.Errorf("%d plan pages, want 1", plans)
	}
	// the view's picture links its objects to their pages
	view := files["v/"+mainView+".html"]
	if !bytes.Contains(view, []byte(`<a href="../e/`+customer+`.html">`)) {
		t.Errorf("the view's picture does not link the customer to its page")
	}
	if !bytes.Contains(files["static/search-index.js"], []byte(`\u003cimg src=x onerror`)) {
		t.Errorf("the search index does not hold the hostile name as escaped data")
	}
}

func hasAttr(tok html.Token, key string) bool {
	for _, a := range tok.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// Publish writes over its own site only; an error leaves the site there as it was.
func TestPublish_OnlyOverItsOwnSite(t *testing.T) {
	e := newEnv(t)
	head, err := e.ws.Head()
	if err != nil {
		t.Fatal(err)
	}
	// a folder holding someone's file is refused, and the file stays
	mine := filepath.Join(t.TempDir(), "mine")
	if err := os.MkdirAll(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Publish(e.ws, head, mine); !errors.Is(err, ErrNotSite) {
		t.Fatalf("publish into a folder of others' files: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(mine, "notes.txt")); string(got) != "mine" {
		t.Fatalf("the file was touched: %q", got)
	}
	// nor through a symbolic link
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(mine, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Publish(e.ws, head, link); !errors.Is(err, ErrNotSite) {
		t.Fatalf("publish through a link: %v", err)
	}
	// its own site, written again; a failed publish leaves it as it was, and no temp folder
	dir := filepath.Join(t.TempDir(), "site")
	if _, err := Publish(e.ws, head, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := Publish(e.ws, head, dir); err != nil {
		t.Fatalf("publish over its own site: %v", err)
	}
	before := readSite(t, dir)
	if _, err := Publish(e.ws, strings.Repeat("0", 40), dir); err == nil {
		t.Fatal("a commit that is not there published")
	}
	after := readSite(t, dir)
	if len(after) != len(before) {
		t.Fatalf("%d files before the failed publish, %d after", len(before), len(after))
	}
	for rel, data := range before {
		if !bytes.Equal(after[rel], data) {
			t.Fatalf("%s changed by a failed publish", rel)
		}
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".site.publish-*"))
	if len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
}

// The site names a view's viewpoint as Archi shows it (not its id), and an element's
// specialization on its page.
func TestPublish_ViewpointAndSpecializationNames(t *testing.T) {
	for _, c := range []struct{ model, page, want, not string }{
		{"archi/Archisurance.archimate", siteViews + "/" + siteFile("4056") + ".html", "viewpoint Layered", "viewpoint layered"},
		{"realworld/pyArchimate__pyArchimate__profile.archimate", "", "· specialization <bdi>", ""},
	} {
		seed, err := os.ReadFile(testenv.CorpusFile(t, c.model))
		if err != nil {
			t.Fatal(err)
		}
		ws, head, err := store.Init(t.TempDir(), store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed,
			Author: store.Signature{Name: "t", Email: "t@t"}})
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "site")
		if _, err := Publish(ws, head, dir); err != nil {
			t.Fatal(err)
		}
		found := false
		for rel, data := range readSite(t, dir) {
			if c.page != "" && rel != c.page {
				continue
			}
			found = found || bytes.Contains(data, []byte(c.want))
			if c.not != "" && bytes.Contains(data, []byte(c.not)) {
				t.Errorf("%s: %s shows %q", c.model, rel, c.not)
			}
		}
		if !found {
			t.Errorf("%s: no page (%s) shows %q", c.model, c.page, c.want)
		}
	}
}

// The one walk for the index pages and an update finds what Views, Profiles, Elements and
// Relationships find, in the same order (the index counts them; an update compares the
// specializations and lists the views).
func TestShapeOf_IsWhatAllFinds(t *testing.T) {
	ids := func(list []archixml.Object) []string {
		out := make([]string, len(list))
		for i, o := range list {
			out[i] = o.ID()
		}
		return out
	}
	for _, file := range testenv.CorpusModels(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m, err := archixml.Load(data)
		if err != nil {
			continue // a model the corpus holds to be refused
		}
		sh := shapeOf(m)
		if !slices.Equal(ids(sh.views), ids(m.Views())) || !slices.Equal(ids(sh.profiles), ids(m.Profiles())) ||
			sh.elements != len(m.Elements()) || sh.relationships != len(m.Relationships()) {
			t.Errorf("%s: shapeOf: %d views, %d profiles, %d elements, %d relationships; All: %d, %d, %d, %d", file,
				len(sh.views), len(sh.profiles), sh.elements, sh.relationships, len(m.Views()), len(m.Profiles()), len(m.Elements()), len(m.Relationships()))
		}
	}
}

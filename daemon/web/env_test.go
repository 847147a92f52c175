package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/store"
)

// Ids of the built-in example model.
const (
	customer = "id-59a96df4cd3e24d3da41e81a8c7d1335"
	desk     = "id-37914ef915915bd2606e2c7216356e27"
	mainView = "id-8ec058ffdd586dec87035fe47b31819a"
)

// env is a real workspace (a temp git repository with the example model), a real daemon
// watching it, and the review page serving it on a loopback port.
type env struct {
	t        *testing.T
	ws       *store.Workspace
	inbox    string
	daemon   *daemon.Daemon
	srv      *Server
	local    *Local // the page's backend
	root     string // http://127.0.0.1:PORT
	base     string // root and the session's path: where the pages are
	operator store.Signature
}

func newEnv(t *testing.T) *env {
	t.Helper()
	seed, err := archixml.Example().Save()
	if err != nil {
		t.Fatal(err)
	}
	return newEnvWith(t, seed)
}

// newEnvWith is newEnv on a model of the test's choosing.
func newEnvWith(t *testing.T, seed []byte) *env {
	t.Helper()
	dir := t.TempDir()
	op := store.Signature{Name: "Daemon Operator", Email: "ops@example.org"}
	ws, _, err := store.Init(dir, store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed, Author: op})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, ws: ws, inbox: filepath.Join(ws.Root, "plans"), operator: op}
	led := ledger.New(ledger.Config{Workspace: ws, Inbox: inbox.New(e.inbox, ws.GitPath("archiplan/inbox")), ApprovedBy: op})
	e.daemon = daemon.New(daemon.Config{Ledger: led, Debounce: 20 * time.Millisecond, Settle: 50 * time.Millisecond, Rescan: time.Second})
	backend := NewLocal(LocalConfig{Ledger: led, Poll: 50 * time.Millisecond, Exclusive: e.daemon.Exclusive})
	e.daemon.Changed = backend.Notify
	e.local = backend
	if err := e.daemon.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.daemon.Close() })
	e.srv, err = New(Config{Backend: backend, Operator: op.Name + " <" + op.Email + ">"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.Open("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.srv.Close() })
	e.root = strings.TrimSuffix(e.srv.URL(), "/?token="+e.srv.Token())
	e.base = e.root + e.srv.Base()
	return e
}

// renamePlan is a ready plan that renames one element.
func renamePlan(summary, id, name string) string {
	return fmt.Sprintf(`{"schema_version": "1.0", "status": "ready", "summary": %q, "questions": [],
  "actions": [{"op": "rename_element", "element_id": %q, "new_name": %q}]}`+"\n", summary, id, name)
}

// drop writes a plan into the inbox as a planner would: a temp file, then a rename.
func (e *env) drop(name, plan string) {
	e.t.Helper()
	if err := store.WriteFileAtomic(filepath.Join(e.inbox, name), []byte(plan), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) exists(name string) bool {
	_, err := os.Lstat(filepath.Join(e.inbox, name))
	return err == nil
}

func (e *env) read(name string) string {
	b, _ := os.ReadFile(filepath.Join(e.inbox, name))
	return string(b)
}

// waitFor polls a condition that the daemon or the browser makes true; the limit is far beyond
// need (a shared, loaded machine) and only ends a test that would otherwise hang.
func waitFor(t *testing.T, what string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 5 minutes", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// previewed waits until the daemon has previewed plan NAME: outputs on disk, and its record.
func (e *env) previewed(name string) {
	e.t.Helper()
	// the state the page reads, not only the files: the record is written after them, and a page
	// drawn in between would bind an approval to a preview the daemon is still recording
	waitFor(e.t, name+" previewed", func() bool {
		if !e.exists(name+".report.json") || !e.exists(name+".preview.md") {
			return false
		}
		p, err := e.srv.cfg.Backend.Plan(name)
		return err == nil && p.State == StatePreviewed && p.PreviewSHA256 == inbox.Hash([]byte(e.read(name+".preview.md")))
	})
}

// history is the first-parent history, newest first.
// approved drops plan NAME, waits for its preview, approves it by renaming, and waits for its
// commit.
func (e *env) approved(name, plan string) {
	e.t.Helper()
	before := len(e.history())
	e.drop(name+".json", plan)
	e.previewed(name)
	if err := os.Rename(filepath.Join(e.inbox, name+".json"), filepath.Join(e.inbox, name+".approved")); err != nil {
		e.t.Fatal(err)
	}
	waitFor(e.t, name+" applied", func() bool { return len(e.history()) == before+1 })
}

func (e *env) history() []store.CommitInfo {
	e.t.Helper()
	h, err := e.ws.History(nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return h
}

// client is an HTTP client, after opening the login address as a browser would: it keeps no
// cookie (none is set); the session is the path of e.base.
func (e *env) client() *http.Client {
	e.t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	res, err := c.Get(e.srv.URL())
	if err != nil {
		e.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		e.t.Fatalf("opening the printed address: %s", res.Status)
	}
	return c
}

// post sends a form as the page would: same origin, CSRF token.
func (e *env) post(c *http.Client, path string, form url.Values, header map[string]string) *http.Response {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", e.root)
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := c.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

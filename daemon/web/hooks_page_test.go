package web

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/hooks"
)

// A hook a pull brought is said on the page while it waits for the person's trust, and no longer
// once it is trusted (issue 36: status and the page say it is waiting).
func TestLocal_HooksWaitingShown(t *testing.T) {
	ws, led, _ := exampleLedger(t)
	s, err := New(Config{Backend: NewLocal(LocalConfig{Ledger: led})})
	if err != nil {
		t.Fatal(err)
	}
	inboxPage := func() string {
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8765"+s.Base()+"/", nil)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("inbox: HTTP %d", rec.Code)
		}
		return rec.Body.String()
	}
	if page := inboxPage(); strings.Contains(page, "hooks-waiting") {
		t.Fatal("a workspace with no hook says one waits")
	}
	hook := []byte("#!/bin/sh\necho pulled\n")
	if err := os.MkdirAll(filepath.Join(ws.Root, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws.Root, "hooks", "pre-apply"), hook, 0o755); err != nil {
		t.Fatal(err)
	}
	trust := ws.GitPath(hooks.TrustFile)
	if _, err := hooks.Hold(trust, "pre-apply", hook); err != nil {
		t.Fatal(err)
	}
	if page := inboxPage(); !strings.Contains(page, `id="hooks-waiting"`) || !strings.Contains(page, "<code>hooks/pre-apply</code>") ||
		!strings.Contains(page, "archiplan hooks trust") {
		t.Fatalf("the held hook is not said:\n%s", page)
	}
	if _, err := hooks.TrustHeld(trust, "pre-apply"); err != nil {
		t.Fatal(err)
	}
	if page := inboxPage(); strings.Contains(page, "hooks-waiting") {
		t.Fatal("a trusted hook is still said to wait")
	}
}

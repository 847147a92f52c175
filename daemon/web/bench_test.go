package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/store"
)

// benchEnv is a workspace with a 10,000-element model (what `archiplan synth --elements 10000`
// writes) and 200 plans in its inbox, previewed by a real daemon, then the daemon stopped: the
// page is measured alone.
func benchEnv(b *testing.B) (*Server, *http.Cookie, string) {
	b.Helper()
	m, err := archixml.Synthesize(archixml.SynthOptions{Elements: 10000, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	seed, err := m.Save()
	if err != nil {
		b.Fatal(err)
	}
	op := store.Signature{Name: "bench", Email: "bench@example.org"}
	ws, _, err := store.Init(b.TempDir(), store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed, Author: op})
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(ws.Root, "plans")
	els := m.Elements()
	for i := 0; i < 200; i++ {
		id := els[i*37%len(els)].ID()
		if i%10 == 9 {
			id = "id-00000000000000000000000000000000" // some invalid ones
		}
		plan := renamePlan(fmt.Sprintf("Rename element %d", i), id, fmt.Sprintf("Renamed %d", i))
		if err := store.WriteFileAtomic(filepath.Join(dir, fmt.Sprintf("plan-%03d.json", i)), []byte(plan), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	past := time.Now().Add(-time.Minute) // settled: the daemon judges them at once
	for i := 0; i < 200; i++ {
		os.Chtimes(filepath.Join(dir, fmt.Sprintf("plan-%03d.json", i)), past, past)
	}
	led := ledger.New(ledger.Config{Workspace: ws, Inbox: inbox.New(dir, ws.GitPath("archiplan/inbox")), ApprovedBy: op})
	d := daemon.New(daemon.Config{Ledger: led})
	if err := d.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	d.Close()
	if n, _ := filepath.Glob(filepath.Join(dir, "*.report.json")); len(n) != 200 {
		b.Fatalf("%d of 200 plans previewed", len(n))
	}
	s, err := New(Config{Backend: NewLocal(LocalConfig{Ledger: led})})
	if err != nil {
		b.Fatal(err)
	}
	return s, &http.Cookie{Name: s.cookie, Value: s.token}, dir
}

func get(b *testing.B, h http.Handler, c *http.Cookie, path string) int {
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8765"+path, nil)
	req.AddCookie(c)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body.String())
	}
	return rec.Body.Len()
}

// BenchmarkPage measures the page's answers on an inbox of 200 plans over a 10k-element model;
// "floor" reads the files the inbox page reads (the listing, every plan and report), the least
// any answer can cost, for a ratio in the same run.
func BenchmarkPage(b *testing.B) {
	s, c, inbox := benchEnv(b)
	h := s.Handler()
	b.Run("floor", func(b *testing.B) {
		for b.Loop() {
			entries, _ := os.ReadDir(inbox)
			for _, e := range entries {
				if _, err := os.ReadFile(filepath.Join(inbox, e.Name())); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	for _, path := range []string{"/", "/plan/plan-100", "/history", "/views", "/plan/plan-100/state"} {
		b.Run(path, func(b *testing.B) {
			n := 0
			for b.Loop() {
				n = get(b, h, c, path)
			}
			b.ReportMetric(float64(n), "bytes/page")
		})
	}
}

package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
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

// benchEnv is a workspace with a 10,000-element model (what `archiplan synth --elements 10000`
// writes), 10 plans applied and 200 waiting in its inbox, previewed by a real daemon, then the
// daemon stopped: the page is measured alone.
func benchEnv(b *testing.B) (*Server, string, string, *ledger.Ledger) {
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
	led := ledger.New(ledger.Config{Workspace: ws, Inbox: inbox.New(dir, ws.GitPath("archiplan/inbox")), ApprovedBy: op})
	d := daemon.New(daemon.Config{Ledger: led, Debounce: 20 * time.Millisecond, Settle: 20 * time.Millisecond})
	if err := d.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	until := func(what string, done func() bool) {
		for deadline := time.Now().Add(5 * time.Minute); !done(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				b.Fatalf("%s: not after 5 minutes", what)
			}
		}
	}
	els := m.Elements()
	// a history of 10 applied plans, each a commit the history page compares with its parent
	for i := 0; i < 10; i++ {
		name := fmt.Sprintf("applied-%02d", i)
		plan := renamePlan(fmt.Sprintf("Applied rename %d", i), els[i*101].ID(), fmt.Sprintf("Applied %d", i))
		if err := store.WriteFileAtomic(filepath.Join(dir, name+".json"), []byte(plan), 0o644); err != nil {
			b.Fatal(err)
		}
		until(name+" previewed", func() bool { _, err := led.Inbox().Record(name); return err == nil })
		if err := led.Inbox().Approve(name); err != nil {
			b.Fatal(err)
		}
		until(name+" applied", func() bool { h, _ := ws.History(nil); return len(h) == i+2 })
	}
	// 200 plans waiting, one in ten invalid
	for i := 0; i < 200; i++ {
		id := els[i*37%len(els)].ID()
		if i%10 == 9 {
			id = "id-00000000000000000000000000000000"
		}
		plan := renamePlan(fmt.Sprintf("Rename element %d", i), id, fmt.Sprintf("Renamed %d", i))
		if err := store.WriteFileAtomic(filepath.Join(dir, fmt.Sprintf("plan-%03d.json", i)), []byte(plan), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	until("200 plans previewed", func() bool {
		n, _ := filepath.Glob(filepath.Join(ws.GitPath("archiplan/inbox"), "plan-*.json"))
		return len(n) == 200
	})
	d.Close()
	s, err := New(Config{Backend: NewLocal(LocalConfig{Ledger: led})})
	if err != nil {
		b.Fatal(err)
	}
	return s, s.base, dir, led
}

// get answers a GET of path in the session whose path is base.
func get(b *testing.B, h http.Handler, base, path string) int {
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8765"+base+path, nil)
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
	s, c, inbox, led := benchEnv(b)
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
	for _, path := range []string{"/", "/plan/plan-100", "/history", "/views", "/plan/plan-100/state", "/svg/" + firstView(b, s)} {
		b.Run(path, func(b *testing.B) {
			n := get(b, h, c, path) // warm: what the page remembers between answers (history-cold measures a first answer)
			for comparing(b, s) {
				time.Sleep(50 * time.Millisecond) // the history's comparisons run in the background: let them end
			}
			for b.Loop() {
				n = get(b, h, c, path)
			}
			b.ReportMetric(float64(n), "bytes/page")
		})
	}
	// last: a first answer of the history, on a backend that remembers nothing (each leaves its
	// comparisons running in the background, which would weigh on the others)
	b.Run("/history-cold", func(b *testing.B) {
		for b.Loop() {
			fresh, err := New(Config{Backend: NewLocal(LocalConfig{Ledger: led}), Token: s.token})
			if err != nil {
				b.Fatal(err)
			}
			get(b, fresh.Handler(), fresh.base, "/history")
		}
	})
}

func firstView(b *testing.B, s *Server) string {
	v, err := s.cfg.Backend.Views()
	if err != nil || len(v) == 0 {
		b.Fatalf("no views: %v", err)
	}
	return v[0].ID
}

func comparing(b *testing.B, s *Server) bool {
	lp, err := s.cfg.Backend.Log(1)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range lp.Entries {
		if e.Comparing {
			return true
		}
	}
	return false
}

// BenchmarkHistory: the first answer of the history page (its first page, on a backend that
// remembers nothing) with 1,000 plans applied, next to the floor of git's own command line
// listing those commits with their messages (`git log`), in the same run. The first plan is
// applied by the ledger; the 999 others are commits like it (its message with another plan id,
// the model with another name), written by git fast-import, as 1,000 applies take many minutes
// on a busy machine. Metrics: ms per first page, git-log-ms, x_gitlog the ratio.
func BenchmarkHistory(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	const plansN = 1000
	ws, led, m := exampleLedger(b)
	el := m.Elements()[0]
	res, err := led.Apply(context.Background(), ledger.Request{Name: "p0000", File: "p0000.json", Raw: []byte(renamePlan("Rename 0", el.ID(), "Name 0"))})
	if err != nil {
		b.Fatal(err)
	}
	git := func(stdin []byte, args ...string) []byte {
		cmd := exec.Command("git", append([]string{"-C", ws.Root}, args...)...)
		cmd.Stdin = bytes.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("git %v: %v", args, err)
		}
		return out
	}
	msg := string(git(nil, "log", "-1", "--format=%B"))
	model := git(nil, "show", "HEAD:model.archimate")
	branch := strings.TrimSpace(string(git(nil, "symbolic-ref", "HEAD")))
	var stream bytes.Buffer
	for i := 1; i < plansN; i++ {
		mi := strings.ReplaceAll(msg, "p0000-", fmt.Sprintf("p%04d-", i))
		data := bytes.Replace(model, []byte(`name="Name 0"`), []byte(fmt.Sprintf(`name="Name %d"`, i)), 1)
		fmt.Fprintf(&stream, "commit %s\ncommitter t <t@t> %d +0000\ndata %d\n%s\n", branch, 1700000000+i, len(mi), mi)
		if i == 1 {
			fmt.Fprintf(&stream, "from %s\n", res.Commit)
		}
		fmt.Fprintf(&stream, "M 100644 inline model.archimate\ndata %d\n%s\n", len(data), data)
	}
	git(stream.Bytes(), "fast-import", "--quiet")
	git(nil, "reset", "-q", "--hard")
	s, err := New(Config{Backend: NewLocal(LocalConfig{Ledger: led})})
	if err != nil {
		b.Fatal(err)
	}
	var page, floor time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if out := git(nil, "log", "--format=%H %an %at%n%B"); bytes.Count(out, []byte("Plan-Id: ")) != plansN {
			b.Fatalf("git log shows %d applies", bytes.Count(out, []byte("Plan-Id: ")))
		}
		floor += time.Since(start)
		fresh, err := New(Config{Backend: NewLocal(LocalConfig{Ledger: led}), Token: s.token})
		if err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		get(b, fresh.Handler(), fresh.base, "/history")
		page += time.Since(start)
	}
	b.StopTimer()
	lp, err := s.cfg.Backend.Log(1)
	if err != nil || len(lp.Entries) != HistoryPageSize || !lp.Older || lp.Entries[0].Kind != KindApply {
		b.Fatalf("the first page holds %d entries (older: %v): %v", len(lp.Entries), lp.Older, err)
	}
	b.ReportMetric(float64(page.Microseconds())/1000/float64(b.N), "ms")
	b.ReportMetric(float64(floor.Microseconds())/1000/float64(b.N), "git-log-ms")
	b.ReportMetric(float64(page)/float64(floor), "x_gitlog")
}

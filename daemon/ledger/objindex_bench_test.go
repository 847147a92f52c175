package ledger_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/store"
)

// BenchmarkObjectLog: the history of one object over 1,000 commits of small edits to a
// 10,000-element model (archiplan synth's; -short: 1,000 elements, 100 commits), read from the
// index once it is built. Reported beside the time: x-gitlog, the ratio to `git log --oneline`
// of the same commits (the floor of listing them at all), and x-walk, the ratio to walking the
// history and diffing every commit as log --object did without the index; build-s, the time to
// index the whole history once, from nothing, and build-x-walk its ratio to one walk. ARCHIPLAN_BENCH_OBJLOG=ELEMENTS,COMMITS sets the sizes.
//
//	go test ./daemon/ledger -run '^$' -bench BenchmarkObjectLog -benchtime 20x
func BenchmarkObjectLog(b *testing.B) {
	elements, commits := 10000, 1000
	if testing.Short() {
		elements, commits = 1000, 100
	}
	if v := os.Getenv("ARCHIPLAN_BENCH_OBJLOG"); v != "" { // ELEMENTS,COMMITS
		if _, err := fmt.Sscanf(v, "%d,%d", &elements, &commits); err != nil {
			b.Fatalf("ARCHIPLAN_BENCH_OBJLOG=%q: %v", v, err)
		}
	}
	h := newObjHistory(b, elements)
	h.importEdits(0, commits)
	b.Logf("%d elements, %d commits: .git holds %s", elements, commits, lt.Git(b, h.ws.Root, "count-objects", "-vH"))
	id := h.els[0]
	// the first build and a walk, each from nothing, twice in turn: the least of each (the first
	// of a process also pays for the heap it maps; a loaded machine adds to either)
	build, walk := time.Duration(1<<62), time.Duration(1<<62)
	for range 2 {
		if err := os.RemoveAll(filepath.Join(h.ws.Root, ".git", "archiplan", "objlog")); err != nil {
			b.Fatal(err)
		}
		build = min(build, median(1, func() {
			ws, err := store.Open(h.ws.Root, h.ws.Model) // afresh: nothing read before is cached
			if err != nil {
				b.Fatal(err)
			}
			if _, err := ledger.ObjectLog(ws, id); err != nil {
				b.Fatal(err)
			}
		}))
		walk = min(walk, median(1, func() {
			ws, err := store.Open(h.ws.Root, h.ws.Model)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := ledger.ObjectLogWalk(ws, id); err != nil {
				b.Fatal(err)
			}
		}))
	}
	gitlog := median(5, func() {
		if out, err := exec.Command("git", "-C", h.ws.Root, "log", "--oneline", "HEAD").Output(); err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	})
	b.ResetTimer()
	for b.Loop() {
		// a command's case: the workspace opened, the index found up to date, one shard read
		ws, err := store.Open(h.ws.Root, h.ws.Model)
		if err != nil {
			b.Fatal(err)
		}
		got, err := ledger.ObjectLog(ws, id)
		if err != nil || len(got) == 0 {
			b.Fatal(len(got), err)
		}
	}
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(per)/float64(gitlog), "x-gitlog")
	b.ReportMetric(float64(per)/float64(walk), "x-walk")
	b.ReportMetric(build.Seconds(), "build-s")
	b.ReportMetric(float64(build)/float64(walk), "build-x-walk")
	b.ReportMetric(walk.Seconds(), "walk-s")
}

// importEdits commits n edits from the i-th on, one commit each, as edits does, through one
// git fast-import: each model is written into a pack as a delta of the one before it (a
// thousand loose copies of a 10,000-element model are gigabytes) and the branch moved once.
func (h *objHistory) importEdits(from, n int) {
	branch := lt.Git(h.tb, h.ws.Root, "symbolic-ref", "HEAD")
	base := h.head()
	cmd := exec.Command("git", "-C", h.ws.Root, "fast-import", "--quiet")
	in, err := cmd.StdinPipe()
	if err != nil {
		h.tb.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		h.tb.Fatal(err)
	}
	w := bufio.NewWriterSize(in, 1<<20)
	for i := from; i < from+n; i++ {
		h.edit(i)
		data, err := h.m.Save()
		if err != nil {
			h.tb.Fatal(err)
		}
		h.n++
		when := time.Date(2026, 1, 1, 0, h.n, 0, 0, time.UTC).Unix()
		msg := fmt.Sprintf("edit %d in Archi\n", i)
		fmt.Fprintf(w, "commit %s\nauthor Ada <ada@example.org> %d +0000\ncommitter Ada <ada@example.org> %d +0000\ndata %d\n%s\n", branch, when, when, len(msg), msg)
		if i == from {
			fmt.Fprintf(w, "from %s\n", base)
		}
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n", h.ws.Model, len(data))
		w.Write(data)
		w.WriteString("\n")
		if i%100 == 99 { // read again, as Archi saves a model it holds
			if h.m, err = archixml.Load(data); err != nil {
				h.tb.Fatal(err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		h.tb.Fatal(err, errb.String())
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		h.tb.Fatal(err, errb.String())
	}
	ws, err := store.Open(h.ws.Root, h.ws.Model) // the new pack, as a command opening it finds it
	if err != nil {
		h.tb.Fatal(err)
	}
	h.ws = ws
}

// median runs fn n times and returns the median of its times.
func median(n int, fn func()) time.Duration {
	var ts []time.Duration
	for range n {
		start := time.Now()
		fn()
		ts = append(ts, time.Since(start))
	}
	slices.Sort(ts)
	return ts[len(ts)/2]
}

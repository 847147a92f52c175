package ledger_test

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/store"
)

// BenchmarkObjectLog: the history of one object over 1,000 commits of small edits to a
// 10,000-element model (archiplan synth's; -short: 1,000 elements, 100 commits), read from the
// index once it is built. Reported beside the time: x-gitlog, the ratio to `git log --oneline`
// of the same commits (the floor of listing them at all), and x-walk, the ratio to walking the
// history and diffing every commit as log --object did without the index; build-s, the time to
// index the whole history once, from nothing. ARCHIPLAN_BENCH_OBJLOG=ELEMENTS,COMMITS sets the sizes.
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
	h.edits(0, commits)
	id := h.els[0]
	start := time.Now()
	if _, err := ledger.ObjectLog(h.ws, id); err != nil {
		b.Fatal(err)
	}
	build := time.Since(start)
	gitlog := median(5, func() {
		if out, err := exec.Command("git", "-C", h.ws.Root, "log", "--oneline", "HEAD").Output(); err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	})
	walk := median(1, func() {
		if _, err := ledger.ObjectLogWalk(h.ws, id); err != nil {
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
	b.ReportMetric(walk.Seconds(), "walk-s")
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

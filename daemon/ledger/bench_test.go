package ledger_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
)

var benchSizes = []int{1000, 10000, 100000}

// BenchmarkApply: the whole apply path of a 100-action plan through ledger.Apply: lock, HEAD,
// validate, edit, write the model, commit (objects, tree, ref), work tree and index. warm is the
// daemon's case: one ledger, which keeps the model each apply made, so HEAD is never parsed
// again; cold makes a ledger per apply, so it reads and parses the model at HEAD first, as a
// command does.
func BenchmarkApply(b *testing.B) {
	for _, n := range benchSizes {
		for _, mode := range []string{"warm", "cold"} {
			b.Run(fmt.Sprintf("elements=%d/%s", n, mode), func(b *testing.B) {
				ws, m := lt.SynthWorkspace(b, n)
				l := lt.Ledger(ws)
				if _, err := l.Head(); err != nil { // loaded, as a running daemon's is
					b.Fatal(err)
				}
				round := 0
				b.ReportAllocs()
				for b.Loop() {
					round++
					if mode == "cold" {
						l = lt.Ledger(ws)
					}
					raw := lt.Plan100(m, round)
					if _, err := l.Apply(context.Background(), ledger.Request{Name: fmt.Sprintf("r%d", round), File: "r.json", Raw: raw}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkGitCommit: the floor to compare with: git's command line committing the same kind of
// change (a model file with 60 names changed, new content every time, so git compresses it as
// archiplan does) with git add and git commit.
func BenchmarkGitCommit(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			ws, _ := lt.SynthWorkspace(b, n)
			path := filepath.Join(ws.Root, "model.archimate")
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			mm, _ := archixml.Load(data)
			for i, e := range mm.Elements()[:60] {
				_ = mm.Rename(e.ID(), fmt.Sprintf("Version @@ %d", i))
			}
			template, _ := mm.Save()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				version := bytes.ReplaceAll(template, []byte("@@"), []byte(fmt.Sprint(i)))
				b.StartTimer()
				if err := os.WriteFile(path, version, 0o644); err != nil {
					b.Fatal(err)
				}
				lt.Git(b, ws.Root, "add", "model.archimate")
				lt.Git(b, ws.Root, "commit", "-q", "-m", "change")
			}
		})
	}
}

// BenchmarkTeamApplies: applies per second through a shared bare remote with one, two and three
// workspaces applying at once, each plan on its own element: every apply is pushed, the losers
// of each push race fetching and making their plan again on top (the ledger's apply and sync,
// without the watcher).
func BenchmarkTeamApplies(b *testing.B) {
	for _, n := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("daemons=%d", n), func(b *testing.B) {
			_, w := lt.Team(b, n)
			els := lt.Elements(b, w[0])
			var ls []*ledger.Ledger
			for _, ws := range w {
				ls = append(ls, lt.Ledger(ws))
			}
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				var wg sync.WaitGroup
				for k, l := range ls {
					wg.Add(1)
					go func(k int, l *ledger.Ledger) {
						defer wg.Done()
						raw := lt.Rename(els[k], fmt.Sprintf("W%d round %d", k, i))
						if err := l.Pull(context.Background()); err != nil {
							b.Error(err)
							return
						}
						if _, err := l.Apply(context.Background(), ledger.Request{Name: fmt.Sprintf("w%dr%d", k, i), File: "p.json", Raw: raw}); err != nil {
							b.Error(err)
							return
						}
						if res, err := l.Sync(context.Background()); err != nil || len(res.Dropped) > 0 {
							b.Errorf("%v %+v", err, res)
						}
					}(k, l)
				}
				wg.Wait()
			}
			b.ReportMetric(float64(b.N*n)/time.Since(start).Seconds(), "applies/s")
		})
	}
}

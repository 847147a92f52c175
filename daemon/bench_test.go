package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// benchWorkspace makes a workspace holding a generated model of n elements.
func benchWorkspace(b *testing.B, n int) (*store.Workspace, *archixml.Model) {
	b.Helper()
	m, err := archixml.Synthesize(archixml.SynthOptions{Elements: n, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	data, _ := m.Save()
	ws, _, err := store.Init(b.TempDir(), store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: data,
		Author: store.Signature{Name: "b", Email: "b@b"}})
	if err != nil {
		b.Fatal(err)
	}
	m, _ = archixml.Load(data)
	return ws, m
}

// planOf100 is a 100-action plan: 60 renames, 20 properties, 10 new elements with a relationship
// each; round makes every plan different.
func planOf100(m *archixml.Model, round int) []byte {
	els := m.Elements()
	j := func(v any) string { s, _ := json.Marshal(v); return string(s) }
	var acts []string
	for i := 0; i < 60; i++ {
		acts = append(acts, fmt.Sprintf(`{"op":"rename_element","element_id":%s,"new_name":"Renamed %d.%d"}`, j(els[(i*7919)%len(els)].ID()), round, i))
	}
	for i := 0; i < 20; i++ {
		acts = append(acts, fmt.Sprintf(`{"op":"set_property","element_id":%s,"key":"round","value":"%d"}`, j(els[(i*104729+1)%len(els)].ID()), round))
	}
	for i := 0; i < 10; i++ {
		acts = append(acts, fmt.Sprintf(`{"op":"create_element","type":"Goal","name":"Goal %d.%d","ref_id":"g%d"}`, round, i, i),
			fmt.Sprintf(`{"op":"create_relationship","source_id":%s,"target_id":"g%d","relationship_type":"Association"}`, j(els[i].ID()), i))
	}
	return []byte(fmt.Sprintf(`{"schema_version":"2.0","status":"ready","summary":"round %d","actions":[%s]}`, round, strings.Join(acts, ",")))
}

var benchSizes = []int{1000, 10000, 100000}

// BenchmarkApply: the whole apply path of a 100-action plan: lock, read HEAD, validate, edit,
// write the model, commit (objects, tree, ref), update the work tree and index.
func BenchmarkApply(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			ws, m := benchWorkspace(b, n)
			round := 0
			b.ReportAllocs()
			for b.Loop() {
				round++
				raw := planOf100(m, round)
				if _, err := Apply(context.Background(), ws, Request{Name: fmt.Sprintf("r%d", round), File: "r.json", Raw: raw,
					ApprovedBy: store.Signature{Name: "b", Email: "b@b"}}); err != nil {
					b.Fatal(err)
				}
			}
		})
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
			ws, _ := benchWorkspace(b, n)
			path := filepath.Join(ws.Root, "model.archimate")
			mm, _ := archixml.Load(mustRead(b, path))
			for i, e := range mm.Elements()[:60] {
				_ = mm.Rename(e.ID(), fmt.Sprintf("Version @@ %d", i))
			}
			template, _ := mm.Save()
			git := func(args ...string) {
				cmd := exec.Command("git", append([]string{"-C", ws.Root, "-c", "user.name=b", "-c", "user.email=b@b"}, args...)...)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				version := bytes.ReplaceAll(template, []byte("@@"), []byte(fmt.Sprint(i)))
				b.StartTimer()
				if err := os.WriteFile(path, version, 0o644); err != nil {
					b.Fatal(err)
				}
				git("add", "model.archimate")
				git("commit", "-q", "-m", "change")
			}
		})
	}
}

func mustRead(b *testing.B, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkDropToPreview: from a 100-action plan landing in the inbox (written and renamed into
// place, as an editor or a planner does) to its report, with the daemon running and the model
// cached: watch event, debounce (1 ms here), settle check (1 ms here), check and preview, atomic
// writes. The default debounce (100 ms) and settle (300 ms) add to this on purpose.
func BenchmarkDropToPreview(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			ws, m := benchWorkspace(b, n)
			inbox := filepath.Join(ws.Root, "plans")
			d := New(Config{Workspace: ws, Inbox: inbox, Debounce: time.Millisecond, Settle: time.Millisecond, Rescan: time.Hour})
			if err := d.Open(context.Background()); err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				raw := planOf100(m, i+1)
				name := fmt.Sprintf("p%d", i)
				tmp := filepath.Join(inbox, "."+name+".json.tmp")
				if err := os.WriteFile(tmp, raw, 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := os.Rename(tmp, filepath.Join(inbox, name+".json")); err != nil {
					b.Fatal(err)
				}
				report := filepath.Join(inbox, name+".report.json")
				for {
					if _, err := os.Stat(report); err == nil {
						break
					}
					time.Sleep(200 * time.Microsecond)
				}
				b.StopTimer()
				os.Remove(filepath.Join(inbox, name+".json"))
				b.StartTimer()
			}
		})
	}
}

// BenchmarkTeamApplies: applies per second through a shared bare remote with one, two and three
// workspaces applying at once, each plan on its own element: every apply is pushed, the losers
// of each push race fetching and making their plan again on top (the apply path and Sync, without
// the watcher).
func BenchmarkTeamApplies(b *testing.B) {
	for _, n := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("daemons=%d", n), func(b *testing.B) {
			_, w := team(b, n)
			m, _ := archixml.Load(mustModel(b, w[0]))
			els := m.Elements()
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				var wg sync.WaitGroup
				for k, ws := range w {
					wg.Add(1)
					go func(k int, ws *store.Workspace) {
						defer wg.Done()
						raw := rename(els[k].ID(), fmt.Sprintf("W%d round %d", k, i))
						if err := Pull(context.Background(), ws, origin); err != nil {
							b.Error(err)
							return
						}
						if _, err := Apply(context.Background(), ws, Request{Name: fmt.Sprintf("w%dr%d", k, i), File: "p.json", Raw: raw,
							ApprovedBy: store.Signature{Name: "b", Email: "b@b"}}); err != nil {
							b.Error(err)
							return
						}
						if res, err := Sync(context.Background(), ws, origin, plans.Options{}); err != nil || len(res.Dropped) > 0 {
							b.Errorf("%v %+v", err, res)
						}
					}(k, ws)
				}
				wg.Wait()
			}
			b.ReportMetric(float64(b.N*n)/time.Since(start).Seconds(), "applies/s")
		})
	}
}

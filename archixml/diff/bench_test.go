package diff

import (
	"fmt"
	"sync"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/internal/benchplan"
)

// Benchmarks on synthetic models of 1k, 10k and 100k elements (generating 100k takes a minute):
//
//	go test -run '^$' -bench . -benchtime 10x ./archixml/diff
//
// Load is the baseline: diff's goals are read as ratios to it.

var benchSizes = []int{1000, 10000, 100000}

var synthCache sync.Map

func synthBytes(b *testing.B, n int) []byte {
	b.Helper()
	if v, ok := synthCache.Load(n); ok {
		return v.([]byte)
	}
	m, err := archixml.Synthesize(archixml.SynthOptions{Elements: n, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	data, err := m.Save()
	if err != nil {
		b.Fatal(err)
	}
	synthCache.Store(n, data)
	return data
}

// Plan100 applies benchplan's 100 actions.
func Plan100(tb testing.TB, m *archixml.Model) {
	tb.Helper()
	if err := benchplan.Apply100(m); err != nil {
		tb.Fatal(err)
	}
}

func BenchmarkLoad(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			data := synthBytes(b, n)
			for b.Loop() {
				if _, err := archixml.Load(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkModels/plan: a 100-action plan applied in memory against the model it started from,
// both warm: what a preview computes.
// BenchmarkModels/reloaded: the same change between two models read from files (two commits).
func BenchmarkModels(b *testing.B) {
	for _, n := range benchSizes {
		data := synthBytes(b, n)
		before, _ := archixml.Load(data)
		after, _ := archixml.Load(data)
		Plan100(b, after)
		saved, err := after.Save()
		if err != nil {
			b.Fatal(err)
		}
		reloaded, _ := archixml.Load(saved)
		b.Run(fmt.Sprintf("plan/elements=%d", n), func(b *testing.B) {
			for b.Loop() {
				if r := Models(before, after); r.Empty() {
					b.Fatal("no changes")
				}
			}
		})
		b.Run(fmt.Sprintf("reloaded/elements=%d", n), func(b *testing.B) {
			for b.Loop() {
				if r := Models(before, reloaded); r.Empty() {
					b.Fatal("no changes")
				}
			}
		})
	}
}

func TestPlan100_NamesEveryAction(t *testing.T) {
	m, err := archixml.Synthesize(archixml.SynthOptions{Elements: 1000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := m.Save()
	before, _ := archixml.Load(data)
	after, _ := archixml.Load(data)
	Plan100(t, after)
	r := Models(before, after)
	counts := map[Op]int{}
	for _, c := range r.Changes {
		if c.Kind == KindElement {
			counts[c.Op]++
		}
	}
	// 40 renamed, 30 with a property, 10 documented: elements overlap, so at least 40 changed
	if counts[Added] != 10 || counts[Changed] < 40 {
		t.Errorf("counts %v\n%s", counts, r)
	}
	if len(r.Views()) == 0 {
		t.Error("no views changed")
	}
}

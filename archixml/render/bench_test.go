package render

import (
	"fmt"
	"sync"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/archixml/diff"
	"github.com/archiplan/archiplan/archixml/internal/benchplan"
)

// Benchmarks (generating the 100k model takes a minute):
//
//	go test -run '^$' -bench . -benchtime 10x ./archixml/render

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

// BenchmarkView200: one view of 200 elements with their connections, in a model of 1k.
func BenchmarkView200(b *testing.B) {
	m, err := archixml.Load(synthBytes(b, 1000))
	if err != nil {
		b.Fatal(err)
	}
	v, err := m.CreateView("Two hundred", "", "")
	if err != nil {
		b.Fatal(err)
	}
	conns := 0
	for _, e := range m.Elements()[:200] {
		_, c, err := m.AddToView(v, e.ID(), nil)
		if err != nil {
			b.Fatal(err)
		}
		conns += len(c)
	}
	data, _ := m.Save()
	m, _ = archixml.Load(data)
	b.ReportMetric(float64(conns), "connections")
	for b.Loop() {
		if _, err := View(m, v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReview: what a preview with pictures adds to a plan's preview: the diff of a
// 100-action plan and each changed view drawn before and after, with its changes marked.
func BenchmarkReview(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		data := synthBytes(b, n)
		before, _ := archixml.Load(data)
		after, _ := archixml.Load(data)
		if err := benchplan.Apply100(after); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			for b.Loop() {
				r := diff.Models(before, after)
				for _, v := range r.Views() {
					marks := map[string]Mark{}
					for _, c := range r.OnView(v) {
						marks[c.ID] = MarkChanged
					}
					if _, ok := before.Object(v); ok {
						if _, err := ViewWith(before, v, Options{Marks: marks}); err != nil {
							b.Fatal(err)
						}
					}
					if _, err := ViewWith(after, v, Options{Marks: marks}); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

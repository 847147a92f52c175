package archixml

import (
	"fmt"
	"sync"
	"testing"

	"github.com/beevik/etree"
)

// Benchmarks on generated models of 1k, 10k and 100k elements (run with -bench . -benchmem).
// Each size is generated once per process; generating 100k takes a few seconds.

var benchSizes = []int{1000, 10000, 100000}

var synthCache sync.Map // elements -> []byte

func synthBytes(b *testing.B, n int) []byte {
	b.Helper()
	if v, ok := synthCache.Load(n); ok {
		return v.([]byte)
	}
	m, err := Synthesize(SynthOptions{Elements: n, Seed: 1})
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

// BenchmarkLoad: parse, map every element to its bytes, and index every object.
func BenchmarkLoad(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			data := synthBytes(b, n)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Load(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParse: etree's parse alone, the floor Load builds on.
func BenchmarkParse(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			data := synthBytes(b, n)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				doc := etree.NewDocument()
				if err := doc.ReadFromBytes(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkIndex: rebuilding the id, relationship and diagram indexes of a loaded model.
func BenchmarkIndex(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			m, err := Load(synthBytes(b, n))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				m.reindex()
			}
		})
	}
}

// BenchmarkSave: writing a model after 100 edits (renames and new relationships spread over the
// file), the case an apply meets.
func BenchmarkSave(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			data := synthBytes(b, n)
			m, err := Load(data)
			if err != nil {
				b.Fatal(err)
			}
			els := m.Elements()
			for i := 0; i < 50; i++ {
				e := els[i*len(els)/50]
				if err := m.Rename(e.ID(), e.Name()+" (renamed)"); err != nil {
					b.Fatal(err)
				}
				if _, err := m.CreateRelationship("Association", e.ID(), els[(i*7919)%len(els)].ID(), ""); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Save(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoadEditSave: the whole round an apply makes of the model file.
func BenchmarkLoadEditSave(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			data := synthBytes(b, n)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				m, err := Load(data)
				if err != nil {
					b.Fatal(err)
				}
				e := m.Elements()[n/2]
				if err := m.Rename(e.ID(), "renamed"); err != nil {
					b.Fatal(err)
				}
				if _, err := m.Save(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScan: reading every object in one pass without a tree (what textconv does), next to
// BenchmarkLoad.
func BenchmarkScan(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			data := synthBytes(b, n)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := Scan(data, func(*Scanned) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

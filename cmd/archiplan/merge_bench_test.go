package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
)

// BenchmarkMergeDriver: `archiplan merge-driver` (a process of its own, as git runs it) merging
// two sides of a synthetic model of 100,000 elements that each renamed 100 elements and restyled
// nothing else, next to its floor in the same run: `xmllint --noout` of the three files
// (x_xmllint, the goal is at most 3).
func BenchmarkMergeDriver(b *testing.B) {
	need(b, "xmllint")
	bin := built(b)
	dir := b.TempDir()
	m, err := archixml.Synthesize(archixml.SynthOptions{Elements: 100000, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	base, err := m.Save()
	if err != nil {
		b.Fatal(err)
	}
	side := func(offset int) []byte {
		s, err := archixml.Load(base)
		if err != nil {
			b.Fatal(err)
		}
		els := s.Elements()
		for i := 0; i < 100; i++ {
			if err := s.Rename(els[(i*7919+offset)%len(els)].ID(), fmt.Sprintf("Renamed %d.%d", offset, i)); err != nil {
				b.Fatal(err)
			}
		}
		out, err := s.Save()
		if err != nil {
			b.Fatal(err)
		}
		return out
	}
	files := map[string][]byte{"base.archimate": base, "ours.archimate": side(1), "theirs.archimate": side(2)}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var driver, lint time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		result := filepath.Join(dir, "result.archimate")
		if err := os.WriteFile(result, files["ours.archimate"], 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		d, _ := proc(b, dir, bin, "merge-driver", "base.archimate", "result.archimate", "theirs.archimate", "model.archimate")
		l, _ := proc(b, dir, "xmllint", "--noout", "base.archimate", "ours.archimate", "theirs.archimate")
		driver += d
		lint += l
	}
	b.ReportMetric(float64(driver.Milliseconds())/float64(b.N), "driver_ms")
	b.ReportMetric(float64(lint.Milliseconds())/float64(b.N), "xmllint_ms")
	b.ReportMetric(float64(driver)/float64(lint), "x_xmllint")
}

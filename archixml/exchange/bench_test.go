package exchange

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

// BenchmarkExport writes generated models of 1k, 10k and 100k elements; BenchmarkXmllint parses
// the same files with `xmllint --noout`, the floor the README compares with (run both in one go:
// go test -run '^$' -bench . -benchtime 3x ./archixml/exchange).
func BenchmarkExport(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		m, _ := synth(b, n)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := Export(m, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkXmllint(b *testing.B) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		b.Skip("no xmllint")
	}
	for _, n := range []int{1000, 10000, 100000} {
		_, file := synth(b, n)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if out, err := exec.Command(xmllint, "--noout", file).CombinedOutput(); err != nil {
					b.Fatalf("%v %s", err, out)
				}
			}
		})
	}
}

var synthCache = map[int]string{}

func synth(b *testing.B, n int) (*archixml.Model, string) {
	file, ok := synthCache[n]
	if !ok {
		m, err := archixml.Synthesize(archixml.SynthOptions{Elements: n})
		if err != nil {
			b.Fatal(err)
		}
		data, err := m.Save()
		if err != nil {
			b.Fatal(err)
		}
		dir, _ := os.MkdirTemp("", "exchange-bench")
		file = filepath.Join(dir, "model.archimate")
		os.WriteFile(file, data, 0o644)
		synthCache[n] = file
	}
	data, _ := os.ReadFile(file)
	m, err := archixml.Load(data)
	if err != nil {
		b.Fatal(err)
	}
	return m, file
}

//go:build !windows

// (the benchmarks measure with getrusage(2), which Windows has not)

package exchange

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

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

var exportCache = map[int]string{}

// exported is the exchange file of the generated model of n elements (written once a run).
func exported(b *testing.B, n int) string {
	if file, ok := exportCache[n]; ok {
		return file
	}
	m, _ := synth(b, n)
	dir, _ := os.MkdirTemp("", "exchange-bench")
	file := filepath.Join(dir, "model.xml")
	f, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	if err := Export(m, f); err != nil {
		b.Fatal(err)
	}
	f.Close()
	exportCache[n] = file
	return file
}

// BenchmarkImport imports the exports of generated models of 1k, 10k and 100k elements (read
// from the file and written as the model's bytes, as `archiplan import` does) and, in the same
// run, has `xmllint --noout` parse the same file: x_xmllint is the import's wall time over
// xmllint's, x_xmllint_cpu its CPU time (user and system, the garbage collector's included) over
// xmllint's, which a loaded machine disturbs less
// (go test -run '^$' -bench Import -benchtime 3x ./archixml/exchange).
func BenchmarkImport(b *testing.B) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		b.Skip("no xmllint")
	}
	for _, n := range []int{1000, 10000, 100000} {
		file := exported(b, n)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			b.ReportAllocs()
			var imp, lint, impCPU, lintCPU time.Duration
			for i := 0; i < b.N; i++ {
				start, cpu := time.Now(), cpuTime()
				f, err := os.Open(file)
				if err != nil {
					b.Fatal(err)
				}
				_, err = ImportBytes(f, Options{})
				f.Close()
				if err != nil {
					b.Fatal(err)
				}
				imp += time.Since(start)
				impCPU += cpuTime() - cpu
				b.StopTimer()
				start = time.Now()
				cmd := exec.Command(xmllint, "--noout", file)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v %s", err, out)
				}
				lint += time.Since(start)
				lintCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				b.StartTimer()
			}
			b.ReportMetric(float64(imp.Microseconds())/1000/float64(b.N), "import-ms")
			b.ReportMetric(float64(lint.Microseconds())/1000/float64(b.N), "xmllint-ms")
			b.ReportMetric(float64(imp)/float64(lint), "x_xmllint")
			b.ReportMetric(float64(impCPU)/float64(lintCPU), "x_xmllint_cpu")
		})
	}
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

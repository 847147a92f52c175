//go:build !windows

// (the benchmarks measure with getrusage(2), which Windows has not)

package publish

import (
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/daemon/ledger/ledgertest"
)

// BenchmarkPublisherUpdate: the daemon's publish after each apply (a Publisher, which keeps the
// model it last published), after the daemon's apply of a one-element rename (the ledger, in the
// same process), on models of 10k and 100k elements (archixml.Synthesize): x_apply_cpu is the
// publish's CPU time (user and system, the whole process's, collector included) over the
// apply's, pages_written the pages it wrote. The first publish, which writes the site whole, is
// not counted.
func BenchmarkPublisherUpdate(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			ws, m := ledgertest.SynthWorkspace(b, n)
			led := ledger.New(ledger.Config{Workspace: ws, Inbox: ledgertest.Inbox(ws), ApprovedBy: ledgertest.Signature})
			p := NewPublisher(ws, filepath.Join(b.TempDir(), "site"))
			head, err := ws.Head()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := p.Publish(head); err != nil {
				b.Fatal(err)
			}
			id := m.Elements()[n/2].ID()
			var apply, update time.Duration
			written := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				name := fmt.Sprintf("r%d", i)
				ledgertest.Preview(b, led, name, ledgertest.Rename(id, fmt.Sprint("Renamed ", i)))
				before := cpuTime(b)
				res, err := ledgertest.Approve(b, led, name)
				if err != nil {
					b.Fatal(err)
				}
				apply += cpuTime(b) - before
				b.StartTimer()
				before = cpuTime(b)
				site, err := p.Publish(res.Commit)
				update += cpuTime(b) - before
				if err != nil || !site.Incremental {
					b.Fatalf("publish: %+v, %v", site, err)
				}
				written += site.Pages
			}
			b.StopTimer()
			b.ReportMetric(float64(update.Microseconds())/1000/float64(b.N), "update-cpu-ms")
			b.ReportMetric(float64(apply.Microseconds())/1000/float64(b.N), "apply-cpu-ms")
			b.ReportMetric(float64(update)/float64(apply), "x_apply_cpu")
			b.ReportMetric(float64(written)/float64(b.N), "pages_written")
		})
	}
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

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
// not counted. With replay=true the Publisher is the daemon's (Replays: it applies the ledger's
// plan to its models instead of reading the commit's), after a first apply whose update makes
// its second model (not counted either); replay=false reads each commit's model.
func BenchmarkPublisherUpdate(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		for _, replay := range []bool{false, true} {
			b.Run(fmt.Sprintf("elements=%d/replay=%v", n, replay), func(b *testing.B) { benchPublisherUpdate(b, n, replay) })
		}
	}
}

func benchPublisherUpdate(b *testing.B, n int, replay bool) {
	ws, m := ledgertest.SynthWorkspace(b, n)
	led := ledger.New(ledger.Config{Workspace: ws, Inbox: ledgertest.Inbox(ws), ApprovedBy: ledgertest.Signature})
	p := NewPublisher(ws, filepath.Join(b.TempDir(), "site"))
	if replay {
		p.Replays(led.Replay)
	}
	head, err := ws.Head()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := p.Publish(head); err != nil {
		b.Fatal(err)
	}
	id := m.Elements()[n/2].ID()
	step := func(name string) (apply, update time.Duration, pages int) {
		ledgertest.Preview(b, led, name, ledgertest.Rename(id, "Renamed "+name))
		before := cpuTime(b)
		res, err := ledgertest.Approve(b, led, name)
		if err != nil {
			b.Fatal(err)
		}
		apply = cpuTime(b) - before
		b.StartTimer()
		before = cpuTime(b)
		site, err := p.Publish(res.Commit)
		update = cpuTime(b) - before
		b.StopTimer()
		if err != nil || !site.Incremental {
			b.Fatalf("publish: %+v, %v", site, err)
		}
		return apply, update, site.Pages
	}
	if replay {
		step("first")
	}
	var apply, update time.Duration
	written := 0
	read := modelsRead.Load()
	b.ResetTimer()
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		a, u, w := step(fmt.Sprintf("r%d", i))
		apply, update, written = apply+a, update+u, written+w
	}
	if replay && modelsRead.Load() != read {
		b.Fatalf("the Publisher read %d models", modelsRead.Load()-read)
	}
	b.ReportMetric(float64(update.Microseconds())/1000/float64(b.N), "update-cpu-ms")
	b.ReportMetric(float64(apply.Microseconds())/1000/float64(b.N), "apply-cpu-ms")
	b.ReportMetric(float64(update)/float64(apply), "x_apply_cpu")
	b.ReportMetric(float64(written)/float64(b.N), "pages_written")
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

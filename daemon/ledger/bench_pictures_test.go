//go:build !windows

// (the benchmarks measure with getrusage(2), which Windows has not)

package ledger_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
)

// BenchmarkPreviewPictures: a 100-action plan checked and previewed with its pictures (each
// changed view drawn whole and cropped, before and after), the model already loaded, as the
// daemon does; "publish" adds writing the preview, report and pictures into the inbox.
func BenchmarkPreviewPictures(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		ws, m := lt.SynthWorkspace(b, n)
		l := lt.Ledger(ws)
		if _, err := l.Head(); err != nil {
			b.Fatal(err)
		}
		raw := lt.Plan100(m, 1)
		if err := l.Inbox().Submit("bench", raw); err != nil {
			b.Fatal(err)
		}
		e, err := l.Inbox().Find("bench")
		if err != nil {
			b.Fatal(err)
		}
		for _, publish := range []bool{false, true} {
			name := "check"
			if publish {
				name = "publish"
			}
			b.Run(fmt.Sprintf("elements=%d/%s", n, name), func(b *testing.B) {
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					c, err := l.Check(e)
					if err != nil {
						b.Fatal(err)
					}
					if publish {
						if _, err := l.Publish(c); err != nil {
							b.Fatal(err)
						}
					}
				}
				// the process's CPU time per preview: on a loaded machine the wall clock mostly
				// measures the wait for a core
				b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

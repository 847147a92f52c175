package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
)

var benchSizes = []int{1000, 10000, 100000}

// BenchmarkDropToPreview: from a 100-action plan landing in the inbox (written and renamed into
// place, as an editor or a planner does) to its report, with the daemon running and the model
// cached: watch event, debounce (1 ms here), settle check (1 ms here), check and preview, atomic
// writes. The default debounce (100 ms) and settle (300 ms) add to this on purpose.
func BenchmarkDropToPreview(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			ws, m := lt.SynthWorkspace(b, n)
			inbox := filepath.Join(ws.Root, "plans")
			d := New(Config{Ledger: lt.Ledger(ws), Debounce: time.Millisecond, Settle: time.Millisecond, Rescan: time.Hour})
			if err := d.Open(context.Background()); err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				raw := lt.Plan100(m, i+1)
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

// BenchmarkApprovals: 50 independent plans (100 actions each, on 100 elements of their own) in
// a 10k-element workspace. daemon: previewed by a running daemon, then approved at once (50
// renames, as a person selecting them all), timed from the renames until every approval is
// done, through the real loop: events, passes, the record checks, each approval validated again
// on the HEAD the others moved (nothing it reads changed), the apply, the inbox cleared.
// ledger: the same 50 plans through ledger.Apply on a loaded ledger, one after the other, the
// floor the daemon adds to (same run, so the ratio holds on a busy machine). ns/op is the time
// of the 50; applies/s their rate. Debounce and settle are 1 ms here; the defaults (100 ms,
// 300 ms) add to the first pass only.
func BenchmarkApprovals(b *testing.B) {
	const n, plansN = 10000, 50
	b.Run("via=daemon", func(b *testing.B) {
		ws, m := lt.SynthWorkspace(b, n)
		inbox := filepath.Join(ws.Root, "plans")
		d := New(Config{Ledger: lt.Ledger(ws), Debounce: time.Millisecond, Settle: time.Millisecond, Rescan: time.Hour})
		if err := d.Open(context.Background()); err != nil {
			b.Fatal(err)
		}
		defer d.Close()
		wait := func(what string, done func() bool) {
			for start := time.Now(); !done(); time.Sleep(5 * time.Millisecond) {
				if time.Since(start) > 30*time.Minute {
					b.Fatalf("%s: not after 30 minutes", what)
				}
			}
		}
		var took time.Duration
		b.ResetTimer()
		for round := 0; round < b.N; round++ {
			b.StopTimer()
			name := func(k int) string { return fmt.Sprintf("r%dp%02d", round, k) }
			for k := 0; k < plansN; k++ {
				if err := os.WriteFile(filepath.Join(inbox, name(k)+".json"), lt.Plan100Within(m, round, 100*k), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			wait("50 previews", func() bool { return count(inbox, fmt.Sprintf("r%dp*.report.json", round)) == plansN })
			before, _ := ws.History(nil)
			b.StartTimer()
			start := time.Now()
			for k := 0; k < plansN; k++ {
				if err := os.Rename(filepath.Join(inbox, name(k)+".json"), filepath.Join(inbox, name(k)+".approved")); err != nil {
					b.Fatal(err)
				}
			}
			// an approval is done when its file is gone: applied (the inbox cleared after the
			// commit) or rejected
			wait("50 approvals", func() bool { return count(inbox, fmt.Sprintf("r%dp*.approved", round)) == 0 })
			took += time.Since(start)
			b.StopTimer()
			if rej, _ := filepath.Glob(filepath.Join(inbox, fmt.Sprintf("r%dp*.rejected", round))); len(rej) > 0 {
				r, _ := os.ReadFile(strings.TrimSuffix(rej[0], ".rejected") + ".report.json")
				b.Fatalf("%d of 50 independent approvals rejected: %s", len(rej), r)
			}
			if after, _ := ws.History(nil); len(after) != len(before)+plansN {
				b.Fatalf("%d commits for 50 approvals", len(after)-len(before))
			}
		}
		b.ReportMetric(float64(b.N*plansN)/took.Seconds(), "applies/s")
	})
	b.Run("via=ledger", func(b *testing.B) {
		ws, m := lt.SynthWorkspace(b, n)
		l := lt.Ledger(ws)
		if _, err := l.Head(); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		start := time.Now()
		for round := 0; round < b.N; round++ {
			for k := 0; k < plansN; k++ {
				if _, err := l.Apply(context.Background(), ledger.Request{Name: fmt.Sprintf("r%dp%02d", round, k), File: "p.json",
					Raw: lt.Plan100Within(m, round, 100*k)}); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.N*plansN)/time.Since(start).Seconds(), "applies/s")
	})
}

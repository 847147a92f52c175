package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

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

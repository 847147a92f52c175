//go:build !windows

// (the benchmarks measure with getrusage(2), which Windows has not)

package daemon

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
)

var benchSizes = []int{1000, 10000, 100000}

// waitFor polls a state a benchmark waits for (a benchmark, not a test: it measures time).
func poll(b *testing.B, what string, done func() bool) {
	for start := time.Now(); !done(); time.Sleep(200 * time.Microsecond) {
		if time.Since(start) > 30*time.Minute {
			b.Fatalf("%s: not after 30 minutes", what)
		}
	}
}

// BenchmarkDropToPreview: from a 100-action plan landing in the inbox (written to a temporary
// file and renamed into place, as an editor or a planner does; so its time is now) to its report,
// with the daemon running with the default settings (debounce, settle) and the model cached.
// The floor, measured in the same run, is the check's own time: the same plan checked and its
// preview published by the ledger directly. Metrics: ms per drop, check-ms the floor,
// overhead-ms what the daemon adds to it (events, passes, waiting), x_check the ratio.
func BenchmarkDropToPreview(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("elements=%d", n), func(b *testing.B) {
			ws, m := lt.SynthWorkspace(b, n)
			inboxDir := filepath.Join(ws.Root, "plans")
			d := New(Config{Ledger: lt.Ledger(ws), Rescan: time.Hour})
			if err := d.Open(context.Background()); err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			fws, _ := lt.SynthWorkspace(b, n)
			fl := lt.Ledger(fws)
			if _, err := fl.Head(); err != nil {
				b.Fatal(err)
			}
			var drop, check time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				raw := lt.Plan100(m, i+1)
				// the floor: the same plan checked and published by the ledger, no daemon
				name := fmt.Sprintf("p%d", i)
				if err := fl.Inbox().Submit(name, raw); err != nil {
					b.Fatal(err)
				}
				e, err := fl.Inbox().Find(name)
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				c, err := fl.Check(e)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := fl.Publish(c); err != nil {
					b.Fatal(err)
				}
				check += time.Since(start)
				tmp := filepath.Join(inboxDir, "."+name+".json.tmp")
				if err := os.WriteFile(tmp, raw, 0o644); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				start = time.Now()
				if err := os.Rename(tmp, filepath.Join(inboxDir, name+".json")); err != nil {
					b.Fatal(err)
				}
				report := filepath.Join(inboxDir, name+".report.json")
				poll(b, "the report", func() bool { _, err := os.Stat(report); return err == nil })
				drop += time.Since(start)
				b.StopTimer()
				os.Remove(filepath.Join(inboxDir, name+".json"))
				poll(b, "the outputs removed", func() bool { _, err := os.Stat(report); return err != nil })
				b.StartTimer()
			}
			b.ReportMetric(float64(drop.Milliseconds())/float64(b.N), "ms")
			b.ReportMetric(float64(check.Milliseconds())/float64(b.N), "check-ms")
			b.ReportMetric(float64((drop-check).Milliseconds())/float64(b.N), "overhead-ms")
			b.ReportMetric(float64(drop)/float64(check), "x_check")
		})
	}
}

// BenchmarkApprovals: 30 independent plans (one rename each) previewed by a running daemon
// (default settings) on a 10,000-element model, then approved at once (30 renames, as a person
// selecting them all), timed from the renames until every approval is done, through the real
// loop: events, passes, the record checks, each approval validated again on the HEAD the others
// moved, the apply (model written, archive, commit), the inbox cleared. The floor, in the same
// run: 30 `git commit -a` of a one-line change of the same model in a repository of its own.
// Metrics: ms per approval, commit-ms per git commit, x_commit the ratio; cpu-ms/approval and
// commit-cpu-ms their CPU times (user and system: this process's and its children's over the
// approvals, git's over its commits), and x_commit_cpu their ratio, which a loaded machine
// disturbs less.
func BenchmarkApprovals(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not installed")
	}
	const n, plansN = 10000, 30
	ws, m := lt.SynthWorkspace(b, n)
	inboxDir := filepath.Join(ws.Root, "plans")
	d := New(Config{Ledger: lt.Ledger(ws), Rescan: time.Hour})
	if err := d.Open(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	fws, fm := lt.SynthWorkspace(b, n)
	els := m.Elements()
	var took, floor, tookCPU, floorCPU time.Duration
	b.ResetTimer()
	for round := 0; round < b.N; round++ {
		b.StopTimer()
		// the floor: 30 commits of a one-line change each, by git's command line, each version
		// made just before it is written, untimed: the 30 versions held at once (135 MB at 10k)
		// were garbage as the approvals began, and the runtime handed their pages back to the
		// system while the approvals ran, which faulted them in again (a third of the approvals'
		// CPU, all of it in the zeroing of Save's buffer; the daemon alone never holds them)
		for k := 0; k < plansN; k++ {
			if err := fm.Rename(fm.Elements()[k].ID(), fmt.Sprintf("Floor %d.%d", round, k)); err != nil {
				b.Fatal(err)
			}
			v, _ := fm.Save()
			start, cpu := time.Now(), cpuTime(syscall.RUSAGE_CHILDREN)
			if err := os.WriteFile(filepath.Join(fws.Root, "model.archimate"), v, 0o644); err != nil {
				b.Fatal(err)
			}
			lt.Git(b, fws.Root, "commit", "-q", "-a", "-m", "change")
			floor += time.Since(start)
			floorCPU += cpuTime(syscall.RUSAGE_CHILDREN) - cpu
		}

		name := func(k int) string { return fmt.Sprintf("r%dp%02d", round, k) }
		for k := 0; k < plansN; k++ {
			raw := lt.Rename(els[k].ID(), fmt.Sprintf("Approved %d.%d", round, k))
			if err := os.WriteFile(filepath.Join(inboxDir, name(k)+".json"), raw, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		poll(b, "30 previews", func() bool { return count(inboxDir, fmt.Sprintf("r%dp*.report.json", round)) == plansN })
		before, _ := ws.History(nil)
		w := watchDir(b, inboxDir)
		stopProfile := profileApprovals(b, round)
		b.StartTimer()
		start, cpu := time.Now(), cpuTime(syscall.RUSAGE_SELF)+cpuTime(syscall.RUSAGE_CHILDREN)
		for k := 0; k < plansN; k++ {
			if err := os.Rename(filepath.Join(inboxDir, name(k)+".json"), filepath.Join(inboxDir, name(k)+".approved")); err != nil {
				b.Fatal(err)
			}
		}
		// an approval is done when its file is gone: applied (the inbox cleared after the
		// commit) or rejected
		w.until("30 approvals", func() bool { return count(inboxDir, fmt.Sprintf("r%dp*.approved", round)) == 0 })
		took += time.Since(start)
		tookCPU += cpuTime(syscall.RUSAGE_SELF) + cpuTime(syscall.RUSAGE_CHILDREN) - cpu
		b.StopTimer()
		stopProfile()
		w.Close()
		if rej, _ := filepath.Glob(filepath.Join(inboxDir, fmt.Sprintf("r%dp*.rejected", round))); len(rej) > 0 {
			r, _ := os.ReadFile(strings.TrimSuffix(rej[0], ".rejected") + ".report.json")
			b.Fatalf("%d of 30 independent approvals rejected: %s", len(rej), r)
		}
		if after, _ := ws.History(nil); len(after) != len(before)+plansN {
			b.Fatalf("%d commits for 30 approvals", len(after)-len(before))
		}
		b.StartTimer()
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N*plansN) }
	b.ReportMetric(per(took), "ms/approval")
	b.ReportMetric(per(floor), "commit-ms")
	b.ReportMetric(float64(took)/float64(floor), "x_commit")
	b.ReportMetric(per(tookCPU), "cpu-ms/approval")
	b.ReportMetric(per(floorCPU), "commit-cpu-ms")
	b.ReportMetric(float64(tookCPU)/float64(floorCPU), "x_commit_cpu")
}

// approvalsProfile is where BenchmarkApprovals writes the CPU profile of its approvals alone
// (-cpuprofile holds the previews and the floor too): FILE.ROUND for each round.
var approvalsProfile = flag.String("approvals.cpuprofile", "", "write the CPU profile of BenchmarkApprovals' approvals alone to `file`.ROUND")

// profileApprovals starts the CPU profile of a round's approvals when asked; the func stops it.
func profileApprovals(b *testing.B, round int) func() {
	if *approvalsProfile == "" {
		return func() {}
	}
	f, err := os.Create(fmt.Sprintf("%s.%d", *approvalsProfile, round))
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// dirWatch waits on a folder's events, not by listing it again and again: a benchmark whose CPU
// time counts its own process's (x_commit_cpu) spent a tenth of it listing the inbox every
// 200 µs.
type dirWatch struct {
	*fsnotify.Watcher
	b *testing.B
}

func watchDir(b *testing.B, dir string) dirWatch {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Add(dir); err != nil {
		b.Fatal(err)
	}
	return dirWatch{w, b}
}

// until waits for done, asked again after each burst of events in the folder (watched since
// before what it waits for began, so no change goes unseen).
func (w dirWatch) until(what string, done func() bool) {
	limit := time.After(30 * time.Minute)
	for !done() {
		select {
		case <-w.Events:
		case err := <-w.Errors:
			w.b.Fatalf("%s: %v", what, err)
		case <-limit:
			w.b.Fatalf("%s: not after 30 minutes", what)
		}
		for len(w.Events) > 0 {
			<-w.Events
		}
	}
}

// cpuTime is the CPU time, user and system, of this process (RUSAGE_SELF) or of the children it
// waited for (RUSAGE_CHILDREN).
func cpuTime(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package archixml

import (
	"os"
	"runtime/debug"
	"sync"
)

// loadGC is the collector's GOGC while a large model is read. The heap grows from little to the
// tree's size (250 MB at 100,000 elements), and at Go's default of 100 the collector marks it
// again at every doubling, the last times most of the tree, on the cores the reader uses: at 400
// it marks it twice, an apply is 7% faster and its peak memory 1% higher (BenchmarkColdApply).
const loadGC = 400

var gcHeld struct {
	sync.Mutex
	n   int
	was int
}

// roomyGC sets GOGC to loadGC until the function it returns is called. Reads of models may overlap
// (a daemon's ledger and its review page): the first sets it, the last puts back what was there.
// A GOGC the user set in the environment is left as it is, and so is a roomier one the program
// set (a one-shot command's collector, off until its memory limit): a read never collects more
// often than the program asked.
func roomyGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	gcHeld.Lock()
	if gcHeld.n == 0 {
		if gcHeld.was = debug.SetGCPercent(loadGC); gcHeld.was < 0 || gcHeld.was > loadGC {
			debug.SetGCPercent(gcHeld.was)
		}
	}
	gcHeld.n++
	gcHeld.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			gcHeld.Lock()
			if gcHeld.n--; gcHeld.n == 0 {
				debug.SetGCPercent(gcHeld.was)
			}
			gcHeld.Unlock()
		})
	}
}

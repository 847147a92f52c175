package archixml

import (
	"runtime/debug"
	"sync"
	"testing"
)

// Overlapping reads of large models hold the collector's setting by count: it is loadGC while
// any runs, and what it was before once the last is done, whatever the order they end in, and
// from any number of goroutines.
func TestRoomyGC_RestoresWhatWasThere(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(73))
	percent := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	a := roomyGC()
	b := roomyGC()
	if p := percent(); p != loadGC {
		t.Fatalf("while two reads run: GOGC %d, want %d", p, loadGC)
	}
	a()
	a() // twice: counted once
	if p := percent(); p != loadGC {
		t.Fatalf("while one read runs: GOGC %d, want %d", p, loadGC)
	}
	b()
	if p := percent(); p != 73 {
		t.Fatalf("after the reads: GOGC %d, want 73 as before", p)
	}
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			roomyGC()()
		}()
	}
	wg.Wait()
	if p := percent(); p != 73 {
		t.Fatalf("after 50 reads at once: GOGC %d, want 73", p)
	}
	for _, roomier := range []int{-1, 2 * loadGC} { // off, or collecting less often than a read would
		debug.SetGCPercent(roomier)
		done := roomyGC()
		if p := percent(); p != roomier {
			t.Fatalf("while a read runs in a program that set GOGC %d: %d, want it left as it was", roomier, p)
		}
		done()
		if p := percent(); p != roomier {
			t.Fatalf("after a read in a program that set GOGC %d: %d", roomier, p)
		}
	}
	debug.SetGCPercent(73)
	t.Setenv("GOGC", "50")
	roomyGC()
	if p := percent(); p != 73 {
		t.Fatalf("with GOGC set by the user: %d, want it left at 73", p)
	}
}

package main

import (
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/archiplan/archiplan/store"
)

// A command in a process of its own sets the collector for one read of the model (GOGC off, a
// memory limit of ten times the model's size and 128 MiB); run inside another program, or with
// GOGC or GOMEMLIMIT set by the user, it leaves the collector as it is.
func TestOneShotGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	defer func(was bool) { ownProcess = was }(ownProcess)
	dir := t.TempDir()
	model := filepath.Join(dir, "model.archimate")
	if err := os.WriteFile(model, make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := &store.Workspace{Root: dir, Model: "model.archimate"}
	percent := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	ownProcess = false
	oneShotGC(ws)
	if percent() != 100 || limit() != math.MaxInt64 {
		t.Fatalf("inside another program: GOGC %d, limit %d", percent(), limit())
	}
	ownProcess = true
	t.Setenv("GOGC", "150")
	oneShotGC(ws)
	if percent() != 100 {
		t.Fatalf("with GOGC set by the user: GOGC %d", percent())
	}
	t.Setenv("GOGC", "")
	oneShotGC(ws)
	if percent() >= 0 || limit() != 10*1000+128<<20 { // off: collecting only at the limit
		t.Fatalf("in a process of its own: GOGC %d, limit %d", percent(), limit())
	}
}

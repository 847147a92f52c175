package main

import (
	"os"
	"runtime/debug"

	"github.com/archiplan/archiplan/store"
)

// oneShotGC sets Go's collector for a command that reads the model once, changes it and exits
// (apply, revert): most of what it allocates is the model's tree, live until the end, which a
// collection marks again without finding much to free (at 100,000 elements, 400 ms of CPU on two
// cores to free 22 of 210 MB, and more on a loaded machine, where idle cores mark too). So the
// collector is off (GOGC=off) until a memory limit of ten times the model's size (plus 128 MiB),
// which bounds what an unusual plan could leave unreclaimed: a 100-rename apply at 100,000
// elements then costs 0.8 s of CPU instead of 1.3 s, at a peak of 0.89x xmllint's memory.
// A daemon keeps Go's defaults, and a GOGC or GOMEMLIMIT set in the environment is left as it is.
func oneShotGC(ws *store.Workspace) { oneShotGCOf(ws.ModelPath()) }

// oneShotGCOf is oneShotGC for a command that reads the file at path once (an import reads its
// exchange file): the limit and huge pages are sized from that file.
func oneShotGCOf(path string) {
	if !ownProcess || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	size := int64(0)
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	debug.SetGCPercent(oneShotPercent)
	debug.SetMemoryLimit(10*size + 128<<20)
	if size >= hugeFrom {
		hugeHeap(heapPerByte * size)
	}
}

// heapPerByte is the heap a one-shot command fills per byte of the model: a 100k-element apply
// peaks at 7 times the model's size (300 MB for 42 MB). hugeFrom is the size of model from which
// the heap is asked for huge pages: below it the heap spans too few of them to matter.
const (
	heapPerByte = 8
	hugeFrom    = 1 << 20
)

// oneShotPercent is the one-shot command's GOGC: off, collecting only at the memory limit.
const oneShotPercent = -1

// ownProcess is true when the command runs in a process of its own (main), not inside another
// program's (a test calling run): only then may it set the collector for itself.
var ownProcess bool

package main

import (
	"bufio"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/store"
)

// On Linux a command in a process of its own, reading a model of a megabyte or more, asks for
// huge pages for the heap it is about to fill: the process then holds heapPerByte times the
// model's size more memory advised huge (VmFlags "hg" in /proc/self/smaps). Run inside another
// program, or for a smaller model, it asks for none.
func TestOneShotGC_HugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("no transparent huge pages here")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	defer func(was bool) { ownProcess = was }(ownProcess)
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	dir := t.TempDir()
	ws := &store.Workspace{Root: dir, Model: "model.archimate"}
	sized := func(n int64) { // a file of n bytes, holding none on disk
		f, err := os.OpenFile(ws.ModelPath(), os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			err = f.Truncate(n)
			f.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		own  bool
		size int64
		huge bool
	}{{false, 4 * hugeFrom, false}, {true, hugeFrom / 2, false}, {true, 4 * hugeFrom, true}} {
		ownProcess = c.own
		sized(c.size)
		before := advisedHuge(t)
		oneShotGC(ws)
		added := advisedHuge(t) - before
		if want := heapPerByte * c.size; c.huge && added < want || !c.huge && added >= heapPerByte*hugeFrom/2 {
			t.Errorf("own process %v, model of %d bytes: %d bytes more advised huge (want %v)", c.own, c.size, added, c.huge)
		}
	}
}

// advisedHuge is how many bytes of this process's memory are advised huge.
func advisedHuge(t *testing.T) int64 {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	var total, size int64
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		switch {
		case len(fields) == 3 && fields[0] == "Size:":
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			size = kb << 10
		case len(fields) > 0 && fields[0] == "VmFlags:" && strings.Contains(s.Text(), " hg"):
			total += size
		}
	}
	return total
}

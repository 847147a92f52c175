package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// smapsField is the value of key (a "Name:" of smaps, in kB) for the mapping that starts at lo.
func smapsField(t *testing.T, smaps []byte, lo uint64, key string) int {
	t.Helper()
	in := false
	for _, line := range bytes.Split(smaps, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) >= 5 && len(f[1]) == 4 && bytes.IndexByte(f[0], '-') > 0 {
			a, _, _ := bytes.Cut(f[0], []byte("-"))
			l, _ := strconv.ParseUint(string(a), 16, 64)
			in = l == lo
			continue
		}
		if in && len(f) >= 2 && string(f[0]) == key {
			n, _ := strconv.Atoi(string(f[1]))
			return n
		}
	}
	t.Fatalf("no %s for the mapping at %x", key, lo)
	return 0
}

// codeResident is the resident size (kB) of this process's code mapping, as smaps says it.
func codeResident(t *testing.T) int {
	t.Helper()
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps")
	}
	lo, _, ok := codeMapping(smaps, uint64(reflect.ValueOf(releaseStartPages).Pointer()))
	if !ok {
		t.Fatal("this process's code mapping is not found")
	}
	return smapsField(t, smaps, lo, "Rss:")
}

// TestReleaseStartPages: the code the inits touched is resident before and mostly gone after; the
// process runs on (its code is read again where it runs).
func TestReleaseStartPages(t *testing.T) {
	before := codeResident(t)
	releaseStartPages()
	after := codeResident(t)
	t.Logf("code resident: %d kB before, %d kB after", before, after)
	if before < 2048 {
		t.Fatalf("only %d kB of code resident before: nothing to measure", before)
	}
	if after*2 > before {
		t.Errorf("code resident: %d kB before, %d kB after: not released", before, after)
	}
}

// TestCodeMapping: only the code mapping holding pc, executable and read-only, private and from a
// file, may be dropped (whether a page of it was written, written says).
func TestCodeMapping(t *testing.T) {
	const code = "00400000-013de000 r-xp 00000000 fe:00 11084279   /usr/bin/archiplan\n"
	const rodata = "013de000-0291e000 r--p 00fde000 fe:00 11084279   /usr/bin/archiplan\n"
	const data = "0291e000-02ad1000 rw-p 0251e000 fe:00 11084279   /usr/bin/archiplan\n"
	for _, c := range []struct {
		name string
		maps string
		pc   uint64
		ok   bool
	}{
		{"code", code + rodata + data, 0x494320, true},
		{"code, last mapping", rodata + data + code, 0x494320, true},
		{"read-only data", code + rodata + data, 0x13de000, false},
		{"writable", code + rodata + data, 0x2900000, false},
		{"nowhere", code + rodata + data, 0x100, false},
		{"anonymous memory", "c000000000-c004000000 r-xp 00000000 00:00 0\n", 0xc000001000, false},
	} {
		lo, hi, ok := codeMapping([]byte(c.maps), c.pc)
		if ok != c.ok {
			t.Errorf("%s: ok %v, want %v", c.name, ok, c.ok)
		}
		if ok && (lo != 0x400000 || hi != 0x13de000) {
			t.Errorf("%s: %x-%x, want 400000-13de000", c.name, lo, hi)
		}
	}
}

// TestWritten: a private mapping of a file whose pages were only read (or never touched) is the
// file's; once a page of it is written (copied on write, as a debugger's breakpoint copies a page
// of code), it is not, and releasing it would lose the write.
func TestWritten(t *testing.T) {
	page := os.Getpagesize()
	path := filepath.Join(t.TempDir(), "code")
	if err := os.WriteFile(path, bytes.Repeat([]byte{0xcc}, 4*page), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, 4*page, unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	lo := uint64(uintptr(unsafe.Pointer(&m[0])))
	hi := lo + uint64(4*page)
	_ = m[0] + m[2*page] // read: resident, the file's pages
	if written(lo, hi) {
		t.Fatal("a mapping only read counts as written")
	}
	if err := unix.Mprotect(m, unix.PROT_READ|unix.PROT_WRITE); err != nil {
		t.Fatal(err)
	}
	m[3*page+7] = 0xcc // the same byte: the page is copied all the same
	if !written(lo, hi) {
		t.Error("a page written is not seen")
	}
	if written(lo, lo+uint64(3*page)) {
		t.Error("the pages before the one written count as written")
	}
}

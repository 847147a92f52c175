package main

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"testing"
)

var sprintf = fmt.Sprintf

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

// TestCodeMapping: only the code mapping holding pc, executable and read-only, with no page
// written (a debugger's breakpoint makes one anonymous), may be dropped.
func TestCodeMapping(t *testing.T) {
	const code = "00400000-013de000 r-xp 00000000 fe:00 11084279   /usr/bin/archiplan\nRss:  1912 kB\nAnonymous:  %s kB\n"
	const rodata = "013de000-0291e000 r--p 00fde000 fe:00 11084279   /usr/bin/archiplan\nRss:  9856 kB\nAnonymous:  0 kB\n"
	const data = "0291e000-02ad1000 rw-p 0251e000 fe:00 11084279   /usr/bin/archiplan\nRss:  900 kB\nAnonymous:  188 kB\n"
	clean, written := sprintf(code, "0"), sprintf(code, "4")
	for _, c := range []struct {
		name  string
		smaps string
		pc    uint64
		ok    bool
	}{
		{"code", clean + rodata + data, 0x494320, true},
		{"code, last mapping", rodata + data + clean, 0x494320, true},
		{"a page written", written + rodata + data, 0x494320, false},
		{"a page written, last mapping", rodata + written, 0x494320, false},
		{"read-only data", clean + rodata + data, 0x13de000, false},
		{"writable", clean + rodata + data, 0x2900000, false},
		{"nowhere", clean + rodata + data, 0x100, false},
		{"anonymous memory", "c000000000-c004000000 r-xp 00000000 00:00 0\nAnonymous:  0 kB\n", 0xc000001000, false},
	} {
		lo, hi, ok := codeMapping([]byte(c.smaps), c.pc)
		if ok != c.ok {
			t.Errorf("%s: ok %v, want %v", c.name, ok, c.ok)
		}
		if ok && (lo != 0x400000 || hi != 0x13de000) {
			t.Errorf("%s: %x-%x, want 400000-13de000", c.name, lo, hi)
		}
	}
}

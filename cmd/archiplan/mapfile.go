package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/archiplan/archiplan/archixml"
)

// mapFile is the bytes of the file at path, up to one byte over archixml.MaxModelBytes (enough
// to refuse it), mapped into memory read-only, and the func that unmaps them; what cannot be
// mapped (a pipe, an empty file) is read. A mapping reads the file from the page cache where it
// lies: a read copies it into as many fresh pages of the process's own, each zeroed by the kernel
// and, on a virtual machine, often backed by the host at its first touch (BenchmarkImportCLI at
// 100,000 elements: a 60 MB file). Read it within readMapped.
func mapFile(path string) (data []byte, unmap func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	limit := int64(archixml.MaxModelBytes) + 1
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
		if data, unmap, err := mmap(f, int(min(fi.Size(), limit))); err == nil {
			return data, unmap, nil
		}
	}
	data, err = io.ReadAll(io.LimitReader(f, limit))
	return data, func() {}, err
}

// readMapped runs read, which reads bytes of mapFile's: a file made shorter while it is mapped
// (another program writing it anew) faults where it no longer is, which would end the process; it
// is an error of path's instead.
func readMapped(path string, read func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			err = fmt.Errorf("%s changed while it was read", path)
		}
	}()
	return read()
}

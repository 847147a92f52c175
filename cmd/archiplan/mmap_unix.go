//go:build unix

package main

import (
	"os"
	"syscall"
)

// mmap maps n bytes of f read-only (see mapFile), with the func that unmaps them.
func mmap(f *os.File, n int) ([]byte, func(), error) {
	data, err := syscall.Mmap(int(f.Fd()), 0, n, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { syscall.Munmap(data) }, nil
}

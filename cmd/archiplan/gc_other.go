//go:build !linux

package main

// hugeHeap asks for huge pages on Linux only (gc_linux.go).
func hugeHeap(n int64) {}

//go:build !linux

package main

// hugeHeap asks for huge pages on Linux only (gc_linux.go).
func hugeHeap(n int64) {}

// releaseStartPages drops the code the package inits touched on Linux only (startpages_linux.go).
func releaseStartPages() {}

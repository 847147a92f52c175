//go:build unix

package main

import (
	"syscall"
	"testing"
)

// selfCPU is this process's CPU time so far, user and system, in nanoseconds.
func selfCPU(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

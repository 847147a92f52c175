package main

import "testing"

// selfCPU skips: the benchmarks measure CPU time with getrusage(2), which Windows has not.
func selfCPU(b *testing.B) int64 {
	b.Skip("CPU time is measured with getrusage(2): not on Windows")
	return 0
}

// Command archiplan lets AI planners propose changes to ArchiMate models that people preview and
// approve, applied as one git commit per plan.
package main

import (
	"os"
	"runtime/pprof"
)

func main() {
	ownProcess = true
	releaseStartPages() // the inits' code, not needed again (startpages_linux.go)
	stop := cpuProfile(os.Getenv("ARCHIPLAN_CPUPROFILE"))
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// cpuProfile writes a CPU profile of the command to path (for `go tool pprof`) when path is set:
// a hidden switch for measuring a cold command as a person runs it. The func ends the profile.
func cpuProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

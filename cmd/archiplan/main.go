// Command archiplan lets AI planners propose changes to ArchiMate models that people preview and
// approve, applied as one git commit per plan.
package main

import (
	"os"
)

func main() {
	ownProcess = true
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

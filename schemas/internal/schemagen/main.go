// Command schemagen writes the plan and report JSON Schemas from schemas.Ops (go generate ./schemas).
package main

import (
	"fmt"
	"os"

	"github.com/archiplan/archiplan/schemas"
)

func main() {
	for _, v := range schemas.Versions {
		write("plan-"+v+".json", schemas.BuildPlan(v))
		write("plan-"+v+".strict.json", schemas.BuildStrict(v))
	}
	write("report.json", schemas.BuildReport())
}

func write(name string, data []byte) {
	if err := os.WriteFile(name, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}

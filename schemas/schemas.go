package schemas

import (
	"bytes"
	"embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// The schema files are generated from Ops by internal/schemagen (go generate ./schemas) and
// embedded, so that what archiplan prints is what it validates with.
//
//go:generate go run ./internal/schemagen
//go:embed plan-1.0.json plan-2.0.json plan-3.0.json plan-3.1.json report.json plan-1.0.strict.json plan-2.0.strict.json plan-3.0.strict.json plan-3.1.strict.json
var files embed.FS

var (
	compileOnce sync.Once
	compiled    map[string]*jsonschema.Schema
	compileErr  error
)

func url(name string) string { return "https://archiplan.dev/schemas/" + name }

func compileAll() {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	names := []string{"report.json"}
	for _, v := range Versions {
		names = append(names, "plan-"+v+".json")
	}
	for _, n := range names {
		data, err := files.ReadFile(n)
		if err != nil {
			compileErr = err
			return
		}
		if err := c.AddResource(url(n), bytes.NewReader(data)); err != nil {
			compileErr = fmt.Errorf("schema %s: %w", n, err)
			return
		}
	}
	compiled = map[string]*jsonschema.Schema{}
	for _, n := range names {
		s, err := c.Compile(url(n))
		if err != nil {
			compileErr = fmt.Errorf("schema %s: %w", n, err)
			return
		}
		compiled[n] = s
	}
	for _, v := range Versions {
		for _, op := range OpsOf(v) {
			key := "plan-" + v + ".json#/$defs/" + string(op.Name)
			s, err := c.Compile(url(key))
			if err != nil {
				compileErr = fmt.Errorf("schema %s: %w", key, err)
				return
			}
			compiled[key] = s
		}
	}
}

func get(key string) *jsonschema.Schema {
	compileOnce.Do(compileAll)
	if compileErr != nil {
		panic("schemas: embedded schema does not compile: " + compileErr.Error())
	}
	return compiled[key]
}

// Plan returns the compiled schema of a plan version, or nil for a version archiplan does not know.
func Plan(version string) *jsonschema.Schema { return get("plan-" + version + ".json") }

// Action returns the compiled schema of one op of a plan version, or nil.
func Action(version string, op OpName) *jsonschema.Schema {
	return get("plan-" + version + ".json#/$defs/" + string(op))
}

// Report returns the compiled schema of reports.
func Report() *jsonschema.Schema { return get("report.json") }

// PlanJSON returns the plan schema of a version as archiplan prints it.
func PlanJSON(version string) ([]byte, bool) {
	data, err := files.ReadFile("plan-" + version + ".json")
	return data, err == nil
}

// ReportJSON returns the report schema.
func ReportJSON() []byte {
	data, _ := files.ReadFile("report.json")
	return data
}

// StrictJSON returns the strict form of a plan version's schema (see BuildStrict).
func StrictJSON(version string) ([]byte, bool) {
	data, err := files.ReadFile("plan-" + version + ".strict.json")
	return data, err == nil
}

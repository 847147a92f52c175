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

// compiled are the schema files compiled so far, each when first asked for: a command that
// checks one plan compiles that plan's version only.
var (
	compileMu sync.Mutex
	compiled  = map[string]*jsonschema.Schema{}
	done      = map[string]bool{}
)

func url(name string) string { return "https://archiplan.dev/schemas/" + name }

// compileFile compiles one embedded schema file and, for a plan version, the schema of each of its
// ops, with a compiler of its own (the files do not refer to one another). An unknown file
// compiles to nothing; a file that does not compile panics: it is embedded, so a test catches it.
func compileFile(name string) {
	if done[name] {
		return
	}
	done[name] = true
	data, err := files.ReadFile(name)
	if err != nil {
		return
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	// the files are embedded, valid against the draft's meta-schema (TestFiles_MetaValid): a
	// process does not compile the meta-schema to validate them again (about 5% of a cold apply's
	// CPU at 1,000 elements)
	c.SkipMetaValidation = true
	if err := c.AddResource(url(name), bytes.NewReader(data)); err != nil {
		panic(fmt.Sprintf("schemas: embedded schema %s does not compile: %v", name, err))
	}
	keys := []string{name}
	for _, v := range Versions {
		if name == "plan-"+v+".json" {
			for _, op := range OpsOf(v) {
				keys = append(keys, name+"#/$defs/"+string(op.Name))
			}
		}
	}
	for _, k := range keys {
		s, err := c.Compile(url(k))
		if err != nil {
			panic(fmt.Sprintf("schemas: embedded schema %s does not compile: %v", k, err))
		}
		compiled[k] = s
	}
}

// get is the compiled schema of a key (a file, or a file#/$defs/op), or nil.
func get(file, key string) *jsonschema.Schema {
	compileMu.Lock()
	defer compileMu.Unlock()
	compileFile(file)
	return compiled[key]
}

// Plan returns the compiled schema of a plan version, or nil for a version archiplan does not know.
func Plan(version string) *jsonschema.Schema {
	f := "plan-" + version + ".json"
	return get(f, f)
}

// Action returns the compiled schema of one op of a plan version, or nil.
func Action(version string, op OpName) *jsonschema.Schema {
	f := "plan-" + version + ".json"
	return get(f, f+"#/$defs/"+string(op))
}

// Report returns the compiled schema of reports.
func Report() *jsonschema.Schema { return get("report.json", "report.json") }

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

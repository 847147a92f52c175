package schemas

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// The strict form follows every rule OpenAI structured outputs and the Codex outputSchema set.
func TestStrict_Rules(t *testing.T) {
	for _, v := range Versions {
		data, ok := StrictJSON(v)
		if !ok || !bytes.Equal(data, BuildStrict(v)) {
			t.Fatalf("plan-%s.strict.json is missing or stale: go generate ./schemas", v)
		}
		disk, _ := os.ReadFile("plan-" + v + ".strict.json")
		if !bytes.Equal(disk, data) {
			t.Fatalf("plan-%s.strict.json differs from the embedded copy", v)
		}
		var s any
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		objects := walkStrict(t, "", s)
		if objects < 2 {
			t.Fatalf("only %d objects checked", objects)
		}
		// it is a schema a validator compiles, and it accepts a strict answer
		c := jsonschema.NewCompiler()
		if err := c.AddResource("strict.json", bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Compile("strict.json"); err != nil {
			t.Fatal(err)
		}
	}
}

var banned = []string{"oneOf", "allOf", "not", "const", "minLength", "maxLength", "minimum", "maximum",
	"maxItems", "minItems", "pattern", "format", "$ref", "if", "then", "else", "patternProperties"}

// walkStrict checks one schema node and those below it; it returns how many objects it checked.
func walkStrict(t *testing.T, at string, node any) int {
	t.Helper()
	m, ok := node.(map[string]any)
	if !ok {
		return 0
	}
	for _, k := range banned {
		if _, has := m[k]; has {
			t.Errorf("%s: keyword %s", at, k)
		}
	}
	n := 0
	if m["type"] == "object" {
		n++
		if m["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties is not false", at)
		}
		props, _ := m["properties"].(map[string]any)
		req := map[string]bool{}
		for _, r := range m["required"].([]any) {
			req[r.(string)] = true
		}
		for k := range props {
			if !req[k] {
				t.Errorf("%s: %s is not required", at, k)
			}
		}
		if len(req) != len(props) {
			t.Errorf("%s: required lists %d, properties %d", at, len(req), len(props))
		}
		for k, p := range props {
			n += walkStrict(t, at+"/"+k, p)
		}
	}
	if enum, ok := m["enum"].([]any); ok {
		if types, ok := m["type"].([]any); ok && contains(types, "null") && !contains(enum, nil) {
			t.Errorf("%s: nullable enum without null", at)
		}
	}
	if items, ok := m["items"]; ok {
		n += walkStrict(t, at+"/items", items)
	}
	return n
}

func contains(list []any, v any) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

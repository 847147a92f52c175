package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/schemas"
)

// validate_plan and submit_plan declare the plan schema of the latest vocabulary (every op), the
// instructions name the version and the ops, and a plan the schema refuses still gets archiplan's
// coded report.
func TestMCP_PlanSchemaLatest(t *testing.T) {
	dir := exampleWorkspace(t)
	cs := mcpSession(t, dir)
	if ins := cs.InitializeResult().Instructions; !strings.Contains(ins, "schema_version "+schemas.Latest) || !strings.Contains(ins, string(schemas.DuplicateView)) {
		t.Fatalf("the instructions do not teach %s: %s", schemas.Latest, ins)
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, tl := range tools.Tools {
		if tl.Name != "validate_plan" && tl.Name != "submit_plan" {
			continue
		}
		seen++
		raw, _ := json.Marshal(tl.InputSchema)
		for _, op := range schemas.OpsOf(schemas.Latest) {
			if !strings.Contains(string(raw), `"`+string(op.Name)+`"`) {
				t.Errorf("%s: the plan schema has no op %s", tl.Name, op.Name)
			}
		}
		if !strings.Contains(string(raw), `"$defs"`) || !strings.Contains(string(raw), `"`+schemas.Latest+`"`) {
			t.Errorf("%s: the input schema is not the %s plan schema", tl.Name, schemas.Latest)
		}
	}
	if seen != 2 {
		t.Fatalf("found %d plan tools", seen)
	}
	bad := map[string]any{"schema_version": schemas.Latest, "status": "ready", "summary": "s",
		"actions": []any{map[string]any{"op": "frobnicate"}}}
	text, _ := call(t, cs, "validate_plan", map[string]any{"plan": bad})
	if !strings.Contains(text, "SCHEMA_UNKNOWN_OP") {
		t.Fatalf("a plan the schema refuses got no coded report: %s", text)
	}
}

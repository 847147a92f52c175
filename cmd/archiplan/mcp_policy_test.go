package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MCP's validate_plan judges a draft by the workspace's rules (policy/*.rego) like every check:
// a rule's deny comes back with its rule id and fix, and the draft that obeys it is valid.
func TestMCP_ValidatePlanPolicy(t *testing.T) {
	dir := exampleWorkspace(t)
	if err := os.MkdirAll(filepath.Join(dir, "policy"), 0o755); err != nil {
		t.Fatal(err)
	}
	rule, err := os.ReadFile("../../testdata/policy/owner.rego")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "policy", "owner.rego"), rule, 0o644); err != nil {
		t.Fatal(err)
	}
	cs := mcpSession(t, dir)
	create := map[string]any{"op": "create_element", "type": "Application Component", "name": "Portal", "ref_id": "p"}
	draft := map[string]any{"schema_version": "2.0", "status": "ready", "summary": "Add the portal", "actions": []any{create}}
	text, isErr := call(t, cs, "validate_plan", map[string]any{"plan": draft})
	for _, want := range []string{`"verdict": "invalid"`, "POLICY_DENY", `"rule": "component-owner"`, `"fix": "set_property owner on it`} {
		if isErr || !strings.Contains(text, want) {
			t.Fatalf("validate_plan does not say %s: %s", want, text)
		}
	}
	draft["actions"] = []any{create, map[string]any{"op": "set_property", "element_id": "p", "key": "owner", "value": "Sales IT"}}
	text, isErr = call(t, cs, "validate_plan", map[string]any{"plan": draft})
	if isErr || !strings.Contains(text, `"verdict": "valid"`) || strings.Contains(text, "POLICY_") {
		t.Fatalf("the draft with its owner: %s", text)
	}
}

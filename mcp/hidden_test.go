package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/plans"
)

// payload hides "AI" in the tag block, then a right-to-left override and a zero-width joiner.
const payload = "\U000e0041\U000e0049\u202eevil\u200d"

// A colleague's (or another planner's) name, documentation and property carrying invisible
// characters reach a planner through the MCP server's answers as codes it reads (JSON's escapes),
// never as the characters: and the values still decode exactly, so an id or a name copied back
// into a plan is the model's. Asked through a real client session, in process.
func TestMCP_HiddenCharactersShownAsCodes(t *testing.T) {
	m := archixml.Example()
	var id string
	for _, o := range m.Elements() {
		if o.Name() == "Customer" {
			id = o.ID()
		}
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(m.Rename(id, "Customer"+payload))
	must(m.SetDocumentation(id, "Doc"+payload))
	must(m.SetProperty(id, "owner"+payload, "IT"+payload))
	s := &mcpServer{cfg: Config{
		Model:   func() (*archixml.Model, plans.ModelInfo, error) { return m, plans.ModelInfo{Commit: "c1"}, nil },
		Options: func() plans.Options { return plans.Options{} },
	}}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.server().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"search", map[string]any{"text": "Customer"}},
		{"show", map[string]any{"id": id}},
		{"context", map[string]any{"include": []string{"documentation", "properties"}}},
		{"validate_plan", map[string]any{"plan": map[string]any{"schema_version": "3.1", "status": "ready", "summary": "s" + payload,
			"actions": []any{map[string]any{"op": "rename_element", "element_id": id, "new_name": "C" + payload}}}}},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", call.tool, err, res)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if strings.ContainsFunc(text, func(r rune) bool { return hidden.Is(r) && r != '\n' }) {
			t.Errorf("%s answers a hidden character raw: %q", call.tool, text)
		}
		if !strings.Contains(text, `Customer\udb40\udc41\udb40\udc49\u202eevil\u200d`) {
			t.Errorf("%s does not show the name's codes:\n%s", call.tool, text)
		}
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			t.Fatalf("%s: not JSON: %v", call.tool, err)
		}
		if b, _ := json.Marshal(v); !strings.Contains(string(b), "Customer"+payload) {
			t.Errorf("%s: the name does not decode exactly", call.tool)
		}
	}
}

package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/schemas"
)

// planInput is the input schema of a tool that takes a plan: its other arguments as props, and
// "plan" as the plan schema of schemas.Latest (its $defs hoisted to the root, so that its $refs
// resolve there), so an agent learns every op and field from the tool itself.
func planInput(props map[string]any, required []string) json.RawMessage {
	raw, _ := schemas.PlanJSON(schemas.Latest)
	var plan map[string]any
	if err := json.Unmarshal(raw, &plan); err != nil {
		panic(fmt.Sprintf("the plan schema %s: %v", schemas.Latest, err))
	}
	defs := plan["$defs"]
	for _, k := range []string{"$schema", "$id", "$defs"} {
		delete(plan, k)
	}
	properties := map[string]any{"plan": plan}
	for k, v := range props {
		properties[k] = v
	}
	s := map[string]any{"type": "object", "properties": properties, "required": append([]string{"plan"}, required...),
		"additionalProperties": false}
	if defs != nil {
		s["$defs"] = defs
	}
	out, _ := json.Marshal(s)
	return out
}

// planTool adapts a tool handler to a tool with a raw input schema: the SDK leaves the arguments
// to it, so a plan its schema refuses still reaches archiplan's check and gets coded errors
// rather than the SDK's one message.
func planTool[In any](h func(context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, any, error)) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in In
		dec := json.NewDecoder(bytes.NewReader(req.Params.Arguments))
		dec.DisallowUnknownFields() // an argument that is not the tool's is refused, never ignored
		if err := dec.Decode(&in); err != nil {
			return errorResult(fmt.Errorf("arguments: %w", err)), nil
		}
		res, _, err := h(ctx, req, in)
		return res, err
	}
}

// mcpInstructions tells an agent what the server is for and the plan vocabulary it speaks.
func mcpInstructions() string {
	return "archiplan keeps an ArchiMate model in git. Read it with context, search, show and views; " +
		"draft an ArchiChangePlan (schema_version " + schemas.Latest + "), check it with validate_plan until it is valid, then submit_plan. " +
		"A person reviews the preview and approves; no tool here applies or approves a plan.\n\n" + plans.SchemaSummary()
}

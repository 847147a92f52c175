package mcp

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/plans/query"
)

// objectHistoryArgs are object_history's arguments.
type objectHistoryArgs struct {
	ID    any `json:"id" jsonschema:"the id of an element, relationship, view, diagram object or folder (a string, or a number for models with numeric ids)"`
	Limit int `json:"limit,omitempty" jsonschema:"the most commits, newest first (default 50)"`
}

// addHistoryTool registers object_history: log --object's answer (the same index), read-only.
func (s *mcpServer) addHistoryTool(srv *mcp.Server, read *mcp.ToolAnnotations) {
	mcp.AddTool(srv, &mcp.Tool{Name: "object_history", Annotations: read,
		Description: "Who changed one object and how (blame): every commit on the branch that created, changed or deleted it, newest first, with its author, the plan (its summary, and the request it was asked for) and approver where a plan did it, and the changes in words; commits made in Archi too, read from the models."},
		s.toolObjectHistory)
}

func (s *mcpServer) toolObjectHistory(_ context.Context, _ *mcp.CallToolRequest, a objectHistoryArgs) (*mcp.CallToolResult, any, error) {
	id, err := query.ID(a.ID)
	if err != nil {
		return errorResult(err), nil, nil
	}
	entries, err := ledger.ObjectLog(s.cfg.Workspace, id)
	if err != nil {
		return errorResult(err), nil, nil
	}
	limit := a.Limit
	if limit <= 0 {
		limit = 50
	}
	more := 0
	if len(entries) > limit {
		entries, more = entries[:limit], len(entries)-limit
	}
	if entries == nil {
		entries = []ledger.ObjectEntry{}
	}
	return jsonResult(map[string]any{"format_version": "1", "object": id, "entries": entries, "more": more}), nil, nil
}

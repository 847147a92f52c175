package mcp

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
)

// The context tool builds a context once for each HEAD, options and policy: asked again, it
// answers without reading the model; once HEAD moves, it reads the model again.
func TestContext_CachedPerHead(t *testing.T) {
	head, loads := "c1", 0
	s := countingServer(&head, &loads)
	ask := func(intent string) string {
		t.Helper()
		res, _, _ := s.toolContext(context.Background(), nil, contextArgs{Intent: intent})
		if res.IsError {
			t.Fatalf("context: %v", res.Content)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	first := ask("Rename the customer")
	if again := ask("Rename the customer"); again != first || loads != 1 {
		t.Fatalf("asked again: %d loads (want 1), same answer %v", loads, again == first)
	}
	ask("Something else")
	if loads != 2 {
		t.Fatalf("other options: %d loads, want 2", loads)
	}
	head = "c2"
	ask("Rename the customer")
	if loads != 3 {
		t.Fatalf("after HEAD moved: %d loads, want 3", loads)
	}
}

// A scope checked by validate_plan is the context tool's cache too (one cache, the same key):
// asked for that scope's context afterwards, at the same HEAD, the server reads the model no more.
func TestValidateScope_SharesTheContextCache(t *testing.T) {
	head, loads := "c1", 0
	s := countingServer(&head, &loads)
	view := archixml.Example().Views()[0].ID()
	plan := map[string]any{"schema_version": "3.1", "status": "ready", "summary": "nothing", "questions": []any{}, "actions": []any{}}
	if res, _, _ := s.toolValidate(context.Background(), nil, validArgs{Plan: plan, Scope: "view:" + view}); res.IsError {
		t.Fatalf("validate: %v", res.Content)
	}
	if loads != 1 {
		t.Fatalf("validate read the model %d times, want 1", loads)
	}
	res, _, _ := s.toolContext(context.Background(), nil, contextArgs{Scope: "view:" + view})
	if res.IsError {
		t.Fatalf("context: %v", res.Content)
	}
	if loads != 1 {
		t.Fatalf("the scope's context was built again after validate_plan built it: %d loads, want 1", loads)
	}
}

// countingServer serves the example model at *head, counting in *loads each time it is read.
func countingServer(head *string, loads *int) *mcpServer {
	return &mcpServer{cfg: Config{
		Model: func() (*archixml.Model, plans.ModelInfo, error) {
			*loads++
			return archixml.Example(), plans.ModelInfo{Commit: *head}, nil
		},
		Options: func() plans.Options { return plans.Options{} },
		Head:    func() (string, error) { return *head, nil },
	}}
}

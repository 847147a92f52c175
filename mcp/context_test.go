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
	s := &mcpServer{cfg: Config{
		Model: func() (*archixml.Model, plans.ModelInfo, error) {
			loads++
			return archixml.Example(), plans.ModelInfo{Commit: head}, nil
		},
		Options: func() plans.Options { return plans.Options{} },
		Head:    func() (string, error) { return head, nil },
	}}
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

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/plans/query"
)

// The MCP server's read tools: the same queries as the read commands (package query), so an agent
// and a person see the same answers. Ids are accepted as strings or numbers (Archi 2 models have
// numeric ids).

type (
	searchArgs struct {
		Text     string `json:"text,omitempty" jsonschema:"words that must all appear in the name, documentation or a property (any case)"`
		Name     string `json:"name,omitempty" jsonschema:"more words, as text (kept for older clients)"`
		Type     string `json:"type,omitempty" jsonschema:"an element or relationship type, e.g. Application Component; or view"`
		Folder   string `json:"folder,omitempty" jsonschema:"a folder path: only objects in it and below"`
		Property string `json:"property,omitempty" jsonschema:"KEY or KEY=VALUE"`
		Limit    int    `json:"limit,omitempty" jsonschema:"the most results (default 100)"`
	}
	showArgs struct {
		ID     any  `json:"id" jsonschema:"the id of an element, relationship or view (a string, or a number for models with numeric ids)"`
		Impact bool `json:"impact,omitempty" jsonschema:"also what deleting it would take with it and where a change shows"`
	}
	allowedArgs struct {
		Source any `json:"source" jsonschema:"an element type (Business Actor) or an element's id"`
		Target any `json:"target" jsonschema:"an element type or an element's id"`
	}
	noArgs struct{}
)

func (s *mcpServer) addReadTools(srv *mcp.Server, read *mcp.ToolAnnotations) {
	mcp.AddTool(srv, &mcp.Tool{Name: "search", Annotations: read,
		Description: "Find elements, relationships and views by words in the name, documentation and properties; narrow by type, folder or property."}, s.toolSearch)
	mcp.AddTool(srv, &mcp.Tool{Name: "show", Annotations: read,
		Description: "One element (properties, documentation, relationships both ways with the other ends, the views showing it), relationship, or view (viewpoint as Archi names it, its diagram objects and connections); impact: what deleting it takes with it."},
		s.toolShow)
	mcp.AddTool(srv, &mcp.Tool{Name: "views", Annotations: read,
		Description: "Every view: id, name, folder, viewpoint as Archi names it, and how many elements, relationships, groups, notes and view references it holds."}, s.toolViews)
	mcp.AddTool(srv, &mcp.Tool{Name: "allowed", Annotations: read,
		Description: "Which relationships the ArchiMate 3.2 table allows from source to target (element types or ids; junction rules included)."}, s.toolAllowed)
	mcp.AddTool(srv, &mcp.Tool{Name: "folders", Annotations: read,
		Description: "Every folder, with how many elements, relationships, views and folders it holds."}, s.toolFolders)
	mcp.AddTool(srv, &mcp.Tool{Name: "stats", Annotations: read,
		Description: "Counts of the model: elements, relationships, views, by layer, type and viewpoint."}, s.toolStats)
	mcp.AddTool(srv, &mcp.Tool{Name: "check", Annotations: read,
		Description: "What Archi's validator would report about the model at HEAD: errors, warnings and advice, each with a code and the object."}, s.toolCheck)
}

func (s *mcpServer) toolSearch(_ context.Context, _ *mcp.CallToolRequest, a searchArgs) (*mcp.CallToolResult, any, error) {
	m, _, err := s.model()
	if err != nil {
		return errorResult(err), nil, nil
	}
	res, err := query.Search(m, query.SearchOptions{Text: strings.TrimSpace(a.Text + " " + a.Name), Type: a.Type,
		Folder: a.Folder, Property: a.Property, Limit: a.Limit})
	if err != nil {
		return errorResult(err), nil, nil
	}
	return jsonResult(res), nil, nil
}

func (s *mcpServer) toolShow(_ context.Context, _ *mcp.CallToolRequest, a showArgs) (*mcp.CallToolResult, any, error) {
	id, err := query.ID(a.ID)
	if err != nil {
		return errorResult(err), nil, nil
	}
	m, _, err := s.model()
	if err != nil {
		return errorResult(err), nil, nil
	}
	res, err := query.Show(m, id, a.Impact)
	if err != nil {
		return errorResult(err), nil, nil
	}
	return jsonResult(res), nil, nil
}

func (s *mcpServer) toolAllowed(_ context.Context, _ *mcp.CallToolRequest, a allowedArgs) (*mcp.CallToolResult, any, error) {
	src, err := query.ID(a.Source)
	if err != nil {
		return errorResult(err), nil, nil
	}
	tgt, err := query.ID(a.Target)
	if err != nil {
		return errorResult(err), nil, nil
	}
	m, _, err := s.model()
	if err != nil {
		return errorResult(err), nil, nil
	}
	res, err := query.Allowed(m, src, tgt)
	if err != nil {
		return errorResult(err), nil, nil
	}
	return jsonResult(res), nil, nil
}

func (s *mcpServer) toolViews(_ context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
	m, _, err := s.model()
	if err != nil {
		return errorResult(err), nil, nil
	}
	return jsonResult(query.Views(m)), nil, nil
}

func (s *mcpServer) toolFolders(_ context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
	m, _, err := s.model()
	if err != nil {
		return errorResult(err), nil, nil
	}
	return jsonResult(query.Folders(m)), nil, nil
}

func (s *mcpServer) toolStats(_ context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
	m, _, err := s.model()
	if err != nil {
		return errorResult(err), nil, nil
	}
	return jsonResult(query.StatsOf(m)), nil, nil
}

func (s *mcpServer) toolCheck(_ context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
	m, _, err := s.model()
	if err != nil {
		return errorResult(err), nil, nil
	}
	return jsonResult(query.Check(m)), nil, nil
}

// answers is what a person answered to plan NAME's questions, for the planner that plans next.
func (s *mcpServer) answers(name string) ([]byte, error) {
	if err := checkPlanName(name); err != nil {
		return nil, err
	}
	box := inbox.New(s.inbox, s.state)
	c, err := box.Conversation(name)
	if err != nil {
		return nil, err
	}
	if c == nil || len(c.Answers) == 0 {
		return nil, fmt.Errorf("%w: no answers are recorded for %s", inbox.ErrNoQuestions, name)
	}
	type qa struct {
		Question string `json:"question"`
		Answer   string `json:"answer"`
	}
	out := struct {
		Plan       string `json:"plan"`
		Intent     string `json:"intent,omitempty"`
		FollowedBy string `json:"followed_by,omitempty"`
		Answers    []qa   `json:"answers"`
	}{Plan: name, Intent: c.Intent, FollowedBy: c.FollowedBy}
	for i, q := range c.Questions {
		if i < len(c.Answers) {
			out.Answers = append(out.Answers, qa{q, c.Answers[i]})
		}
	}
	return json.MarshalIndent(out, "", "  ")
}

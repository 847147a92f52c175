package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/plans"
)

// The MCP server lets an agent read the model, check a draft plan and submit it to the inbox. It
// never applies, approves or changes the model: its only write is submitPlan's.

var (
	// ErrBadPlanName means a plan name an agent gave is not a plain NAME.
	ErrBadPlanName = errors.New("BAD_PLAN_NAME")
	// ErrPlanExists means the inbox holds a plan of that name already.
	ErrPlanExists = errors.New("PLAN_EXISTS")
	// ErrUnsafeInbox means the inbox is not a plain folder (a symlink, say).
	ErrUnsafeInbox = errors.New("UNSAFE_INBOX")
)

// checkPlanName refuses a NAME the inbox does not accept (inbox.CheckName: letters, digits, '-'
// and '_', starting with a letter or digit, no dot, so no name passes for another file's).
func checkPlanName(name string) error {
	if err := inbox.CheckName(name); err != nil {
		return fmt.Errorf("%w: %v", ErrBadPlanName, err)
	}
	return nil
}

// submitPlan writes a plan into the inbox as NAME.json, with its planning context first as
// NAME.context.json when there is one, through the inbox's own writes: whole files, never over
// anything already there, never through a symlink. It refuses a NAME that is taken in any state
// (pending, approved, rejected). This is the MCP server's only write.
func submitPlan(dir, name string, plan, planContext []byte) (string, error) {
	if err := checkPlanName(name); err != nil {
		return "", err
	}
	info, err := os.Lstat(dir)
	if err != nil || !info.IsDir() {
		return "", fmt.Errorf("%w: %s is not a folder", ErrUnsafeInbox, dir)
	}
	if real, err := filepath.EvalSymlinks(dir); err != nil || filepath.Clean(real) != filepath.Clean(dir) {
		return "", fmt.Errorf("%w: %s passes through a symlink", ErrUnsafeInbox, dir)
	}
	box := inbox.New(dir, "")
	for _, taken := range []string{inbox.PlanFile(name), inbox.ApprovedFile(name), inbox.PlanFile(name) + inbox.SuffixApproved,
		inbox.RejectedFile(name), inbox.ContextFile(name)} {
		if _, err := os.Lstat(box.Path(taken)); err == nil {
			return "", fmt.Errorf("%w: %s is in the inbox", ErrPlanExists, taken)
		}
	}
	if planContext != nil {
		if err := box.WriteContext(name, planContext); err != nil {
			return "", err
		}
	}
	if err := box.Submit(name, plan); err != nil {
		if planContext != nil {
			os.Remove(box.Path(inbox.ContextFile(name)))
		}
		if errors.Is(err, inbox.ErrExists) {
			return "", fmt.Errorf("%w: %v", ErrPlanExists, err)
		}
		return "", err
	}
	return box.Path(inbox.PlanFile(name)), nil
}

// mcpServer is archiplan's MCP server over a workspace.
type mcpServer struct {
	cfg   *config
	root  string // the workspace
	inbox string
}

func mcpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the Model Context Protocol on stdio: agents read the model, check drafts and submit plans (never apply)",
		Long: `archiplan mcp is an MCP server over standard input and output. Its tools let an agent read the
model at HEAD (context, search, show, views), check a draft plan (validate_plan) and submit it to
the inbox (submit_plan writes plans/NAME.json). No tool applies, approves or changes the model:
a person approves, as with every plan.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			s := &mcpServer{cfg: cfg, root: ws.Root,
				inbox: filepath.Join(ws.Root, filepath.FromSlash(cfg.v.GetString("inbox")))}
			t := &mcp.IOTransport{Reader: io.NopCloser(cmd.InOrStdin()), Writer: nopWriteCloser{cmd.OutOrStdout()}}
			if err := s.server().Run(cmd.Context(), t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
				return codedError{exitNoUsable, fmt.Errorf("mcp: %w", err)}
			}
			return nil
		},
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// The tools' arguments.
type (
	contextArgs struct {
		Intent      string   `json:"intent,omitempty" jsonschema:"the request; what it names and their neighbours come first"`
		Scope       string   `json:"scope,omitempty" jsonschema:"view:ID, folder:PATH or ids:ID,ID,... (default: the whole model)"`
		MaxElements int      `json:"max_elements,omitempty" jsonschema:"the element budget (default 500)"`
		MaxChars    int      `json:"max_chars,omitempty" jsonschema:"the budget in characters (default 400000)"`
		Include     []string `json:"include,omitempty" jsonschema:"also documentation and/or properties"`
	}
	searchArgs struct {
		Name     string `json:"name,omitempty" jsonschema:"words the name contains (any case)"`
		Type     string `json:"type,omitempty" jsonschema:"an element or relationship type, e.g. Application Component"`
		Property string `json:"property,omitempty" jsonschema:"KEY or KEY=VALUE"`
		Limit    int    `json:"limit,omitempty" jsonschema:"the most results (default 100)"`
	}
	showArgs struct {
		ID string `json:"id" jsonschema:"the id of an element, relationship or view"`
	}
	viewsArgs struct{}
	validArgs struct {
		Plan  any    `json:"plan" jsonschema:"the draft ArchiChangePlan, as a JSON object"`
		Scope string `json:"scope,omitempty" jsonschema:"hold the plan to this scope, as submit_plan would (view:ID, folder:PATH or ids:ID,...)"`
	}
	submitArgs struct {
		Name  string `json:"name" jsonschema:"the plan's NAME: it lands as plans/NAME.json"`
		Plan  any    `json:"plan" jsonschema:"the ArchiChangePlan, as a JSON object"`
		Scope string `json:"scope,omitempty" jsonschema:"write NAME.context.json for this scope: the plan may then touch only what it lists"`
	}
)

func (s *mcpServer) server() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "archiplan", Title: "archiplan", Version: version},
		&mcp.ServerOptions{Instructions: mcpInstructions()})
	read := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}
	mcp.AddTool(srv, &mcp.Tool{Name: "context", Annotations: read,
		Description: "The planning context of the model at HEAD: the allowed ops and types, folders, specializations, the elements (what the intent names first), relationships, views with their contents, and what the budget omitted."},
		s.toolContext)
	mcp.AddTool(srv, &mcp.Tool{Name: "search", Annotations: read,
		Description: "Find elements and relationships by words in the name, type and property."}, s.toolSearch)
	mcp.AddTool(srv, &mcp.Tool{Name: "show", Annotations: read,
		Description: "One element (properties, documentation, relationships both ways with the other ends, the views showing it), relationship, or view (its diagram objects and connections)."},
		s.toolShow)
	mcp.AddTool(srv, &mcp.Tool{Name: "views", Annotations: read,
		Description: "Every view: id, name, folder, viewpoint and number of objects."}, s.toolViews)
	scope := map[string]any{"type": "string", "description": "hold the plan to this scope (view:ID, folder:PATH or ids:ID,...)"}
	srv.AddTool(&mcp.Tool{Name: "validate_plan", Annotations: read,
		Description: "Check a draft plan against the model at HEAD, as archiplan will: returns the report (verdict, coded errors with JSON pointers, warnings, what each action does). Writes nothing.",
		InputSchema: planInput(map[string]any{"scope": scope}, nil)},
		planTool(s.toolValidate))
	destructive := false
	srv.AddTool(&mcp.Tool{Name: "submit_plan", Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive, OpenWorldHint: new(bool)},
		Description: "Submit a plan to the inbox as plans/NAME.json (never over an existing one) and return its preview. A person reviews and approves it; this does not apply it.",
		InputSchema: planInput(map[string]any{"scope": scope, "name": map[string]any{"type": "string", "description": "the plan's NAME: it lands as plans/NAME.json"}}, []string{"name"})},
		planTool(s.toolSubmit))
	return srv
}

func textResult(data []byte) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}
}

func jsonResult(v any) *mcp.CallToolResult {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return errorResult(err)
	}
	return textResult(data)
}

// errorResult is a tool error the agent sees and can act on.
func errorResult(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}

func (s *mcpServer) model() (*archixml.Model, plans.ModelInfo, error) {
	return s.cfg.loadModel("")
}

func (s *mcpServer) toolContext(_ context.Context, _ *mcp.CallToolRequest, a contextArgs) (*mcp.CallToolResult, any, error) {
	m, _, err := s.model()
	if err != nil {
		return errorResult(err), nil, nil
	}
	c, err := plans.BuildContext(m, plans.ContextOptions{Scope: a.Scope, Intent: a.Intent, MaxElements: a.MaxElements,
		MaxChars: a.MaxChars, Include: a.Include}, s.cfg.policy())
	if err != nil {
		return errorResult(err), nil, nil
	}
	return textResult(c.JSON()), nil, nil
}

type found struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Type   string `json:"type"`
	Folder string `json:"folder"`
	Source string `json:"source,omitempty"`
	Target string `json:"target,omitempty"`
}

func foundOf(o archixml.Object) found {
	f := found{ID: o.ID(), Name: o.Name(), Folder: o.FolderPath()}
	if t := o.Type(); t != nil {
		f.Type = t.Label
	}
	if o.Kind() == archixml.KindRelationship {
		f.Source, f.Target = o.SourceID(), o.TargetID()
	}
	return f
}

func (s *mcpServer) toolSearch(_ context.Context, _ *mcp.CallToolRequest, a searchArgs) (*mcp.CallToolResult, any, error) {
	m, _, err := s.model()
	if err != nil {
		return errorResult(err), nil, nil
	}
	if a.Limit <= 0 {
		a.Limit = 100
	}
	words := strings.Fields(strings.ToLower(a.Name))
	key, value, hasValue := strings.Cut(a.Property, "=")
	var out []found
	total := 0
	for _, o := range append(m.Elements(), m.Relationships()...) {
		name := strings.ToLower(o.Name())
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(name, w)
		}
		if a.Type != "" {
			t := o.Type()
			ok = ok && t != nil && (strings.EqualFold(t.Label, a.Type) || strings.EqualFold(t.Class, a.Type) || strings.EqualFold(strings.ReplaceAll(t.Label, " ", ""), a.Type))
		}
		if a.Property != "" {
			v, has := o.Property(key)
			ok = ok && has && (!hasValue || v == value)
		}
		if !ok {
			continue
		}
		total++
		if len(out) < a.Limit {
			out = append(out, foundOf(o))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return jsonResult(map[string]any{"total": total, "results": nonNilList(out)}), nil, nil
}

func nonNilList[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (s *mcpServer) toolShow(_ context.Context, _ *mcp.CallToolRequest, a showArgs) (*mcp.CallToolResult, any, error) {
	m, _, err := s.model()
	if err != nil {
		return errorResult(err), nil, nil
	}
	o, ok := m.Object(a.ID)
	if !ok {
		return errorResult(fmt.Errorf("REF_NOT_FOUND: %q is no id of the model", a.ID)), nil, nil
	}
	switch o.Kind() {
	case archixml.KindView:
		return jsonResult(map[string]any{"id": o.ID(), "kind": "view", "name": o.Name(), "folder": o.FolderPath(),
			"viewpoint": o.Attr("viewpoint"), "documentation": o.Documentation(), "contents": plans.ViewContentsOf(o)}), nil, nil
	case archixml.KindElement, archixml.KindRelationship:
	default:
		return errorResult(fmt.Errorf("%q is a %s: show takes elements, relationships and views", a.ID, o.Kind())), nil, nil
	}
	type rel struct {
		ID        string `json:"id"`
		Type      string `json:"type"`
		Direction string `json:"direction"` // out: this is the source; in: the target
		Name      string `json:"name,omitempty"`
		Other     found  `json:"other"`
	}
	props := []map[string]string{}
	for _, p := range o.Properties() {
		props = append(props, map[string]string{"key": p.Key, "value": p.Value})
	}
	res := map[string]any{"kind": o.Kind().String(), "documentation": o.Documentation(), "properties": props}
	f := foundOf(o)
	res["id"], res["name"], res["type"], res["folder"] = f.ID, f.Name, f.Type, f.Folder
	if o.Kind() == archixml.KindRelationship {
		for k, id := range map[string]string{"source": o.SourceID(), "target": o.TargetID()} {
			if end, ok := m.Object(id); ok {
				res[k] = foundOf(end)
			}
		}
	}
	rels := []rel{}
	for _, r := range m.RelationshipsOf(o.ID()) {
		x := rel{ID: r.ID(), Type: foundOf(r).Type, Name: r.Name(), Direction: "out"}
		other := r.TargetID()
		if r.TargetID() == o.ID() && r.SourceID() != o.ID() {
			x.Direction, other = "in", r.SourceID()
		}
		if end, ok := m.Object(other); ok {
			x.Other = foundOf(end)
		}
		rels = append(rels, x)
	}
	res["relationships"] = rels
	views := []map[string]string{}
	seen := map[string]bool{}
	for _, ref := range m.ReferencesTo(o.ID()) {
		if v, ok := ref.View(); ok && !seen[v.ID()] {
			seen[v.ID()] = true
			views = append(views, map[string]string{"id": v.ID(), "name": v.Name(), "object": ref.ID()})
		}
	}
	res["views"] = views
	return jsonResult(res), nil, nil
}

func (s *mcpServer) toolViews(_ context.Context, _ *mcp.CallToolRequest, _ viewsArgs) (*mcp.CallToolResult, any, error) {
	m, _, err := s.model()
	if err != nil {
		return errorResult(err), nil, nil
	}
	out := []plans.ContextView{}
	for _, v := range m.Views() {
		out = append(out, plans.ContextView{ID: v.ID(), Name: v.Name(), Folder: v.FolderPath(),
			Viewpoint: v.Attr("viewpoint"), Objects: len(v.DiagramObjects())})
	}
	return jsonResult(out), nil, nil
}

// planBytes is the plan an agent gave: a JSON object, or its text.
func planBytes(plan any) ([]byte, error) {
	switch p := plan.(type) {
	case nil:
		return nil, errors.New("no plan given")
	case string:
		return []byte(p), nil
	default:
		data, err := json.MarshalIndent(p, "", "  ")
		if err != nil {
			return nil, err
		}
		return append(data, '\n'), nil
	}
}

// check checks a plan as the daemon will, with the scope's context when one is given.
func (s *mcpServer) check(plan any, scope string) (*plans.Outcome, plans.ModelInfo, []byte, error) {
	raw, err := planBytes(plan)
	if err != nil {
		return nil, plans.ModelInfo{}, nil, err
	}
	m, info, err := s.model()
	if err != nil {
		return nil, info, nil, err
	}
	opts := optionsOf(s.cfg)
	var ctxJSON []byte
	if scope != "" {
		c, err := plans.BuildContext(m, plans.ContextOptions{Scope: scope}, s.cfg.policy())
		if err != nil {
			return nil, info, nil, err
		}
		ctxJSON = c.JSON()
		if opts.Scope, err = plans.ScopeFromContext(ctxJSON); err != nil {
			return nil, info, nil, err
		}
	}
	return plans.Check(raw, m, opts), info, ctxJSON, nil
}

func (s *mcpServer) toolValidate(_ context.Context, _ *mcp.CallToolRequest, a validArgs) (*mcp.CallToolResult, any, error) {
	o, info, _, err := s.check(a.Plan, a.Scope)
	if err != nil {
		return errorResult(err), nil, nil
	}
	return textResult(o.Report("draft.json", info).JSON()), nil, nil
}

func (s *mcpServer) toolSubmit(_ context.Context, _ *mcp.CallToolRequest, a submitArgs) (*mcp.CallToolResult, any, error) {
	if err := checkPlanName(a.Name); err != nil {
		return errorResult(err), nil, nil
	}
	o, info, ctxJSON, err := s.check(a.Plan, a.Scope)
	if err != nil {
		return errorResult(err), nil, nil
	}
	raw, _ := planBytes(a.Plan)
	path, err := submitPlan(s.inbox, a.Name, raw, ctxJSON)
	if err != nil {
		return errorResult(err), nil, nil
	}
	rel, _ := filepath.Rel(s.root, path)
	head := fmt.Sprintf("Submitted %s (%s). A person reviews the preview and approves it; it is not applied.\n\n",
		filepath.ToSlash(rel), o.Verdict)
	return textResult(append([]byte(head), o.Preview(a.Name+".json", info)...)), nil, nil
}

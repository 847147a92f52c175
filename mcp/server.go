package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/plans/planctx"
	"github.com/archiplan/archiplan/store"
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

// Config is the workspace a server serves, as the command line opened it.
type Config struct {
	Root    string // the workspace
	Inbox   string // the inbox folder
	State   string // where archiplan keeps its records (.git/archiplan/inbox)
	Version string // archiplan's, as the server tells its clients
	// Model loads the model at HEAD, at every call; Options are the check options the
	// configuration asks for (its policy among them).
	Model   func() (*archixml.Model, plans.ModelInfo, error)
	Options func() plans.Options
	// Head is the commit at HEAD, read without the model (nil: nothing is cached).
	Head func() (string, error)
	// Workspace is the workspace opened, for what reads its history (object_history).
	Workspace *store.Workspace
	// Deliver, when set (deliver: pull-request), makes a plan submit_plan landed a pull request
	// on the forge as the daemon would, and says which ("" when it did not: an invalid plan).
	Deliver func(ctx context.Context, name string) (string, error)
}

// mcpServer is archiplan's MCP server over a workspace.
type mcpServer struct {
	cfg   Config
	root  string // the workspace
	inbox string
	state string // where archiplan keeps its records (.git/archiplan/inbox)

	contexts planctx.Cache // the contexts built, for the HEAD they are of
}

// Serve serves MCP on in and out until in ends or ctx is done.
func Serve(ctx context.Context, cfg Config, in io.Reader, out io.Writer) error {
	s := &mcpServer{cfg: cfg, root: cfg.Root, state: cfg.State, inbox: cfg.Inbox}
	guard, w := newMCPGuard(in, out)
	t := &mcp.IOTransport{Reader: guard, Writer: w}
	if err := s.server().Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

// The tools' arguments.
type (
	contextArgs struct {
		Intent      string   `json:"intent,omitempty" jsonschema:"the request; what it names and their neighbours come first"`
		Scope       string   `json:"scope,omitempty" jsonschema:"view:ID, folder:PATH or ids:ID,ID,... (default: the whole model)"`
		MaxElements int      `json:"max_elements,omitempty" jsonschema:"the element budget (default 500)"`
		MaxChars    int      `json:"max_chars,omitempty" jsonschema:"the budget in characters (default 400000)"`
		Include     []string `json:"include,omitempty" jsonschema:"also documentation and/or properties"`
		Plan        string   `json:"plan,omitempty" jsonschema:"the NAME of a plan whose questions a person answered: the answers come with the context"`
	}
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
	srv := mcp.NewServer(&mcp.Implementation{Name: "archiplan", Title: "archiplan", Version: s.cfg.Version},
		&mcp.ServerOptions{Instructions: mcpInstructions()})
	read := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}
	mcp.AddTool(srv, &mcp.Tool{Name: "context", Annotations: read,
		Description: "The planning context of the model at HEAD: the allowed ops and types, folders, specializations, the elements (what the intent names first), relationships, views with their contents, and what the budget omitted."},
		s.toolContext)
	s.addReadTools(srv, read)
	s.addHistoryTool(srv, read)
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

// textResult is an answer's text. Answers are JSON (but submit_plan's, a preview whose Markdown
// escaped every hidden character already): a character a person cannot see in a name, a
// documentation or a value, which could carry instructions no reviewer of the exchange sees, is
// written as JSON's escape (hidden.JSON), so the planner reads its code while every id and name
// it copies back into a plan decodes exactly.
func textResult(data []byte) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(hidden.JSON(data))}}}
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
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: hidden.Show(err.Error())}}}
}

func (s *mcpServer) model() (*archixml.Model, plans.ModelInfo, error) {
	return s.cfg.Model()
}

func (s *mcpServer) toolContext(_ context.Context, _ *mcp.CallToolRequest, a contextArgs) (*mcp.CallToolResult, any, error) {
	data, err := s.contextJSON(planctx.ContextOptions{Scope: a.Scope, Intent: a.Intent, MaxElements: a.MaxElements,
		MaxChars: a.MaxChars, Include: a.Include})
	if err != nil {
		return errorResult(err), nil, nil
	}
	res := textResult(data)
	if a.Plan != "" {
		answers, err := s.answers(a.Plan)
		if err != nil {
			return errorResult(err), nil, nil
		}
		res.Content = append(res.Content, &mcp.TextContent{Text: string(hidden.JSON(answers))})
	}
	return res, nil, nil
}

// contextJSON is the planning context of the model at HEAD, built once for each HEAD, options
// and policy: an agent asking again, or asking after a re-ask, is answered from the cache until
// HEAD moves (a new HEAD empties it).
func (s *mcpServer) contextJSON(o planctx.ContextOptions) ([]byte, error) {
	head := ""
	if s.cfg.Head != nil {
		if h, err := s.cfg.Head(); err == nil {
			head = h
		}
	}
	return s.contexts.JSON(head, o, s.cfg.Options().Policy, func() (*archixml.Model, string, error) {
		m, info, err := s.model()
		return m, info.Commit, err
	})
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
	opts := s.cfg.Options()
	var ctxJSON []byte
	if scope != "" {
		// the model read is of info.Commit: its scope's context is cached under that commit, for
		// the submit that follows a validate, and for the context tool
		ctxJSON, err = s.contexts.JSON(info.Commit, planctx.ContextOptions{Scope: scope}, opts.Policy,
			func() (*archixml.Model, string, error) { return m, info.Commit, nil })
		if err != nil {
			return nil, info, nil, err
		}
		if opts.Scope, err = plans.ScopeFromContext(ctxJSON); err != nil {
			return nil, info, nil, err
		}
	}
	return plans.CheckModel(raw, m, opts), info, ctxJSON, nil
}

func (s *mcpServer) toolValidate(_ context.Context, _ *mcp.CallToolRequest, a validArgs) (*mcp.CallToolResult, any, error) {
	o, info, _, err := s.check(a.Plan, a.Scope)
	if err != nil {
		return errorResult(err), nil, nil
	}
	return textResult(o.Report("draft.json", info).JSON()), nil, nil
}

func (s *mcpServer) toolSubmit(ctx context.Context, _ *mcp.CallToolRequest, a submitArgs) (*mcp.CallToolResult, any, error) {
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
	if s.cfg.Deliver != nil {
		// the plan is in the inbox whatever the forge answers
		if line, err := s.cfg.Deliver(ctx, a.Name); err != nil {
			head += "Not proposed as a pull request: " + hidden.Show(err.Error()) + "\n\n"
		} else if line != "" {
			head += "Proposed for review: " + hidden.Show(line) + "; a person approves it there.\n\n"
		}
	}
	return textResult(append([]byte(head), o.Preview(a.Name+".json", info)...)), nil, nil
}

package planners

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// toolNames are the names of the tools a Responses API request offers the model.
func toolNames(req map[string]any) []string {
	var out []string
	tools, _ := req["tools"].([]any)
	for _, t := range tools {
		m, _ := t.(map[string]any)
		name, _ := m["name"].(string)
		if name == "" {
			name, _ = m["type"].(string)
		}
		out = append(out, name)
	}
	return out
}

// Codex is a planner, and planners are not trusted: read-only, its agent still ran commands
// (shell, exec_command) that read whatever archiplan's user may (the review page's login under
// .git, ~/.ssh, /proc/PPID/environ with every key archiplan holds), and a plan's summary carried
// what it read into the inbox, where other planners read it. A model's text (a colleague's
// documentation) is enough to ask for it. The thread offers the model no tool but
// request_user_input, which asks archiplan (its only reader), and archiplan refuses every request.
func TestCodex_OffersNoTool(t *testing.T) {
	bin := realCodex(t)
	p := &provider{answer: func(n int, req map[string]any, w http.ResponseWriter) {
		stream(w, n, message(fmt.Sprintf("msg_%d", n), `{"schema_version":"2.0","status":"x"}`))
	}}
	srv := httptest.NewServer(p)
	defer srv.Close()
	codexHome(t, srv.URL+"/v1")
	pl := codexPlanner(t, bin, 5*time.Minute, nil)
	if _, err := pl.Ask(context.Background(), "plan something"); err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, n := range toolNames(p.request(0)) {
		if n != "request_user_input" {
			tools = append(tools, n)
		}
	}
	if len(tools) != 0 {
		t.Fatalf("codex offered the model tools: %v", tools)
	}
}

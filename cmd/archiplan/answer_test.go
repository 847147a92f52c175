package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
)

// answerProvider is a model provider on loopback for the real codex: it streams, as the Responses
// API does, the answer its script gives for the request's input text.
type answerProvider struct {
	mu     sync.Mutex
	inputs []string
	answer func(input string) string
}

func (p *answerProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req map[string]any
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path != "/v1/responses" || json.Unmarshal(body, &req) != nil {
		http.NotFound(w, r)
		return
	}
	in, _ := json.Marshal(req["input"])
	p.mu.Lock()
	p.inputs = append(p.inputs, string(in))
	n := len(p.inputs)
	p.mu.Unlock()
	text := p.answer(string(in))
	item := map[string]any{"type": "message", "id": fmt.Sprintf("msg_%d", n), "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
	w.Header().Set("Content-Type", "text/event-stream")
	id := fmt.Sprintf("resp_%d", n)
	for _, ev := range []map[string]any{
		{"type": "response.created", "response": map[string]any{"id": id, "status": "in_progress", "output": []any{}}},
		{"type": "response.output_item.added", "output_index": 0, "item": item},
		{"type": "response.output_text.delta", "item_id": item["id"], "output_index": 0, "content_index": 0, "delta": text},
		{"type": "response.output_item.done", "output_index": 0, "item": item},
		{"type": "response.completed", "response": map[string]any{"id": id, "status": "completed", "output": []any{item},
			"usage": map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
				"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}}},
	} {
		data, _ := json.Marshal(ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], data)
	}
}

// realCodexBin is the real codex CLI ($ARCHIPLAN_CODEX or codex on PATH), or a skip.
func realCodexBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("ARCHIPLAN_CODEX")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("codex"); err != nil {
			t.Skip("no codex: set ARCHIPLAN_CODEX")
		}
	}
	if out, err := exec.Command(bin, "--version").Output(); err != nil || !strings.HasPrefix(string(out), "codex-cli ") {
		t.Skipf("%s is not the Codex CLI", bin)
	}
	return bin
}

// A plan that needs clarification, answered through archiplan answer: the real Codex app-server
// is asked again with the questions and answers, and a ready plan lands under a linked NAME.
func TestAnswer_RealCodex(t *testing.T) {
	bin := realCodexBin(t)
	customer := ""
	for _, e := range archixml.Example().Elements() {
		if e.Name() == "Customer" {
			customer = e.ID()
		}
	}
	p := &answerProvider{answer: func(input string) string {
		if strings.Contains(input, "A: Client") {
			return `{"schema_version":"2.0","status":"ready","summary":"Rename the customer to Client","questions":null,"warnings":null,` +
				`"actions":[{"op":"rename_element","element_id":"` + customer + `","new_name":"Client"}]}`
		}
		return `{"schema_version":"2.0","status":"needs_clarification","summary":"Rename the customer","questions":["Which new name should the customer get?"],"warnings":null,"actions":[]}`
	}}
	srv := httptest.NewServer(p)
	defer srv.Close()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(`model = "fake-model"
model_provider = "fake"
check_for_update_on_startup = false
[model_providers.fake]
name = "fake"
base_url = "`+srv.URL+`/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
[analytics]
enabled = false
`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CODEX_HOME", home)
	dir := exampleWorkspace(t)
	if err := os.WriteFile(filepath.Join(dir, ".archiplan.yaml"), []byte("planner:\n  kind: codex\n  command: ["+
		strconvQuote(bin)+", app-server]\n  model: fake-model\n  timeout: 2m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := archiplan(t, "ask", "--repo", dir, "Rename the customer", "--name", "cust")
	if code != 0 || !strings.Contains(out, "landed plans/cust.json: not_ready") {
		t.Fatalf("ask: %d\n%s\n%s", code, out, stderr)
	}
	out, stderr, code = archiplan(t, "answer", "--repo", dir, "cust", "--answer", "Client")
	if code != 0 || !strings.Contains(out, "landed plans/cust-answered.json: valid") || !strings.Contains(out, "cust-answered follows cust") {
		t.Fatalf("answer: %d\n%s\n%s", code, out, stderr)
	}
	if len(p.inputs) != 2 || !strings.Contains(p.inputs[1], "Which new name should the customer get?") {
		t.Fatalf("the second request does not carry the question: %d requests", len(p.inputs))
	}
	plan, err := os.ReadFile(filepath.Join(dir, "plans", "cust-answered.json"))
	if err != nil || !strings.Contains(string(plan), `"ready"`) {
		t.Fatalf("%s %v", plan, err)
	}
	box := inbox.New(filepath.Join(dir, "plans"), filepath.Join(dir, ".git", "archiplan", "inbox"))
	first, _ := box.Conversation("cust")
	second, _ := box.Conversation("cust-answered")
	if first == nil || second == nil || first.FollowedBy != "cust-answered" || second.Follows != "cust" ||
		first.Answers[0] != "Client" || first.Intent != "Rename the customer" || second.Planner != "codex" || second.Model != "fake-model" ||
		first.Thread == "" || first.Turn == "" || second.Thread == "" || second.Thread == first.Thread {
		t.Fatalf("conversations: %+v %+v", first, second)
	}
	// the answers are no inbox file a planner could have written
	if entries, _ := os.ReadDir(filepath.Join(dir, "plans")); strings.Contains(fmt.Sprint(entries), "answer.") {
		t.Fatalf("inbox: %v", entries)
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// Without a planner the answers are kept: status shows them, and MCP context gives them to
// whoever plans next.
func TestAnswer_NoPlanner(t *testing.T) {
	dir := exampleWorkspace(t)
	write := func(name, plan string) {
		if err := os.WriteFile(filepath.Join(dir, "plans", name), []byte(plan), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("q.json", `{"schema_version":"2.0","status":"needs_clarification","summary":"Add a payment service","questions":["Which process does it serve?","Who owns it?"],"actions":[]}`)
	write("ready.json", `{"schema_version":"2.0","status":"ready","summary":"Nothing","actions":[]}`)
	if _, stderr, code := archiplan(t, "answer", "--repo", dir, "q", "--answer", "Booking"); code != exitUsage || !strings.Contains(stderr, "ANSWERS_MISMATCH") {
		t.Fatalf("one answer for two questions: %d %s", code, stderr)
	}
	if _, stderr, code := archiplan(t, "answer", "--repo", dir, "ready", "--answer", "x"); code != exitUsage || !strings.Contains(stderr, "NO_QUESTIONS") {
		t.Fatalf("a ready plan: %d %s", code, stderr)
	}
	out, stderr, code := archiplan(t, "answer", "--repo", dir, "q", "--answer", "Booking", "--answer", "The finance team")
	if code != 0 || !strings.Contains(out, "no planner asked") {
		t.Fatalf("answer: %d %s %s", code, out, stderr)
	}
	out, _, _ = archiplan(t, "status", "--repo", dir)
	if !strings.Contains(out, `A: "The finance team"`) || !strings.Contains(out, "no planner asked yet") {
		t.Fatal(out)
	}
	var st Status
	out, _, _ = archiplan(t, "status", "--repo", dir, "--json")
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range st.Plans {
		if p.Name == "q" && p.Conversation != nil && p.Conversation.Open() && p.Conversation.Answers[0] == "Booking" {
			found = true
		}
	}
	if !found {
		t.Fatalf("status --json: %s", out)
	}
	cs := mcpSession(t, dir)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "context", Arguments: map[string]any{"plan": "q"}})
	if err != nil || res.IsError || len(res.Content) != 2 || !strings.Contains(res.Content[1].(*mcp.TextContent).Text, "The finance team") {
		t.Fatalf("context with the answers: %v %+v", err, res)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "context", Arguments: map[string]any{"plan": "ready"}})
	if err != nil || !res.IsError {
		t.Fatalf("a plan without answers: %v %+v", err, res)
	}
}

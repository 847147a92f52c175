package planners

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// realCodex is the real `codex` command (npm @openai/codex, the version .ci/run pins):
// $ARCHIPLAN_CODEX, else codex on PATH. The test is skipped when there is none.
func realCodex(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("ARCHIPLAN_CODEX")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("codex"); err != nil {
			t.Skip("no codex: set ARCHIPLAN_CODEX or put codex on PATH (npm install @openai/codex)")
		}
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "codex-cli ") {
		t.Skipf("%s is not the Codex CLI: %v %s", bin, err, out)
	}
	return bin
}

// provider is a fake OpenAI Responses API on loopback, as codex's model provider: each request
// to /v1/responses is recorded and answered by the test's script, as a server-sent-event stream.
type provider struct {
	mu       sync.Mutex
	requests []map[string]any
	answer   func(n int, req map[string]any, w http.ResponseWriter)
}

func (p *provider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/responses" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	p.requests = append(p.requests, req)
	n := len(p.requests)
	p.mu.Unlock()
	p.answer(n, req, w)
}

func (p *provider) request(i int) map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i >= len(p.requests) {
		return nil
	}
	return p.requests[i]
}

func (p *provider) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.requests)
}

// sse writes one server-sent event.
func sse(w http.ResponseWriter, v map[string]any) {
	data, _ := json.Marshal(v)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], data)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

var usage = map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
	"output_tokens": 20, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 120}

// stream answers with output items, as the Responses API streams them.
func stream(w http.ResponseWriter, n int, items ...map[string]any) {
	w.Header().Set("Content-Type", "text/event-stream")
	id := fmt.Sprintf("resp_%d", n)
	sse(w, map[string]any{"type": "response.created", "response": map[string]any{"id": id, "status": "in_progress", "output": []any{}}})
	for i, item := range items {
		sse(w, map[string]any{"type": "response.output_item.added", "output_index": i, "item": item})
		if item["type"] == "message" {
			text := item["content"].([]any)[0].(map[string]any)["text"].(string)
			for len(text) > 0 { // deltas of 40 bytes, as a model streams
				k := min(40, len(text))
				sse(w, map[string]any{"type": "response.output_text.delta", "item_id": item["id"], "output_index": i, "content_index": 0, "delta": text[:k]})
				text = text[k:]
			}
		}
		sse(w, map[string]any{"type": "response.output_item.done", "output_index": i, "item": item})
	}
	sse(w, map[string]any{"type": "response.completed", "response": map[string]any{"id": id, "status": "completed", "output": items, "usage": usage}})
}

func message(id, text string) map[string]any {
	return map[string]any{"type": "message", "id": id, "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
}

// codexHome writes a CODEX_HOME whose config.toml points codex at the fake provider; provider
// lines are added to the provider's table.
func codexHome(t *testing.T, baseURL string, provider ...string) string {
	t.Helper()
	home := t.TempDir()
	cfg := `model = "fake-model"
model_provider = "fake"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "` + baseURL + `"
wire_api = "responses"
` + strings.Join(append(provider, ""), "\n") + `request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false
`
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CODEX_HOME", home)
	return home
}

const testSchema = `{"type":"object","properties":{"schema_version":{"type":"string"},"status":{"type":"string"}},"required":["schema_version","status"],"additionalProperties":false}`

// codexPlanner is the real codex as the planner; a test not about the timeout gives a generous one
// (codex starts slowly on a busy machine).
func codexPlanner(t *testing.T, bin string, timeout time.Duration, progress func(string)) Planner {
	t.Helper()
	p, err := New(Config{Kind: KindCodex, Command: []string{bin, "app-server"}, Model: "fake-model",
		Schema: []byte(testSchema), Timeout: timeout, Dir: t.TempDir(), Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func inputText(req map[string]any) string {
	b, _ := json.Marshal(req["input"])
	return string(b)
}

// The real codex app-server: a plan on the first answer, the schema reaching the model as a
// strict json_schema, a re-ask on the same thread, and nothing saved under CODEX_HOME.
func TestCodex_RealAppServer(t *testing.T) {
	bin := realCodex(t)
	p := &provider{answer: func(n int, req map[string]any, w http.ResponseWriter) {
		stream(w, n, message(fmt.Sprintf("msg_%d", n), fmt.Sprintf(`{"schema_version":"2.0","status":"answer-%d"}`, n)))
	}}
	srv := httptest.NewServer(p)
	defer srv.Close()
	home := codexHome(t, srv.URL+"/v1")
	pl := codexPlanner(t, bin, 5*time.Minute, nil)

	answer, err := pl.Ask(context.Background(), "PROMPT-MARKER: plan something")
	if err != nil {
		t.Fatal(err)
	}
	if answer != `{"schema_version":"2.0","status":"answer-1"}` {
		t.Fatalf("answer %q", answer)
	}
	first := p.request(0)
	format, _ := first["text"].(map[string]any)["format"].(map[string]any)
	if format["type"] != "json_schema" || format["strict"] != true {
		t.Fatalf("text.format: %v", first["text"])
	}
	var want, got any
	json.Unmarshal([]byte(testSchema), &want)
	b, _ := json.Marshal(format["schema"])
	json.Unmarshal(b, &got)
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Fatalf("the schema did not reach the model unchanged: %s", b)
	}
	if !strings.Contains(inputText(first), "PROMPT-MARKER") {
		t.Fatal("the prompt did not reach the model")
	}

	again, err := pl.Again(context.Background(), "FOLLOWUP-MARKER: fix it")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(again, "answer-2") {
		t.Fatalf("re-ask answer %q", again)
	}
	second := inputText(p.request(p.count() - 1))
	if !strings.Contains(second, "PROMPT-MARKER") || !strings.Contains(second, "FOLLOWUP-MARKER") || !strings.Contains(second, "answer-1") {
		t.Fatal("the re-ask is not on the same thread")
	}
	pl.Close()
	// ephemeral: no session, no prompt written under CODEX_HOME
	filepath.Walk(home, func(path string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			if data, _ := os.ReadFile(path); strings.Contains(string(data), "PROMPT-MARKER") {
				t.Errorf("the prompt was saved in %s", path)
			}
		}
		return nil
	})
	if entries, _ := os.ReadDir(filepath.Join(home, "sessions")); len(entries) > 0 {
		t.Errorf("codex saved sessions: %v", entries)
	}
}

// A model error fails the answer with the provider's message.
func TestCodex_RealModelError(t *testing.T) {
	bin := realCodex(t)
	p := &provider{answer: func(n int, req map[string]any, w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"message":"MODEL-SAYS-NO: the model is unavailable","type":"invalid_request_error","param":null,"code":"model_not_found"}}`)
	}}
	srv := httptest.NewServer(p)
	defer srv.Close()
	codexHome(t, srv.URL+"/v1")
	_, err := codexPlanner(t, bin, 5*time.Minute, nil).Ask(context.Background(), "plan")
	if !errors.Is(err, ErrPlanner) || !strings.Contains(err.Error(), "MODEL-SAYS-NO") {
		t.Fatalf("%v", err)
	}
}

// A provider that takes the request and never answers: the timeout stops codex cleanly.
func TestCodex_RealProviderHangs(t *testing.T) {
	bin := realCodex(t)
	release := make(chan struct{})
	p := &provider{answer: func(n int, req map[string]any, w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-req["_ctx"].(context.Context).Done():
		}
	}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		json.Unmarshal(body, &req)
		p.mu.Lock()
		p.requests = append(p.requests, req)
		p.mu.Unlock()
		req["_ctx"] = r.Context()
		p.answer(0, req, w)
	}))
	defer srv.Close()
	defer close(release)
	codexHome(t, srv.URL+"/v1")
	// the timeout must end a wait on the provider, not codex's start: on a busy machine codex may
	// not have asked the provider yet when a short timeout ends, so it is tried again with a
	// longer one until the hung provider was reached (a state, not a time)
	for timeout := 8 * time.Second; ; timeout *= 2 {
		_, err := codexPlanner(t, bin, timeout, nil).Ask(context.Background(), "plan")
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("a hung provider: %v (%d requests)", err, p.count())
		}
		if p.count() > 0 {
			return
		}
		if timeout > 2*time.Minute {
			t.Fatalf("codex never reached the provider: %v", err)
		}
		t.Logf("codex did not reach the provider in %s; again with a longer timeout", timeout)
	}
}

// A provider that cannot be reached: the failure names the cause, and the retries are shown as
// progress.
func TestCodex_RealProviderUnreachable(t *testing.T) {
	bin := realCodex(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	codexHome(t, "http://"+addr+"/v1")
	var mu sync.Mutex
	var notes []string
	// a timeout that ends codex before it tried the provider (its start, on a busy machine) has no
	// cause to name: it is tried again with a longer one
	for timeout := 15 * time.Second; ; timeout *= 2 {
		notes = nil
		_, err = codexPlanner(t, bin, timeout, func(s string) { mu.Lock(); notes = append(notes, s); mu.Unlock() }).
			Ask(context.Background(), "plan")
		if err == nil {
			t.Fatal("no error")
		}
		msg := err.Error()
		if !strings.Contains(msg, addr) && !strings.Contains(strings.ToLower(msg), "connect") && !strings.Contains(msg, "error sending request") {
			if errors.Is(err, ErrTimeout) && len(notes) == 0 && timeout < 2*time.Minute {
				t.Logf("codex tried no provider in %s; again with a longer timeout", timeout)
				continue
			}
			t.Fatalf("the failure does not name the cause: %v (notes %q)", err, notes)
		}
		break
	}
	t.Logf("error: %v; progress: %q", err, notes)
}

// The model asks to run a command that writes a file: the read-only sandbox refuses it, codex
// tells the model, and the plan still comes.
func TestCodex_RealSandboxRefusesWrite(t *testing.T) {
	bin := realCodex(t)
	victim := filepath.Join(t.TempDir(), "written-by-the-model")
	var toolName string
	p := &provider{}
	p.answer = func(n int, req map[string]any, w http.ResponseWriter) {
		if n == 1 {
			toolName = shellTool(req)
			args, _ := json.Marshal(map[string]any{"command": []string{"sh", "-c", "echo pwned > " + victim}, "cmd": "echo pwned > " + victim})
			stream(w, n, map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": toolName,
				"arguments": string(args), "status": "completed"})
			return
		}
		stream(w, n, message("msg_final", `{"schema_version":"2.0","status":"ready"}`))
	}
	srv := httptest.NewServer(p)
	defer srv.Close()
	codexHome(t, srv.URL+"/v1")
	answer, err := codexPlanner(t, bin, 5*time.Minute, nil).Ask(context.Background(), "plan")
	if err != nil {
		t.Fatal(err)
	}
	if toolName == "" {
		t.Skip("codex offered the model no shell tool")
	}
	if _, err := os.Stat(victim); err == nil {
		t.Fatal("the sandbox let the model write a file")
	}
	output := ""
	if p.count() >= 2 {
		items, _ := p.request(1)["input"].([]any)
		for _, it := range items {
			if m, _ := it.(map[string]any); m["type"] == "function_call_output" && m["call_id"] == "call_1" {
				b, _ := json.Marshal(m["output"])
				output = string(b)
			}
		}
	}
	if output == "" {
		t.Fatalf("codex did not return the tool's result to the model (%d requests)", p.count())
	}
	if !strings.Contains(output, "exited with code") || strings.Contains(output, "exited with code 0") {
		t.Fatalf("the refused command is not reported as failed: %s", output)
	}
	if !strings.Contains(answer, `"ready"`) {
		t.Fatalf("answer %q", answer)
	}
	t.Logf("%s told the model: %.400s", toolName, output)
}

// shellTool is the name of the tool codex offers for running commands.
func shellTool(req map[string]any) string {
	tools, _ := req["tools"].([]any)
	var names []string
	for _, tl := range tools {
		m, _ := tl.(map[string]any)
		name, _ := m["name"].(string)
		names = append(names, name)
	}
	for _, want := range []string{"shell", "exec_command", "shell_command", "local_shell"} {
		for _, n := range names {
			if n == want {
				return n
			}
		}
	}
	return ""
}

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archiplan/archiplan/plans"
)

const secret = "sk-test-never-in-files-0123456789"

// fakeResponses is a Responses API on loopback: it checks the key and the json_schema format,
// records the requests, and answers with the scripted outputs in turn.
type fakeResponses struct {
	mu       sync.Mutex
	answers  []map[string]any // the "output" item of each response
	requests []map[string]any
	delay    time.Duration
}

func (f *fakeResponses) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/responses" || r.Header.Get("Authorization") != "Bearer "+secret {
		http.Error(w, `{"error":{"message":"unauthorized"}}`, http.StatusUnauthorized)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	json.Unmarshal(body, &req)
	f.mu.Lock()
	f.requests = append(f.requests, req)
	n := len(f.requests)
	f.mu.Unlock()
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-r.Context().Done():
			return
		}
	}
	out := text("{}")
	if n <= len(f.answers) {
		out = f.answers[n-1]
	}
	// a Response with the fields OpenAI's specification requires
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-request-id", "req_"+string(rune('0'+n)))
	json.NewEncoder(w).Encode(map[string]any{
		"id": "resp_" + string(rune('0'+n)), "object": "response", "created_at": 1763800000, "status": "completed",
		"error": nil, "incomplete_details": nil, "instructions": req["instructions"], "model": req["model"],
		"output": []any{out}, "parallel_tool_calls": true, "metadata": map[string]any{}, "tool_choice": "auto",
		"tools": []any{}, "temperature": 1.0, "top_p": 1.0,
		"usage": map[string]any{"input_tokens": 900, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 50, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 950},
	})
}

func text(s string) map[string]any {
	return map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": s, "annotations": []any{}}}}
}

func openAIWorkspace(t *testing.T, url string) string {
	t.Helper()
	dir := exampleWorkspace(t)
	cfg := "planner:\n  kind: openai\n  model: gpt-test\n  base_url: " + url + "/v1\n  api_key_env: ARCHIPLAN_TEST_KEY\n  timeout: 5m\n"
	os.WriteFile(filepath.Join(dir, ".archiplan.yaml"), []byte(cfg), 0o644)
	t.Setenv("ARCHIPLAN_TEST_KEY", secret)
	return dir
}

func TestAsk_OpenAIReasksThenLands(t *testing.T) {
	f := &fakeResponses{answers: []map[string]any{
		text(`{"schema_version":"2.0","status":"ready","summary":"s","questions":null,"warnings":null,"actions":[{"op":"rename_element","element_id":"customer-1","new_name":"Client"}]}`),
		text(`{"schema_version":"2.0","status":"ready","summary":"s","questions":null,"warnings":null,"actions":[{"op":"rename_element","element_id":"id-59a96df4cd3e24d3da41e81a8c7d1335","new_name":"Client"}]}`),
	}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	dir := openAIWorkspace(t, srv.URL)
	var out, errOut bytes.Buffer
	code := run([]string{"ask", "--repo", dir, "--name", "oa", "Rename the customer to Client"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if len(f.requests) != 2 {
		t.Fatalf("%d requests, want 2", len(f.requests))
	}
	first, second := f.requests[0], f.requests[1]
	format := first["text"].(map[string]any)["format"].(map[string]any)
	if format["type"] != "json_schema" || format["strict"] != true || format["schema"] == nil {
		t.Fatalf("text.format: %v", format)
	}
	// nothing stored at OpenAI: the re-ask resends the conversation with the error
	input, _ := json.Marshal(second["input"])
	if second["store"] != false || second["previous_response_id"] != nil || !strings.Contains(string(input), "REF_NOT_FOUND") ||
		!strings.Contains(string(input), "customer-1") {
		t.Fatalf("the re-ask does not carry the conversation and the error: %v", second)
	}
	if first["instructions"] != plans.StablePrompt() || strings.Contains(string(input), "You are a planner for archiplan") {
		t.Fatal("the contract is not in instructions")
	}
	if !strings.Contains(errOut.String(), "openai: request req_1: 900 input tokens (0 cached)") {
		t.Fatalf("no progress: %s", errOut.String())
	}
	plan, err := os.ReadFile(filepath.Join(dir, "plans", "oa.json"))
	if err != nil || !strings.Contains(string(plan), "id-59a96df4cd3e24d3da41e81a8c7d1335") {
		t.Fatalf("%s %v", plan, err)
	}
	// the key is in no file, no output
	for _, s := range []string{out.String(), errOut.String(), string(plan)} {
		if strings.Contains(s, secret) {
			t.Fatal("the API key leaked")
		}
	}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			if data, _ := os.ReadFile(p); bytes.Contains(data, []byte(secret)) {
				t.Fatalf("the API key is in %s", p)
			}
		}
		return nil
	})
}

func TestAsk_OpenAIRefusalAndTimeout(t *testing.T) {
	f := &fakeResponses{answers: []map[string]any{
		{"type": "message", "content": []any{map[string]any{"type": "refusal", "refusal": "I cannot help with that."}}},
	}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	dir := openAIWorkspace(t, srv.URL)
	var out, errOut bytes.Buffer
	if code := run([]string{"ask", "--repo", dir, "--name", "no", "Do something odd"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out.String(), errOut.String())
	}
	plan, _ := os.ReadFile(filepath.Join(dir, "plans", "no.json"))
	if !strings.Contains(string(plan), `"status": "refusal"`) || !strings.Contains(out.String(), "not_ready") {
		t.Fatalf("a refusal does not land as a refusal: %s\n%s", plan, out.String())
	}

	// an API that answers after an hour: the timeout (short for this ask alone; the config's is
	// generous, for answers on a loaded machine) stops the wait, or the test never ends
	f.delay = time.Hour
	t.Setenv("ARCHIPLAN_PLANNER_TIMEOUT", "2s")
	out.Reset()
	errOut.Reset()
	code := run([]string{"ask", "--repo", dir, "--name", "late", "Anything"}, &out, &errOut)
	if code != exitNoUsable || !strings.Contains(errOut.String(), "did not answer in time") {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "plans", "late.json")); err == nil {
		t.Fatal("a plan landed after a timeout")
	}
	if strings.Contains(errOut.String(), secret) {
		t.Fatal("the API key leaked")
	}
}

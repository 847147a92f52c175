package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"
)

// readmePlanners is the `planners:` block of the README's configuration examples.
func readmePlanners(t *testing.T) map[string]map[string]any {
	t.Helper()
	data, err := os.ReadFile("../../docs/planners.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, "```yaml\nplanners:\n")
	if i < 0 {
		t.Fatal("the README has no planners: example")
	}
	block := s[i+len("```yaml\n"):]
	block = block[:strings.Index(block, "```")]
	var cfg struct {
		Planners map[string]map[string]any `yaml:"planners"`
	}
	if err := yaml.Unmarshal([]byte(block), &cfg); err != nil {
		t.Fatalf("the README's planners: %v", err)
	}
	return cfg.Planners
}

// providerFake answers the Chat Completions and Messages APIs with a valid plan of the example
// model, and records where and how each request came.
type providerFake struct {
	mu   sync.Mutex
	seen []*http.Request
	body []map[string]any
}

const goodRename = `{"schema_version":"2.0","status":"ready","summary":"Rename the customer","questions":null,"warnings":null,"actions":[{"op":"rename_element","element_id":"id-59a96df4cd3e24d3da41e81a8c7d1335","new_name":"Client"}]}`

func (f *providerFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	var req map[string]any
	json.Unmarshal(data, &req)
	f.mu.Lock()
	f.seen = append(f.seen, r.Clone(r.Context()))
	f.body = append(f.body, req)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": req["model"],
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "logprobs": nil,
				"message": map[string]any{"role": "assistant", "content": goodRename, "refusal": nil}}},
			"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
	case strings.HasSuffix(r.URL.Path, "/messages"):
		json.NewEncoder(w).Encode(map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": req["model"],
			"content":     []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "submit_plan", "input": json.RawMessage(goodRename)}},
			"stop_reason": "tool_use", "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}})
	default:
		http.NotFound(w, r)
	}
}

// Every configuration the README shows works: each planner is asked through `archiplan ask
// --planner NAME` against a fake server on loopback, and the request arrives in the shape that
// server takes (path, the key's header, the query), with the key only there.
func TestAsk_READMEPlanners(t *testing.T) {
	examples := readmePlanners(t)
	want := map[string]struct{ path, header, query string }{
		"azure":      {"/openai/deployments/my-gpt-4o/chat/completions", "Api-Key", "api-version=2024-10-21"},
		"ollama":     {"/v1/chat/completions", "", ""},
		"vllm":       {"/v1/chat/completions", "Authorization", ""},
		"llamacpp":   {"/v1/chat/completions", "", ""},
		"lmstudio":   {"/v1/chat/completions", "", ""},
		"openrouter": {"/api/v1/chat/completions", "Authorization", ""},
		"claude":     {"/v1/messages", "X-Api-Key", ""},
	}
	for name := range want {
		if examples[name] == nil {
			t.Errorf("the README lost its %s example", name)
		}
	}
	for name := range examples {
		if _, ok := want[name]; !ok {
			t.Errorf("the README's %s example is not tested here", name)
		}
	}
	f := &providerFake{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	fake, _ := url.Parse(srv.URL)
	dir := exampleWorkspace(t)
	for _, p := range examples {
		base, _ := p["base_url"].(string)
		if base == "" && p["kind"] == "anthropic" {
			base = "https://api.anthropic.com/v1" // its default
		}
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		u.Scheme, u.Host = "http", fake.Host // the same path, on loopback
		p["base_url"] = u.String()
		if env, ok := p["api_key_env"].(string); ok {
			t.Setenv(env, secret)
		}
	}
	cfg, _ := yaml.Marshal(map[string]any{"planners": examples})
	if err := os.WriteFile(filepath.Join(dir, ".archiplan.yaml"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			before := len(f.seen)
			if code := run([]string{"ask", "--repo", dir, "--planner", name, "--name", "p-" + name, "Rename the customer to Client"}, &out, &errOut); code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
			}
			if len(f.seen) != before+1 {
				t.Fatalf("%d requests", len(f.seen)-before)
			}
			r := f.seen[before]
			if r.URL.Path != w.path || r.URL.RawQuery != w.query {
				t.Fatalf("asked %s?%s, want %s?%s", r.URL.Path, r.URL.RawQuery, w.path, w.query)
			}
			for _, h := range []string{"Authorization", "Api-Key", "X-Api-Key"} {
				v := r.Header.Get(h)
				switch {
				case h == w.header && h == "Authorization" && v != "Bearer "+secret:
					t.Fatalf("Authorization: %q", v)
				case h == w.header && h != "Authorization" && v != secret:
					t.Fatalf("%s: %q", h, v)
				case h != w.header && v != "":
					t.Fatalf("the key went in %s too", h)
				}
			}
			if !strings.Contains(out.String(), "landed plans/p-"+name+".json: valid") || strings.Contains(out.String()+errOut.String(), secret) {
				t.Fatalf("%s\n%s", out.String(), errOut.String())
			}
		})
	}
	// the preview and status say who wrote a plan archiplan asked for, from archiplan's own
	// record; a plan written over the answer is nobody's
	var out, errOut bytes.Buffer
	planFile := filepath.Join(dir, "plans", "p-llamacpp.json")
	if code := run([]string{"validate", "--repo", dir, planFile}, &out, &errOut); code != 0 {
		t.Fatalf("validate: exit %d: %s %s", code, out.String(), errOut.String())
	}
	preview, _ := os.ReadFile(filepath.Join(dir, "plans", "p-llamacpp.preview.md"))
	if !strings.Contains(string(preview), "Asked of the planner llamacpp \\(chat, local\\), chat, json\\_object") ||
		!strings.Contains(string(preview), "for: Rename the customer to Client") {
		t.Fatalf("the preview does not say who wrote the plan:\n%s", preview)
	}
	out.Reset()
	run([]string{"status", "--repo", dir}, &out, &errOut)
	if !strings.Contains(out.String(), `asked: "Rename the customer to Client" (planner chat llamacpp, model local)`) {
		t.Fatalf("status:\n%s", out.String())
	}
	forged := strings.Replace(goodRename, "Client", "Buyer", 1)
	os.WriteFile(planFile, []byte(forged), 0o644)
	run([]string{"validate", "--repo", dir, planFile}, &out, &errOut)
	if preview, _ := os.ReadFile(filepath.Join(dir, "plans", "p-llamacpp.preview.md")); strings.Contains(string(preview), "Asked of") {
		t.Fatalf("a plan written over the planner's answer is said to be the planner's:\n%s", preview)
	}
	out.Reset()
	errOut.Reset()
	if code := run([]string{"ask", "--repo", dir, "--planner", "nosuch", "x"}, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "configured: ") {
		t.Fatalf("an unknown planner: exit %d: %s", code, errOut.String())
	}
}

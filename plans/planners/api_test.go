package planners

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/schemas"
)

// spec holds the published descriptions the fake servers check every request (and their own
// answers) against: OpenAI's OpenAPI document (extracted by testdata/spec/extract.py) and the
// Messages API as Anthropic's SDK describes it (testdata/spec/anthropic.json).
type spec struct {
	defs    map[string]any
	schemas map[string]*jsonschema.Schema
}

func loadSpec(t *testing.T, file string, names ...string) *spec {
	t.Helper()
	data, err := os.ReadFile("testdata/spec/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	s := &spec{defs: doc["$defs"].(map[string]any), schemas: map[string]*jsonschema.Schema{}}
	for _, name := range names {
		doc, _ := json.Marshal(map[string]any{"$ref": "#/$defs/" + name, "$defs": s.defs})
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		if err := c.AddResource("spec.json", bytes.NewReader(doc)); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile("spec.json")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s.schemas[name] = sch
	}
	return s
}

// check validates v against the definition name (compiled by loadSpec).
func (s *spec) check(name string, v any) error {
	sch, ok := s.schemas[name]
	if !ok {
		return fmt.Errorf("%s was not loaded", name)
	}
	data, _ := json.Marshal(v)
	var generic any
	json.Unmarshal(data, &generic)
	return sch.Validate(generic)
}

// names are the properties a definition declares, through allOf: the OpenAPI document does
// not refuse unknown names, so the fake servers check them.
func (s *spec) names(name string) map[string]bool {
	out := map[string]bool{}
	var walk func(node any)
	walk = func(node any) {
		m, ok := node.(map[string]any)
		if !ok {
			return
		}
		if ref, ok := m["$ref"].(string); ok {
			walk(s.defs[strings.TrimPrefix(ref, "#/$defs/")])
		}
		if props, ok := m["properties"].(map[string]any); ok {
			for k := range props {
				out[k] = true
			}
		}
		if all, ok := m["allOf"].([]any); ok {
			for _, a := range all {
				walk(a)
			}
		}
	}
	walk(s.defs[name])
	return out
}

// fakeAPI is a provider on loopback: it checks the path, the key's header and every request
// against the provider's published description, records the requests, and answers in turn.
type fakeAPI struct {
	t        *testing.T
	spec     *spec
	request  string // the definition a request must follow
	answer   string // the definition a 200 answer must follow ("" for none)
	path     string
	auth     func(http.Header) bool
	query    map[string]string
	mu       sync.Mutex
	requests []map[string]any
	headers  []http.Header
	reply    func(n int, req map[string]any) (code int, header map[string]string, body any)
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != f.path || !f.auth(r.Header) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `<html><body><h1>401 Authorization Required</h1><p>This server could not verify that you are authorized</p></body></html>`)
		return
	}
	for k, v := range f.query {
		if r.URL.Query().Get(k) != v {
			http.Error(w, `{"error":{"message":"missing `+k+`","code":"bad_query"}}`, http.StatusBadRequest)
			return
		}
	}
	data, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(data, &req); err != nil {
		f.t.Errorf("a request that is no JSON object: %s", data)
	}
	if err := f.spec.check(f.request, req); err != nil {
		f.t.Errorf("a request the API's description refuses: %v\n%s", err, data)
	}
	known := f.spec.names(f.request)
	for k := range req {
		if !known[k] {
			f.t.Errorf("a request field the API does not have: %q", k)
		}
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.headers = append(f.headers, r.Header.Clone())
	n := len(f.requests)
	f.mu.Unlock()
	code, header, body := f.reply(n, req)
	for k, v := range header {
		w.Header().Set(k, v)
	}
	w.Header().Set("x-request-id", fmt.Sprintf("req_%d", n))
	w.Header().Set("request-id", fmt.Sprintf("req_%d", n))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	if raw, ok := body.(string); ok { // a body that is not what the API sends (malformed)
		fmt.Fprint(w, raw)
		return
	}
	if code == http.StatusOK && f.answer != "" {
		if err := f.spec.check(f.answer, body); err != nil {
			f.t.Errorf("the fake answers in a shape the API does not have: %v", err)
		}
	}
	json.NewEncoder(w).Encode(body)
}

func (f *fakeAPI) serve(t *testing.T) string {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}

// judgeOn checks answers against a real model as `archiplan ask` does: the re-ask loop is driven
// by real validation errors.
func judgeOn(m *archixml.Model) Judge {
	return func(n int, answer string) (string, bool) {
		o := plans.Check(plans.NormalizeStrict([]byte(answer)), m, plans.Options{})
		return plans.FollowUp(o), len(o.Errors()) == 0
	}
}

// Two answers of the example model's rename: the first names a customer that does not exist,
// the second the real id.
var (
	badPlan  = `{"schema_version":"2.0","status":"ready","summary":"Rename","questions":null,"warnings":null,"actions":[{"op":"rename_element","element_id":"customer-1","new_name":"Client"}]}`
	goodPlan = `{"schema_version":"2.0","status":"ready","summary":"Rename","questions":null,"warnings":null,"actions":[{"op":"rename_element","element_id":"id-59a96df4cd3e24d3da41e81a8c7d1335","new_name":"Client"}]}`
)

func strictSchema(t *testing.T) []byte {
	s, ok := schemas.StrictJSON(schemas.Latest)
	if !ok {
		t.Fatal("no strict schema of " + schemas.Latest)
	}
	return s
}

// ---- Chat Completions

func chatCompletion(n int, content, refusal any, finish string) map[string]any {
	return map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1763800000 + n, "model": "m",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "logprobs": nil,
			"message": map[string]any{"role": "assistant", "content": content, "refusal": refusal}}},
		"usage": map[string]any{"prompt_tokens": 1500, "completion_tokens": 60, "total_tokens": 1560,
			"prompt_tokens_details": map[string]any{"cached_tokens": 1280}},
	}
}

// chatShape is one server's way of taking the Chat Completions API.
type chatShape struct {
	name   string
	path   string // where the server takes requests, from the base URL's host
	base   string // the base URL's path
	keyEnv string
	header string // the key's header, "" for Authorization
	query  map[string]string
	output string
	noKey  bool // a local server without a key
}

var chatShapes = []chatShape{
	{name: "openai", base: "/v1", path: "/v1/chat/completions", keyEnv: "ARCHIPLAN_TEST_KEY"},
	{name: "azure", base: "/openai/deployments/plans-gpt", path: "/openai/deployments/plans-gpt/chat/completions",
		keyEnv: "ARCHIPLAN_TEST_KEY", header: "api-key", query: map[string]string{"api-version": "2024-10-21"}},
	{name: "ollama", base: "/v1", path: "/v1/chat/completions", noKey: true},
	{name: "vllm", base: "/v1", path: "/v1/chat/completions", keyEnv: "ARCHIPLAN_TEST_KEY"},
	{name: "llama.cpp json_object", base: "/v1", path: "/v1/chat/completions", noKey: true, output: OutputJSONObject},
}

const testKey = "sk-test-0123456789-never-logged"

func (s chatShape) authOK(h http.Header) bool {
	switch {
	case s.noKey:
		return h.Get("Authorization") == "" && h.Get("api-key") == ""
	case s.header == "api-key":
		return h.Get("api-key") == testKey && h.Get("Authorization") == ""
	}
	return h.Get("Authorization") == "Bearer "+testKey
}

// Every server shape, through the re-ask loop to a valid plan: the request follows OpenAI's
// published description, the stable head is the system message, the follow-up carries the
// conversation and the coded error, and the key goes only in its header.
func TestChat_ServerShapesReaskToAValidPlan(t *testing.T) {
	m := archixml.Example()
	openai := loadSpec(t, "openai.json", "CreateChatCompletionRequest", "CreateChatCompletionResponse")
	t.Setenv("ARCHIPLAN_TEST_KEY", testKey)
	for _, shape := range chatShapes {
		t.Run(shape.name, func(t *testing.T) {
			f := &fakeAPI{t: t, spec: openai, request: "CreateChatCompletionRequest", answer: "CreateChatCompletionResponse",
				path: shape.path, auth: shape.authOK, query: shape.query,
				reply: func(n int, _ map[string]any) (int, map[string]string, any) {
					if n == 1 {
						return 200, nil, chatCompletion(n, badPlan, nil, "stop")
					}
					return 200, nil, chatCompletion(n, goodPlan, nil, "stop")
				}}
			url := f.serve(t)
			var notes []string
			p, err := New(Config{Kind: KindChat, Model: "m", BaseURL: url + shape.base, APIKeyEnv: shape.keyEnv,
				APIKeyHeader: shape.header, Query: shape.query, Output: shape.output, Schema: strictSchema(t),
				Instructions: "STABLE HEAD\n", Timeout: 20 * time.Second, Progress: func(s string) { notes = append(notes, s) }})
			if err != nil {
				t.Fatal(err)
			}
			answer, n, err := Converse(context.Background(), p, "STABLE HEAD\nTHE REQUEST", 3, judgeOn(m), nil)
			if err != nil || n != 2 || answer != goodPlan {
				t.Fatalf("answer %d %q: %v", n, answer, err)
			}
			first, second := f.requests[0], f.requests[1]
			msgs := second["messages"].([]any)
			if len(msgs) != 4 || msgs[0].(map[string]any)["role"] != "system" || msgs[0].(map[string]any)["content"] != "STABLE HEAD\n" ||
				msgs[1].(map[string]any)["content"] != "THE REQUEST" || msgs[2].(map[string]any)["role"] != "assistant" ||
				!strings.Contains(msgs[3].(map[string]any)["content"].(string), "REF_NOT_FOUND") {
				t.Fatalf("the re-ask: %v", msgs)
			}
			format := first["response_format"].(map[string]any)
			want := shape.output
			if want == "" {
				want = OutputJSONSchema
			}
			if format["type"] != want {
				t.Fatalf("response_format %v, want %s", format, want)
			}
			if want == OutputJSONSchema {
				js := format["json_schema"].(map[string]any)
				if js["strict"] != true || js["schema"] == nil || js["name"] != "archi_change_plan" {
					t.Fatalf("json_schema %v", js)
				}
			}
			if len(notes) == 0 || !strings.Contains(notes[0], "1280 cached") {
				t.Fatalf("progress: %q", notes)
			}
			for _, s := range notes {
				if strings.Contains(s, testKey) {
					t.Fatal("the key in a progress note")
				}
			}
		})
	}
}

// Success, refusal, truncation, 429 with Retry-After, 5xx, malformed JSON, an HTML error page,
// and a server that refuses json_schema.
func TestChat_Answers(t *testing.T) {
	openai := loadSpec(t, "openai.json", "CreateChatCompletionRequest", "CreateChatCompletionResponse")
	t.Setenv("ARCHIPLAN_TEST_KEY", testKey)
	long := strings.Repeat("I will not plan this. ", 200)
	cases := []struct {
		name     string
		reply    func(n int, req map[string]any) (int, map[string]string, any)
		requests int
		want     string // in the answer
		wantErr  string
		path     string
	}{
		{name: "refusal", requests: 1, want: `"status":"refusal"`, reply: func(n int, _ map[string]any) (int, map[string]string, any) {
			return 200, nil, chatCompletion(n, nil, long, "stop")
		}},
		{name: "truncated", requests: 1, wantErr: "finish_reason length", reply: func(n int, _ map[string]any) (int, map[string]string, any) {
			return 200, nil, chatCompletion(n, `{"schema_ver`, nil, "length")
		}},
		{name: "content filter", requests: 1, wantErr: "content_filter", reply: func(n int, _ map[string]any) (int, map[string]string, any) {
			return 200, nil, chatCompletion(n, nil, nil, "content_filter")
		}},
		{name: "429 with Retry-After", requests: 2, want: goodPlan, reply: func(n int, _ map[string]any) (int, map[string]string, any) {
			if n == 1 {
				return 429, map[string]string{"Retry-After": "0"}, map[string]any{"error": map[string]any{"message": "slow down", "type": "requests", "code": "rate_limit_exceeded"}}
			}
			return 200, nil, chatCompletion(n, goodPlan, nil, "stop")
		}},
		{name: "5xx three times", requests: 3, wantErr: "BROKEN-SERVER", reply: func(n int, _ map[string]any) (int, map[string]string, any) {
			return 502, nil, map[string]any{"object": "error", "message": "BROKEN-SERVER", "type": "InternalServerError", "code": 502}
		}},
		{name: "malformed JSON", requests: 1, wantErr: "no JSON", reply: func(n int, _ map[string]any) (int, map[string]string, any) {
			return 200, nil, `{"id":"chatcmpl-1","choices":[{"message":{"content":"{\"sche`
		}},
		{name: "an HTML page", requests: 1, wantErr: "401 Unauthorized", path: "/elsewhere", reply: nil},
		{name: "json_schema refused", requests: 2, want: goodPlan, reply: func(n int, req map[string]any) (int, map[string]string, any) {
			if req["response_format"].(map[string]any)["type"] == "json_schema" {
				return 400, nil, map[string]any{"error": map[string]any{"message": "response_format json_schema is not supported by this model", "type": "invalid_request_error", "code": nil}}
			}
			return 200, nil, chatCompletion(n, goodPlan, nil, "stop")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeAPI{t: t, spec: openai, request: "CreateChatCompletionRequest", answer: "CreateChatCompletionResponse",
				path: "/v1/chat/completions", auth: chatShapes[0].authOK, reply: tc.reply}
			if tc.path != "" {
				f.path = tc.path
			}
			p, err := New(Config{Kind: KindChat, Model: "m", BaseURL: f.serve(t) + "/v1", APIKeyEnv: "ARCHIPLAN_TEST_KEY",
				Schema: strictSchema(t), Timeout: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			p.(*chat).backoff = time.Millisecond
			a, err := p.Ask(context.Background(), "p")
			if len(f.requests) != tc.requests && tc.path == "" {
				t.Fatalf("%d requests, want %d (%v)", len(f.requests), tc.requests, err)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "<") || strings.Contains(err.Error(), testKey) {
					t.Fatalf("the error carries a page or the key: %v", err)
				}
				return
			}
			if err != nil || !strings.Contains(a, tc.want) {
				t.Fatalf("%q %v", a, err)
			}
			if tc.name == "json_schema refused" && !strings.Contains(Describe(p, KindChat), "refused the json_schema format") {
				t.Fatalf("the fallback is not said: %s", Describe(p, KindChat))
			}
			if tc.name == "refusal" {
				var plan struct{ Summary, SchemaVersion string }
				json.Unmarshal([]byte(a), &plan)
				if n := len([]rune(plan.Summary)); n > schemas.MaxSummary || n < 100 {
					t.Fatalf("refusal summary of %d characters", n)
				}
			}
		})
	}
}

func TestChat_RefusesBadConfig(t *testing.T) {
	for _, c := range []Config{
		{Kind: KindChat, Model: "m"},                                          // no base URL
		{Kind: KindChat, Model: "", BaseURL: "http://127.0.0.1:1/v1"},         // no model
		{Kind: KindChat, Model: "m", BaseURL: "http://ollama.example.com/v1"}, // remote plain http
		{Kind: KindChat, Model: "m", BaseURL: "https://h/v1", Output: "yaml"},
		{Kind: KindChat, Model: "m", BaseURL: "https://h/v1", Headers: map[string]string{"api-key": "k"}},
		{Kind: KindAnthropic, Model: "m", Output: "json_object"},
		{Kind: KindAnthropic, Model: "m", BaseURL: "http://10.1.1.1/v1"},
	} {
		if _, err := New(c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// ---- Anthropic Messages

func anthropicMessage(n int, stop string, content ...any) map[string]any {
	return map[string]any{
		"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": "claude-test",
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 300, "output_tokens": 90, "cache_creation_input_tokens": 0,
			"cache_read_input_tokens": 2048},
	}
}

func toolUse(id, input string) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": planTool, "input": json.RawMessage(input)}
}

func anthropicAuth(h http.Header) bool {
	return h.Get("x-api-key") == testKey && h.Get("anthropic-version") == anthropicVersion && h.Get("Authorization") == ""
}

// The forced tool, through the re-ask loop: the follow-up is the tool_result of the tool_use it
// answers, the stable head is a cached system block, and every request follows the API's
// description.
func TestAnthropic_ToolReaskToAValidPlan(t *testing.T) {
	spec := loadSpec(t, "anthropic.json", "Request", "Message")
	t.Setenv("ARCHIPLAN_TEST_KEY", testKey)
	f := &fakeAPI{t: t, spec: spec, request: "Request", answer: "Message", path: "/v1/messages", auth: anthropicAuth,
		reply: func(n int, _ map[string]any) (int, map[string]string, any) {
			if n == 1 {
				return 200, nil, anthropicMessage(n, "tool_use", map[string]any{"type": "text", "text": "Here is the plan."}, toolUse("toolu_1", badPlan))
			}
			return 200, nil, anthropicMessage(n, "tool_use", toolUse("toolu_2", goodPlan))
		}}
	var notes []string
	p, err := New(Config{Kind: KindAnthropic, Model: "claude-test", BaseURL: f.serve(t) + "/v1", APIKeyEnv: "ARCHIPLAN_TEST_KEY",
		Schema: strictSchema(t), Instructions: "STABLE HEAD\n", Timeout: 20 * time.Second, Progress: func(s string) { notes = append(notes, s) }})
	if err != nil {
		t.Fatal(err)
	}
	answer, n, err := Converse(context.Background(), p, "STABLE HEAD\nTHE REQUEST", 3, judgeOn(archixml.Example()), nil)
	if err != nil || n != 2 {
		t.Fatalf("answer %d %q: %v", n, answer, err)
	}
	var got, want any
	json.Unmarshal([]byte(answer), &got)
	json.Unmarshal([]byte(goodPlan), &want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("answer %s", answer)
	}
	first, second := f.requests[0], f.requests[1]
	if first["tool_choice"].(map[string]any)["name"] != planTool || first["max_tokens"].(float64) != 16384 {
		t.Fatalf("request: %v", first)
	}
	system := first["system"].([]any)[0].(map[string]any)
	if system["text"] != "STABLE HEAD\n" || system["cache_control"].(map[string]any)["type"] != "ephemeral" {
		t.Fatalf("system: %v", system)
	}
	msgs := second["messages"].([]any)
	if len(msgs) != 3 || msgs[0].(map[string]any)["content"] != "THE REQUEST" {
		t.Fatalf("messages: %v", msgs)
	}
	result := msgs[2].(map[string]any)["content"].([]any)[0].(map[string]any)
	text, _ := json.Marshal(result["content"])
	if result["type"] != "tool_result" || result["tool_use_id"] != "toolu_1" || result["is_error"] != true || !strings.Contains(string(text), "REF_NOT_FOUND") {
		t.Fatalf("the follow-up is not the tool's result: %v", result)
	}
	if len(notes) == 0 || !strings.Contains(notes[0], "2048 read from the cache") {
		t.Fatalf("progress: %q", notes)
	}
}

func TestAnthropic_Answers(t *testing.T) {
	spec := loadSpec(t, "anthropic.json", "Request", "Message")
	t.Setenv("ARCHIPLAN_TEST_KEY", testKey)
	overloaded := map[string]any{"type": "error", "error": map[string]any{"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_x"}
	cases := []struct {
		name     string
		output   string
		reply    func(n int, req map[string]any) (int, map[string]string, any)
		requests int
		want     string
		wantErr  string
	}{
		{name: "refusal", requests: 1, want: `"status":"refusal"`, reply: func(n int, _ map[string]any) (int, map[string]string, any) {
			return 200, nil, anthropicMessage(n, "refusal", map[string]any{"type": "text", "text": "I can't help with that request."})
		}},
		{name: "max_tokens", requests: 1, wantErr: "stop_reason max_tokens", reply: func(n int, _ map[string]any) (int, map[string]string, any) {
			return 200, nil, anthropicMessage(n, "max_tokens", toolUse("toolu_1", `{"schema_version":"2.0"}`))
		}},
		{name: "529 overloaded then 429 with retry-after", requests: 3, want: "Rename", reply: func(n int, _ map[string]any) (int, map[string]string, any) {
			switch n {
			case 1:
				return 529, nil, overloaded
			case 2:
				return 429, map[string]string{"retry-after": "0"}, map[string]any{"type": "error", "error": map[string]any{"type": "rate_limit_error", "message": "slow"}}
			}
			return 200, nil, anthropicMessage(n, "tool_use", toolUse("toolu_1", goodPlan))
		}},
		{name: "500 three times", requests: 3, wantErr: "API-DOWN", reply: func(n int, _ map[string]any) (int, map[string]string, any) {
			return 500, nil, map[string]any{"type": "error", "error": map[string]any{"type": "api_error", "message": "API-DOWN"}}
		}},
		{name: "401 is final", requests: 1, wantErr: "invalid x-api-key", reply: func(n int, _ map[string]any) (int, map[string]string, any) {
			return 401, nil, map[string]any{"type": "error", "error": map[string]any{"type": "authentication_error", "message": "invalid x-api-key"}}
		}},
		{name: "malformed JSON", requests: 1, wantErr: "no JSON", reply: func(n int, _ map[string]any) (int, map[string]string, any) {
			return 200, nil, `{"id":"msg_1","content":[{"type":"tool_use","input":{`
		}},
		{name: "no tool", requests: 1, wantErr: "no plan", reply: func(n int, _ map[string]any) (int, map[string]string, any) {
			return 200, nil, anthropicMessage(n, "end_turn", map[string]any{"type": "text", "text": "Sure!"})
		}},
		{name: "structured output", output: OutputJSONSchema, requests: 1, want: "Rename", reply: func(n int, req map[string]any) (int, map[string]string, any) {
			if req["output_config"] == nil || req["tools"] != nil {
				return 400, nil, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": "expected output_config"}}
			}
			return 200, nil, anthropicMessage(n, "end_turn", map[string]any{"type": "text", "text": goodPlan})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeAPI{t: t, spec: spec, request: "Request", answer: "Message", path: "/v1/messages", auth: anthropicAuth, reply: tc.reply}
			p, err := New(Config{Kind: KindAnthropic, Model: "claude-test", BaseURL: f.serve(t) + "/v1", APIKeyEnv: "ARCHIPLAN_TEST_KEY",
				Schema: strictSchema(t), Timeout: 20 * time.Second, Output: tc.output})
			if err != nil {
				t.Fatal(err)
			}
			p.(*anthropic).backoff = time.Millisecond
			a, err := p.Ask(context.Background(), "p")
			if len(f.requests) != tc.requests {
				t.Fatalf("%d requests, want %d (%v)", len(f.requests), tc.requests, err)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), testKey) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !strings.Contains(a, tc.want) {
				t.Fatalf("%q %v", a, err)
			}
		})
	}
}

// The error shapes every API uses are read to one line; a page is not.
func TestAPIErrorOf(t *testing.T) {
	cases := map[string]string{
		`{"error":{"message":"bad key\nreally","type":"invalid_request_error","code":"invalid_api_key"}}`: "invalid_api_key|bad key really",
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`:                     "overloaded_error|Overloaded",
		`{"object":"error","message":"model not found","type":"NotFoundError","code":404}`:                "|model not found",
		`{"error":"model 'llama9' not found"}`:                                                            "|model 'llama9' not found",
		`<html><body>502 Bad Gateway</body></html>`:                                                       "|",
	}
	keys := make([]string, 0, len(cases))
	for k := range cases {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, raw := range keys {
		code, msg := apiErrorOf([]byte(raw))
		if got := code + "|" + msg; got != cases[raw] {
			t.Errorf("%s: %q, want %q", raw, got, cases[raw])
		}
	}
}

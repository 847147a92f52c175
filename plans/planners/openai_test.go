package planners

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archiplan/archiplan/schemas"
)

// responsesAPI is a fake OpenAI Responses API on loopback. Its answers carry every field
// OpenAI's published specification requires of a Response, an output message and usage.
type responsesAPI struct {
	t        *testing.T
	spec     *spec // OpenAI's published description: every request must follow CreateResponse
	mu       sync.Mutex
	requests []map[string]any
	// reply answers the nth request (from 1): the HTTP status, headers, and the response's
	// status, incomplete_details, error and output.
	reply func(n int) (code int, header map[string]string, body any)
}

func (f *responsesAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/responses" || r.Header.Get("Authorization") != "Bearer test-key" {
		w.WriteHeader(http.StatusUnauthorized)
		json.NewEncoder(w).Encode(apiError("unauthorized", "invalid_api_key"))
		return
	}
	data, _ := io.ReadAll(r.Body)
	var req map[string]any
	json.Unmarshal(data, &req)
	if f.spec != nil {
		if err := f.spec.check("CreateResponse", req); err != nil {
			f.t.Errorf("a request the API's description refuses: %v\n%s", err, data)
		}
		known := f.spec.names("CreateResponse")
		for k := range req {
			if !known[k] {
				f.t.Errorf("a request field the Responses API does not have: %q", k)
			}
		}
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	n := len(f.requests)
	f.mu.Unlock()
	code, header, body := f.reply(n)
	for k, v := range header {
		w.Header().Set(k, v)
	}
	w.Header().Set("x-request-id", fmt.Sprintf("req_%d", n))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(body)
}

func apiError(msg, code string) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": code}}
}

// answer is a Response object as the specification requires it.
func answer(n int, status string, incomplete any, errObj any, output ...any) map[string]any {
	return map[string]any{
		"id": fmt.Sprintf("resp_%d", n), "object": "response", "created_at": 1763800000 + n, "status": status,
		"error": errObj, "incomplete_details": incomplete, "instructions": nil, "model": "gpt-test-2026",
		"output": output, "parallel_tool_calls": true, "metadata": map[string]any{}, "tool_choice": "auto",
		"tools": []any{}, "temperature": 1.0, "top_p": 1.0,
		"usage": map[string]any{"input_tokens": 1200, "input_tokens_details": map[string]any{"cached_tokens": 1024},
			"output_tokens": 80, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 1280},
	}
}

func outMessage(phase string, parts ...any) map[string]any {
	m := map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": parts}
	if phase != "" {
		m["phase"] = phase
	}
	return m
}

func outText(s string) map[string]any {
	return map[string]any{"type": "output_text", "text": s, "annotations": []any{}, "logprobs": []any{}}
}

func ok(n int, output ...any) (int, map[string]string, any) {
	return http.StatusOK, nil, answer(n, "completed", nil, nil, output...)
}

func openAIPlanner(t *testing.T, url string, change func(*Config)) *openAI {
	t.Helper()
	t.Setenv("ARCHIPLAN_TEST_OPENAI_KEY", "test-key")
	c := Config{Kind: KindOpenAI, Model: "gpt-test", BaseURL: url + "/v1", APIKeyEnv: "ARCHIPLAN_TEST_OPENAI_KEY",
		Schema: []byte(testSchema), Timeout: 20 * time.Second, Instructions: "STABLE HEAD\n"}
	if change != nil {
		change(&c)
	}
	p, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	o := p.(*openAI)
	o.backoff = time.Millisecond
	return o
}

func serve(t *testing.T, f *responsesAPI) string {
	f.t, f.spec = t, loadSpec(t, "openai.json", "CreateResponse")
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv.URL
}

// Nothing stored, the contract in instructions with a stable cache key, and a re-ask that
// resends the conversation instead of pointing at a stored response.
func TestOpenAI_StatelessReask(t *testing.T) {
	f := &responsesAPI{reply: func(n int) (int, map[string]string, any) {
		return ok(n, outMessage("", outText(fmt.Sprintf(`{"answer":%d}`, n))))
	}}
	var notes []string
	o := openAIPlanner(t, serve(t, f), func(c *Config) { c.Progress = func(s string) { notes = append(notes, s) } })
	a, err := o.Ask(context.Background(), "STABLE HEAD\nTHE CONTEXT AND REQUEST")
	if err != nil || a != `{"answer":1}` {
		t.Fatalf("%q %v", a, err)
	}
	b, err := o.Again(context.Background(), "THE ERRORS")
	if err != nil || b != `{"answer":2}` {
		t.Fatalf("%q %v", b, err)
	}
	first, second := f.requests[0], f.requests[1]
	for _, r := range f.requests {
		if r["store"] != false || r["instructions"] != "STABLE HEAD\n" || r["previous_response_id"] != nil || r["model"] != "gpt-test" {
			t.Fatalf("request: %v", r)
		}
	}
	if first["prompt_cache_key"] == nil || first["prompt_cache_key"] != second["prompt_cache_key"] {
		t.Fatalf("prompt_cache_key %v, %v", first["prompt_cache_key"], second["prompt_cache_key"])
	}
	in, _ := json.Marshal(second["input"])
	for _, want := range []string{"THE CONTEXT AND REQUEST", `{\"answer\":1}`, "THE ERRORS", `"role":"assistant"`} {
		if !strings.Contains(string(in), want) {
			t.Fatalf("the re-ask lacks %s: %s", want, in)
		}
	}
	if strings.Contains(string(in), "STABLE HEAD") {
		t.Fatal("the instructions are repeated in the input")
	}
	if len(notes) == 0 || !strings.Contains(notes[0], "req_1") || !strings.Contains(notes[0], "1024 cached") {
		t.Fatalf("progress: %q", notes)
	}
}

func TestOpenAI_StoreContinuesByID(t *testing.T) {
	f := &responsesAPI{reply: func(n int) (int, map[string]string, any) { return ok(n, outMessage("", outText("{}"))) }}
	o := openAIPlanner(t, serve(t, f), func(c *Config) { c.Store = true })
	o.Ask(context.Background(), "STABLE HEAD\nask")
	o.Again(context.Background(), "again")
	if f.requests[1]["store"] != true || f.requests[1]["previous_response_id"] != "resp_1" {
		t.Fatalf("%v", f.requests[1])
	}
	if in, _ := json.Marshal(f.requests[1]["input"]); strings.Contains(string(in), "ask") {
		t.Fatalf("a stored conversation is resent: %s", in)
	}
}

func TestOpenAI_Retries(t *testing.T) {
	cases := []struct {
		name     string
		fail     func(n int) (int, map[string]string, any)
		failures int // answers that fail before one succeeds
		requests int
		wantErr  string
	}{
		{"429 with Retry-After", func(n int) (int, map[string]string, any) {
			return 429, map[string]string{"Retry-After": "0"}, apiError("slow down", "rate_limit_exceeded")
		}, 1, 2, ""},
		{"503 twice", func(n int) (int, map[string]string, any) {
			return 503, nil, apiError("overloaded", "server_error")
		}, 2, 3, ""},
		{"500 three times", func(n int) (int, map[string]string, any) {
			return 500, nil, apiError("BROKEN-SERVER", "server_error")
		}, 3, 3, "BROKEN-SERVER"},
		{"insufficient quota is final", func(n int) (int, map[string]string, any) {
			return 429, nil, apiError("NO-QUOTA", "insufficient_quota")
		}, 3, 1, "NO-QUOTA"},
		{"400 is final", func(n int) (int, map[string]string, any) {
			return 400, nil, apiError("BAD-REQUEST", "invalid_value")
		}, 3, 1, "BAD-REQUEST"},
		{"a wait longer than the time left", func(n int) (int, map[string]string, any) {
			return 429, map[string]string{"Retry-After": "3600"}, apiError("LATER", "rate_limit_exceeded")
		}, 3, 1, "asked to wait 1h0m0s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &responsesAPI{reply: func(n int) (int, map[string]string, any) {
				if n <= tc.failures {
					return tc.fail(n)
				}
				return ok(n, outMessage("", outText("{}")))
			}}
			_, err := openAIPlanner(t, serve(t, f), nil).Ask(context.Background(), "p")
			if len(f.requests) != tc.requests {
				t.Fatalf("%d requests, want %d (%v)", len(f.requests), tc.requests, err)
			}
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrPlanner) {
				t.Fatalf("not coded: %v", err)
			}
		})
	}
}

func TestOpenAI_Answers(t *testing.T) {
	long := strings.Repeat("I will not plan this. ", 200)
	cases := []struct {
		name    string
		reply   func(n int) (int, map[string]string, any)
		want    string // in the answer
		wantErr string
	}{
		{"incomplete", func(n int) (int, map[string]string, any) {
			return 200, nil, answer(n, "incomplete", map[string]any{"reason": "max_output_tokens"}, nil, outMessage("", outText(`{"sche`)))
		}, "", "incomplete (max_output_tokens"},
		{"content filter", func(n int) (int, map[string]string, any) {
			return 200, nil, answer(n, "incomplete", map[string]any{"reason": "content_filter"}, nil)
		}, "", "content_filter"},
		{"failed", func(n int) (int, map[string]string, any) {
			return 200, nil, answer(n, "failed", nil, map[string]any{"code": "server_error", "message": "MODEL-FAILED"})
		}, "", "failed: MODEL-FAILED"},
		{"commentary first", func(n int) (int, map[string]string, any) {
			return ok(n, map[string]any{"type": "reasoning", "id": "rs_1", "summary": []any{}},
				outMessage("commentary", outText("Let me look at the model first.")),
				outMessage("final_answer", outText(`{"final":true}`)))
		}, `{"final":true}`, ""},
		{"commentary after the final answer", func(n int) (int, map[string]string, any) {
			return ok(n, outMessage("final_answer", outText(`{"final":true}`)),
				outMessage("commentary", outText("Let me look again.")))
		}, `{"final":true}`, ""},
		{"commentary after an unmarked answer", func(n int) (int, map[string]string, any) {
			return ok(n, outMessage("", outText(`{"final":true}`)), outMessage("commentary", outText("Let me look again.")))
		}, `{"final":true}`, ""},
		{"long refusal", func(n int) (int, map[string]string, any) {
			return ok(n, outMessage("", map[string]any{"type": "refusal", "refusal": long}))
		}, `"status":"refusal"`, ""},
		{"no message", func(n int) (int, map[string]string, any) {
			return ok(n, map[string]any{"type": "reasoning", "id": "rs_1", "summary": []any{}})
		}, "", "no final message"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &responsesAPI{reply: tc.reply}
			a, err := openAIPlanner(t, serve(t, f), nil).Ask(context.Background(), "p")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrPlanner) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				if len(f.requests) != 1 {
					t.Fatalf("%d requests: an incomplete or failed answer is reported, not asked again", len(f.requests))
				}
				return
			}
			if err != nil || !strings.Contains(a, tc.want) {
				t.Fatalf("%q %v", a, err)
			}
			if strings.Contains(a, "Let me look") {
				t.Fatal("commentary in the answer")
			}
			if strings.Contains(a, "refusal") {
				var plan struct{ Summary string }
				json.Unmarshal([]byte(a), &plan)
				if n := len([]rune(plan.Summary)); n > schemas.MaxSummary || n < 100 {
					t.Fatalf("refusal summary of %d characters", n)
				}
			}
		})
	}
}

func TestOpenAI_RefusesBadConfig(t *testing.T) {
	for _, c := range []Config{
		{Kind: KindOpenAI, Model: ""},
		{Kind: KindOpenAI, Model: "m", BaseURL: "http://api.example.com/v1"},
		{Kind: KindOpenAI, Model: "m", BaseURL: "http://10.0.0.1/v1"},
		{Kind: KindOpenAI, Model: "m", BaseURL: "ftp://api.example.com/v1"},
		{Kind: KindOpenAI, Model: "m", BaseURL: "api.openai.com"},
	} {
		if _, err := New(c); !errors.Is(err, ErrPlanner) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	for _, u := range []string{"https://api.openai.com/v1", "http://127.0.0.1:8080/v1", "http://localhost:1/v1", "http://[::1]:2/v1"} {
		if _, err := New(Config{Kind: KindOpenAI, Model: "m", BaseURL: u}); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
}

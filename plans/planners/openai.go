package planners

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/archiplan/archiplan/schemas"
)

// Retries of the OpenAI planner, as the official SDKs do them: 408, 409, 429, 5xx and connection
// errors, twice, 0.5 s doubling up to 8 s unless the answer says how long to wait.
const (
	openAIRetries  = 2
	openAIMaxWait  = 60 * time.Second // a Retry-After longer than this is not waited for
	openAIBackoff0 = 500 * time.Millisecond
	openAIBackoffN = 8 * time.Second
)

// openAI asks the OpenAI Responses API, with the strict plan schema as a json_schema text format.
// By default nothing is stored at OpenAI (store: false) and a re-ask resends the conversation
// (the prompt, the earlier answers and the errors); with Store, it continues by
// previous_response_id. The stable head of the prompt goes in instructions, with a
// prompt_cache_key made from it.
type openAI struct {
	cfg    Config
	client http.Client
	turns  []map[string]any // the conversation so far, as input items
	last   string           // the previous response's id (with Store)
	// backoff is the first wait between retries; tests shorten it.
	backoff time.Duration
}

// checkBaseURL refuses a base URL that would send the key in the clear: plain http is for
// loopback only.
func checkBaseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("planner.base_url %q is no URL: %w", raw, ErrPlanner)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		host := u.Hostname()
		if host == "localhost" {
			return nil
		}
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			return nil
		}
		return fmt.Errorf("planner.base_url %q: plain http only to loopback; use https: %w", raw, ErrPlanner)
	}
	return fmt.Errorf("planner.base_url %q: use https: %w", raw, ErrPlanner)
}

func (o *openAI) Ask(ctx context.Context, prompt string) (string, error) {
	o.turns, o.last = nil, ""
	input := prompt
	if o.cfg.Instructions != "" {
		input = strings.TrimPrefix(prompt, o.cfg.Instructions)
	}
	return o.send(ctx, input)
}

func (o *openAI) Again(ctx context.Context, message string) (string, error) {
	if len(o.turns) == 0 {
		return "", fmt.Errorf("no conversation to continue: %w", ErrPlanner)
	}
	return o.send(ctx, message)
}

func (o *openAI) Close() error { return nil }

// response is what the planner reads of a Responses API answer.
type response struct {
	ID                string `json:"id"`
	Status            string `json:"status"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
	Output []struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Phase   string `json:"phase"`
		Content []struct {
			Type    string `json:"type"`
			Text    string `json:"text"`
			Refusal string `json:"refusal"`
		} `json:"content"`
	} `json:"output"`
	Usage *struct {
		InputTokens        int `json:"input_tokens"`
		OutputTokens       int `json:"output_tokens"`
		InputTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"input_tokens_details"`
	} `json:"usage"`
}

func (o *openAI) send(ctx context.Context, input string) (string, error) {
	if err := o.cfg.checkInput(input); err != nil {
		return "", err
	}
	key := os.Getenv(o.cfg.APIKeyEnv)
	if key == "" {
		return "", fmt.Errorf("the API key is not set: export %s: %w", o.cfg.APIKeyEnv, ErrPlanner)
	}
	user := map[string]any{"role": "user", "content": input}
	body := map[string]any{
		"model": o.cfg.Model,
		"store": o.cfg.Store,
		"text": map[string]any{"format": map[string]any{
			"type": "json_schema", "name": "archi_change_plan", "strict": true, "schema": json.RawMessage(o.cfg.Schema)}},
	}
	if o.cfg.Instructions != "" {
		body["instructions"] = o.cfg.Instructions
		sum := sha256.Sum256([]byte(o.cfg.Instructions))
		body["prompt_cache_key"] = "archiplan-" + hex.EncodeToString(sum[:8])
	}
	if o.cfg.Store && o.last != "" {
		body["previous_response_id"] = o.last
		body["input"] = []any{user}
	} else {
		body["input"] = append(append([]any{}, anys(o.turns)...), user)
	}
	data, _ := json.Marshal(body)
	ctx, cancel := withTimeout(ctx, o.cfg.Timeout)
	defer cancel()

	r, reqID, err := o.post(ctx, data, key)
	if err != nil {
		return "", err
	}
	if o.cfg.Progress != nil && r.Usage != nil {
		o.cfg.Progress(fmt.Sprintf("openai: request %s: %d input tokens (%d cached), %d output tokens",
			orNone(reqID), r.Usage.InputTokens, r.Usage.InputTokensDetails.CachedTokens, r.Usage.OutputTokens))
	}
	switch r.Status {
	case "incomplete":
		reason := "no reason given"
		if r.IncompleteDetails != nil && r.IncompleteDetails.Reason != "" {
			reason = r.IncompleteDetails.Reason
		}
		return "", fmt.Errorf("the Responses API answered incomplete (%s; request %s): %w", reason, orNone(reqID), ErrPlanner)
	case "failed", "cancelled":
		msg := r.Status
		if r.Error != nil {
			msg += ": " + r.Error.Message
		}
		return "", fmt.Errorf("the Responses API: %s (request %s): %w", msg, orNone(reqID), ErrPlanner)
	}
	answer, err := finalAnswer(r)
	if err != nil {
		return "", fmt.Errorf("%v (request %s): %w", err, orNone(reqID), ErrPlanner)
	}
	o.last = r.ID
	o.turns = append(o.turns, user, map[string]any{"role": "assistant", "content": answer})
	return answer, nil
}

func anys(m []map[string]any) []any {
	out := make([]any, len(m))
	for i := range m {
		out[i] = m[i]
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "without id"
	}
	return s
}

// finalAnswer is the text of the final assistant message: the one marked final_answer, else the
// last one that is not commentary. A refusal is turned into a refusal plan whose summary fits
// the schema.
func finalAnswer(r *response) (string, error) {
	last := -1
	for i, item := range r.Output {
		if item.Type != "message" || item.Role != "" && item.Role != "assistant" || item.Phase == "commentary" {
			continue
		}
		if last >= 0 && r.Output[last].Phase == "final_answer" && item.Phase != "final_answer" {
			continue
		}
		last = i
	}
	if last < 0 {
		return "", fmt.Errorf("the Responses API answered with no final message (status %s)", r.Status)
	}
	var text strings.Builder
	for _, c := range r.Output[last].Content {
		switch c.Type {
		case "output_text":
			text.WriteString(c.Text)
		case "refusal":
			plan, _ := json.Marshal(map[string]any{"schema_version": schemas.Latest, "status": "refusal",
				"summary": clip(c.Refusal, schemas.MaxSummary), "actions": []any{}})
			return string(plan), nil
		}
	}
	if text.Len() == 0 {
		return "", fmt.Errorf("the Responses API answered with no text (status %s)", r.Status)
	}
	return text.String(), nil
}

// clip cuts s to at most n characters, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// post sends the request, retrying what is worth retrying, and reads the answer.
func (o *openAI) post(ctx context.Context, data []byte, key string) (*response, string, error) {
	backoff := o.backoff
	if backoff == 0 {
		backoff = openAIBackoff0
	}
	for attempt := 0; ; attempt++ {
		r, reqID, wait, err := o.once(ctx, data, key)
		if err == nil {
			return r, reqID, nil
		}
		if wait < 0 || attempt >= openAIRetries {
			return nil, reqID, err
		}
		if wait == 0 {
			wait = min(backoff<<attempt, openAIBackoffN)
		}
		if wait > openAIMaxWait {
			return nil, reqID, fmt.Errorf("%v; asked to wait %s: %w", errors.Unwrap(err), wait, ErrPlanner)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, reqID, fmt.Errorf("%v; asked to wait %s, longer than the time left: %w", errors.Unwrap(err), wait, ErrPlanner)
		}
		if o.cfg.Progress != nil {
			o.cfg.Progress(fmt.Sprintf("openai: %v; retry %d of %d in %s", errors.Unwrap(err), attempt+1, openAIRetries, wait))
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, reqID, o.timeout(ctx, err)
		}
	}
}

func (o *openAI) timeout(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("the Responses API after %s: %w", o.cfg.Timeout, ErrTimeout)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// once sends the request once. wait is -1 when a retry cannot help, 0 for the usual backoff, or
// how long the answer asked to wait.
func (o *openAI) once(ctx context.Context, data []byte, key string) (*response, string, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(o.cfg.BaseURL, "/")+"/responses", bytes.NewReader(data))
	if err != nil {
		return nil, "", -1, fmt.Errorf("%v: %w", err, ErrPlanner)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := o.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", -1, o.timeout(ctx, err)
		}
		// the URL and the error, never the request's headers
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, "", 0, fmt.Errorf("the Responses API at %s: %v: %w", o.cfg.BaseURL, err, ErrPlanner)
	}
	defer resp.Body.Close()
	reqID := resp.Header.Get("x-request-id")
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		if ctx.Err() != nil {
			return nil, reqID, -1, o.timeout(ctx, err)
		}
		return nil, reqID, 0, fmt.Errorf("read the answer: %v: %w", err, ErrPlanner)
	}
	var r response
	jsonErr := json.Unmarshal(raw, &r)
	if resp.StatusCode != http.StatusOK {
		msg := resp.Status
		if jsonErr == nil && r.Error != nil {
			msg += ": " + r.Error.Message
		}
		err := fmt.Errorf("the Responses API: %s (request %s): %w", msg, orNone(reqID), ErrPlanner)
		if r.Error != nil && r.Error.Code == "insufficient_quota" {
			return nil, reqID, -1, err
		}
		return nil, reqID, retryWait(resp), err
	}
	if jsonErr != nil {
		return nil, reqID, -1, fmt.Errorf("the Responses API answered %s with no JSON (request %s): %w", resp.Status, orNone(reqID), ErrPlanner)
	}
	return &r, reqID, 0, nil
}

// retryWait says whether and when an error answer is worth asking again.
func retryWait(resp *http.Response) time.Duration {
	switch resp.Header.Get("x-should-retry") {
	case "true":
	case "false":
		return -1
	default:
		c := resp.StatusCode
		if c != http.StatusRequestTimeout && c != http.StatusConflict && c != http.StatusTooManyRequests && c < 500 {
			return -1
		}
	}
	if ms, err := strconv.ParseFloat(resp.Header.Get("Retry-After-Ms"), 64); err == nil && ms >= 0 {
		return max(time.Duration(ms*float64(time.Millisecond)), time.Millisecond)
	}
	if v := resp.Header.Get("Retry-After"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
			return max(time.Duration(s*float64(time.Second)), time.Millisecond)
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(time.Until(t), time.Millisecond)
		}
	}
	return 0
}

package planners

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// openAI asks the OpenAI Responses API, with the strict plan schema as a json_schema text format.
// By default nothing is stored at OpenAI (store: false) and a re-ask resends the conversation
// (the prompt, the earlier answers and the errors); with Store, it continues by
// previous_response_id. The stable head of the prompt goes in instructions, with a
// prompt_cache_key made from it.
type openAI struct {
	httpAPI
	turns []map[string]any // the conversation so far, as input items
	last  string           // the previous response's id (with Store)
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
	key, err := o.key()
	if err != nil {
		return "", err
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

	raw, reqID, err := o.post(ctx, "/responses", data, o.cfg.authorize(key))
	if err != nil {
		return "", err
	}
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		return "", fmt.Errorf("the Responses API answered no response object (request %s): %w", orNone(reqID), ErrPlanner)
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
	answer, err := finalAnswer(&r)
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
			return refusalPlan(c.Refusal), nil
		}
	}
	if text.Len() == 0 {
		return "", fmt.Errorf("the Responses API answered with no text (status %s)", r.Status)
	}
	return text.String(), nil
}

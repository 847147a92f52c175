package planners

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// chat asks a Chat Completions API: OpenAI's (POST {base_url}/chat/completions) and the servers
// that speak it (Azure OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio, OpenRouter). The
// stable head of the prompt is the system message, so servers that cache prefixes cache it; the
// plan's shape is asked for with a strict json_schema response format, or, for servers without
// schemas, json_object (archiplan checks the answer either way). A server that refuses the
// json_schema format with a 400 naming it is asked again with json_object, and the planner says so.
type chat struct {
	httpAPI
	output   string           // json_schema or json_object, as asked now
	fellBack bool             // the server refused json_schema; json_object is used instead
	messages []map[string]any // the conversation so far
}

func (c *chat) Ask(ctx context.Context, prompt string) (string, error) {
	c.messages = nil
	input := prompt
	if c.cfg.Instructions != "" {
		input = strings.TrimPrefix(prompt, c.cfg.Instructions)
		c.messages = append(c.messages, map[string]any{"role": "system", "content": c.cfg.Instructions})
	}
	return c.send(ctx, input)
}

func (c *chat) Again(ctx context.Context, message string) (string, error) {
	if len(c.messages) == 0 {
		return "", fmt.Errorf("no conversation to continue: %w", ErrPlanner)
	}
	return c.send(ctx, message)
}

func (c *chat) Close() error { return nil }

// Description says how the plan was asked for, for the preview's planner line.
func (c *chat) Description() string {
	switch {
	case c.fellBack:
		return "chat, json_object (the server refused the json_schema format; archiplan checked the answer)"
	case c.output == OutputJSONObject:
		return "chat, json_object (the server is not given the schema; archiplan checked the answer)"
	}
	return "chat, strict json_schema"
}

// chatResponse is what the planner reads of a chat completion.
type chatResponse struct {
	ID      string `json:"id"`
	Choices []struct {
		FinishReason string `json:"finish_reason"`
		Message      struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

func (c *chat) body(user map[string]any) []byte {
	body := map[string]any{"model": c.cfg.Model, "messages": append(append([]map[string]any{}, c.messages...), user)}
	if c.output == OutputJSONObject {
		body["response_format"] = map[string]any{"type": "json_object"}
	} else {
		body["response_format"] = map[string]any{"type": "json_schema", "json_schema": map[string]any{
			"name": "archi_change_plan", "strict": true, "schema": json.RawMessage(c.cfg.Schema)}}
	}
	if c.cfg.MaxOutputTokens > 0 {
		body["max_completion_tokens"] = c.cfg.MaxOutputTokens
	}
	data, _ := json.Marshal(body)
	return data
}

func (c *chat) send(ctx context.Context, input string) (string, error) {
	if err := c.cfg.checkInput(input); err != nil {
		return "", err
	}
	key, err := c.key()
	if err != nil {
		return "", err
	}
	user := map[string]any{"role": "user", "content": input}
	ctx, cancel := withTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	raw, reqID, err := c.post(ctx, "/chat/completions", c.body(user), c.cfg.authorize(key))
	if err != nil && c.output == OutputJSONSchema && refusesSchema(err) {
		c.output, c.fellBack = OutputJSONObject, true
		c.progress("the server refused the json_schema response format; asking with json_object, and archiplan checks the answer")
		raw, reqID, err = c.post(ctx, "/chat/completions", c.body(user), c.cfg.authorize(key))
	}
	if err != nil {
		return "", err
	}
	var r chatResponse
	if err := json.Unmarshal(raw, &r); err != nil || len(r.Choices) == 0 {
		return "", fmt.Errorf("the Chat Completions API answered no choice (request %s): %w", orNone(reqID), ErrPlanner)
	}
	if r.Usage != nil {
		cached := 0
		if r.Usage.PromptTokensDetails != nil {
			cached = r.Usage.PromptTokensDetails.CachedTokens
		}
		c.progress(fmt.Sprintf("request %s: %d input tokens (%d cached), %d output tokens",
			orNone(reqID), r.Usage.PromptTokens, cached, r.Usage.CompletionTokens))
	}
	choice := r.Choices[0]
	if choice.Message.Refusal != nil && *choice.Message.Refusal != "" {
		return refusalPlan(*choice.Message.Refusal), nil
	}
	switch choice.FinishReason {
	case "length":
		return "", fmt.Errorf("the Chat Completions API answered incomplete (finish_reason length: the answer was cut at the token limit; request %s): %w", orNone(reqID), ErrPlanner)
	case "content_filter":
		return "", fmt.Errorf("the Chat Completions API answered incomplete (finish_reason content_filter; request %s): %w", orNone(reqID), ErrPlanner)
	}
	if choice.Message.Content == nil || strings.TrimSpace(*choice.Message.Content) == "" {
		return "", fmt.Errorf("the Chat Completions API answered with no text (finish_reason %q; request %s): %w", choice.FinishReason, orNone(reqID), ErrPlanner)
	}
	answer := *choice.Message.Content
	c.messages = append(c.messages, user, map[string]any{"role": "assistant", "content": answer})
	return answer, nil
}

// refusesSchema says whether an error is a server refusing the json_schema response format (a
// 400 that names it), as servers without structured outputs answer.
func refusesSchema(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, ": 400 ") && (strings.Contains(s, "response_format") || strings.Contains(s, "json_schema"))
}

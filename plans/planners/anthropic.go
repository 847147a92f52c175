package planners

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// anthropicVersion is the Messages API version archiplan speaks (the anthropic-version header).
const anthropicVersion = "2023-06-01"

// planTool is the one tool the anthropic planner offers and forces: its input is the plan.
const planTool = "submit_plan"

// anthropic asks Anthropic's Messages API (POST {base_url}/messages). The plan is the input of
// one forced tool whose input schema is the plan's (Output "tool", the default), or the text of
// a structured output (Output "json_schema": output_config.format). The stable head of the
// prompt is a system block marked for prompt caching. stop_reason max_tokens and
// model_context_window_exceeded are reported as incomplete; refusal becomes a refusal plan.
type anthropic struct {
	httpAPI
	messages []map[string]any // the conversation so far
	lastTool string           // the id of the last tool_use, which a follow-up answers
}

func (a *anthropic) Ask(ctx context.Context, prompt string) (string, error) {
	a.messages, a.lastTool = nil, ""
	input := prompt
	if a.cfg.Instructions != "" {
		input = strings.TrimPrefix(prompt, a.cfg.Instructions)
	}
	return a.send(ctx, map[string]any{"role": "user", "content": input}, input)
}

func (a *anthropic) Again(ctx context.Context, message string) (string, error) {
	if len(a.messages) == 0 {
		return "", fmt.Errorf("no conversation to continue: %w", ErrPlanner)
	}
	user := map[string]any{"role": "user", "content": message}
	if a.lastTool != "" {
		// a tool_use is answered by its tool_result: the errors found in the plan
		user["content"] = []any{map[string]any{"type": "tool_result", "tool_use_id": a.lastTool,
			"content": []any{map[string]any{"type": "text", "text": message}}, "is_error": true}}
	}
	return a.send(ctx, user, message)
}

func (a *anthropic) Close() error { return nil }

// Description says how the plan was asked for, for the preview's planner line.
func (a *anthropic) Description() string {
	if a.cfg.Output == OutputJSONSchema {
		return "anthropic, structured output (json_schema)"
	}
	return "anthropic, forced tool " + planTool
}

// messagesAnswer is what the planner reads of a Messages API answer.
type messagesAnswer struct {
	ID         string            `json:"id"`
	Content    []json.RawMessage `json:"content"`
	StopReason string            `json:"stop_reason"`
	Usage      *struct {
		InputTokens              int `json:"input_tokens"`
		OutputTokens             int `json:"output_tokens"`
		CacheReadInputTokens     int `json:"cache_read_input_tokens"`
		CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	} `json:"usage"`
}

type contentBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

func (a *anthropic) body(user map[string]any) []byte {
	body := map[string]any{
		"model":      a.cfg.Model,
		"max_tokens": a.cfg.MaxOutputTokens,
		"messages":   append(append([]map[string]any{}, a.messages...), user),
	}
	if a.cfg.Instructions != "" {
		body["system"] = []any{map[string]any{"type": "text", "text": a.cfg.Instructions,
			"cache_control": map[string]any{"type": "ephemeral"}}}
	}
	if a.cfg.Output == OutputJSONSchema {
		body["output_config"] = map[string]any{"format": map[string]any{"type": "json_schema", "schema": json.RawMessage(a.cfg.Schema)}}
	} else {
		body["tools"] = []any{map[string]any{"name": planTool,
			"description":  "Submit the ArchiChangePlan: the whole plan, as the instructions describe it.",
			"input_schema": json.RawMessage(a.cfg.Schema)}}
		body["tool_choice"] = map[string]any{"type": "tool", "name": planTool}
	}
	data, _ := json.Marshal(body)
	return data
}

func (a *anthropic) send(ctx context.Context, user map[string]any, text string) (string, error) {
	if err := a.cfg.checkInput(text); err != nil {
		return "", err
	}
	key, err := a.key()
	if err != nil {
		return "", err
	}
	ctx, cancel := withTimeout(ctx, a.cfg.Timeout)
	defer cancel()
	raw, reqID, err := a.post(ctx, "/messages", a.body(user), func(h http.Header) {
		a.cfg.authorize(key)(h)
		if h.Get("anthropic-version") == "" {
			h.Set("anthropic-version", anthropicVersion)
		}
	})
	if err != nil {
		return "", err
	}
	var m messagesAnswer
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", fmt.Errorf("the Messages API answered no message (request %s): %w", orNone(reqID), ErrPlanner)
	}
	if m.Usage != nil {
		a.progress(fmt.Sprintf("request %s: %d input tokens (%d read from the cache, %d written to it), %d output tokens",
			orNone(reqID), m.Usage.InputTokens, m.Usage.CacheReadInputTokens, m.Usage.CacheCreationInputTokens, m.Usage.OutputTokens))
	}
	var texts []string
	var tool *contentBlock
	for _, rawBlock := range m.Content {
		var b contentBlock
		if json.Unmarshal(rawBlock, &b) != nil {
			continue
		}
		switch {
		case b.Type == "text":
			texts = append(texts, b.Text)
		case b.Type == "tool_use" && b.Name == planTool:
			tool = &b
		}
	}
	switch m.StopReason {
	case "refusal":
		why := strings.TrimSpace(strings.Join(texts, "\n"))
		if why == "" {
			why = "The model declined to plan this (stop_reason refusal)."
		}
		return refusalPlan(why), nil
	case "max_tokens", "model_context_window_exceeded":
		return "", fmt.Errorf("the Messages API answered incomplete (stop_reason %s: the answer was cut; request %s): %w", m.StopReason, orNone(reqID), ErrPlanner)
	}
	var answer string
	switch {
	case tool != nil:
		if len(tool.Input) == 0 {
			return "", fmt.Errorf("the Messages API answered the %s tool with no input (request %s): %w", planTool, orNone(reqID), ErrPlanner)
		}
		answer, a.lastTool = string(tool.Input), tool.ID
	case a.cfg.Output == OutputJSONSchema && len(texts) > 0:
		answer, a.lastTool = strings.Join(texts, ""), ""
	default:
		return "", fmt.Errorf("the Messages API answered with no plan (stop_reason %q; request %s): %w", m.StopReason, orNone(reqID), ErrPlanner)
	}
	// the conversation keeps the answer as it came, so a tool_result can follow its tool_use
	a.messages = append(a.messages, user, map[string]any{"role": "assistant", "content": m.Content})
	return answer, nil
}

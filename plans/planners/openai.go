package planners

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// openAI asks the OpenAI Responses API, with the strict plan schema as a json_schema text format;
// follow-ups continue the same conversation through previous_response_id.
type openAI struct {
	cfg    Config
	client http.Client
	last   string // the previous response's id
}

func (o *openAI) Ask(ctx context.Context, prompt string) (string, error) {
	o.last = ""
	return o.send(ctx, prompt)
}

func (o *openAI) Again(ctx context.Context, message string) (string, error) {
	if o.last == "" {
		return "", fmt.Errorf("no conversation to continue: %w", ErrPlanner)
	}
	return o.send(ctx, message)
}

func (o *openAI) Close() error { return nil }

func (o *openAI) send(ctx context.Context, input string) (string, error) {
	if err := o.cfg.checkInput(input); err != nil {
		return "", err
	}
	key := os.Getenv(o.cfg.APIKeyEnv)
	if key == "" {
		return "", fmt.Errorf("the API key is not set: export %s: %w", o.cfg.APIKeyEnv, ErrPlanner)
	}
	body := map[string]any{
		"model": o.cfg.Model,
		"input": input,
		"text": map[string]any{"format": map[string]any{
			"type": "json_schema", "name": "archi_change_plan", "strict": true, "schema": json.RawMessage(o.cfg.Schema)}},
	}
	if o.last != "" {
		body["previous_response_id"] = o.last
	}
	data, _ := json.Marshal(body)
	ctx, cancel := withTimeout(ctx, o.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(o.cfg.BaseURL, "/")+"/responses", bytes.NewReader(data))
	if err != nil {
		return "", fmt.Errorf("%v: %w", err, ErrPlanner)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := o.client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("the Responses API after %s: %w", o.cfg.Timeout, ErrTimeout)
		}
		// the URL and the error, never the request's headers
		return "", fmt.Errorf("the Responses API at %s: %v: %w", o.cfg.BaseURL, errors.Unwrap(err), ErrPlanner)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("the Responses API after %s: %w", o.cfg.Timeout, ErrTimeout)
		}
		return "", fmt.Errorf("read the answer: %v: %w", err, ErrPlanner)
	}
	var r struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
		Output []struct {
			Type    string `json:"type"`
			Content []struct {
				Type    string `json:"type"`
				Text    string `json:"text"`
				Refusal string `json:"refusal"`
			} `json:"content"`
		} `json:"output"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return "", fmt.Errorf("the Responses API answered %s with no JSON: %w", resp.Status, ErrPlanner)
	}
	if resp.StatusCode != http.StatusOK || r.Error != nil {
		msg := resp.Status
		if r.Error != nil {
			msg += ": " + r.Error.Message
		}
		return "", fmt.Errorf("the Responses API: %s: %w", msg, ErrPlanner)
	}
	o.last = r.ID
	var text strings.Builder
	for _, item := range r.Output {
		if item.Type != "message" {
			continue
		}
		for _, c := range item.Content {
			switch c.Type {
			case "output_text":
				text.WriteString(c.Text)
			case "refusal":
				// the model refused to answer in the schema: that is a refusal plan
				plan, _ := json.Marshal(map[string]any{"schema_version": "2.0", "status": "refusal",
					"summary": c.Refusal, "actions": []any{}})
				return string(plan), nil
			}
		}
	}
	if text.Len() == 0 {
		return "", fmt.Errorf("the Responses API answered with no text (status %s): %w", r.Status, ErrPlanner)
	}
	return text.String(), nil
}

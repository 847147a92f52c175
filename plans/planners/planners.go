// Package planners talks to the planners archiplan can ask for a plan: the Codex app-server over
// stdio (JSON-RPC), OpenAI's Responses API, the Chat Completions API (OpenAI, Azure OpenAI and the
// servers that speak it: Ollama, vLLM, llama.cpp, LM Studio, OpenRouter), Anthropic's Messages
// API, or any command that reads the prompt on standard input and prints its answer. The HTTP
// ones share one core (http.go: the key, retries, timeouts, errors); Converse is the re-ask loop
// all of them share. Each is a conversation: Ask, then Again with follow-ups (the
// errors found in the answer) on the same thread.
package planners

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/archiplan/archiplan/schemas"
)

// Planner is one conversation with a planner.
type Planner interface {
	// Ask starts the conversation with the prompt and returns the planner's answer.
	Ask(ctx context.Context, prompt string) (string, error)
	// Again continues the same conversation with a follow-up and returns the new answer.
	Again(ctx context.Context, message string) (string, error)
	// Close ends the conversation and whatever process it ran.
	Close() error
}

// Planner kinds.
const (
	KindCommand   = "command"
	KindCodex     = "codex"
	KindOpenAI    = "openai"    // OpenAI's Responses API
	KindChat      = "chat"      // the Chat Completions API, as OpenAI and compatible servers speak it
	KindAnthropic = "anthropic" // Anthropic's Messages API
)

// Kinds lists the planner kinds, for messages and documentation.
var Kinds = []string{KindCodex, KindOpenAI, KindChat, KindAnthropic, KindCommand}

var (
	// ErrTimeout means the planner did not answer in time; it was stopped.
	ErrTimeout = errors.New("the planner did not answer in time")
	// ErrPlanner means the planner failed (exited, answered with an error, could not be reached).
	ErrPlanner = errors.New("planner failed")
	// ErrPromptTooLarge means a prompt is longer than the planner takes; it was not sent.
	ErrPromptTooLarge = errors.New("PROMPT_TOO_LARGE")
)

// CodexMaxInput is the most characters the Codex app-server takes as one input (codex-cli
// 0.169.0 refuses more with JSON-RPC error -32602).
const CodexMaxInput = 1_048_576

// Config chooses and sets up a planner.
type Config struct {
	Kind    string   // command, codex or openai
	Command []string // command: the planner command; codex: the app-server command (default codex app-server)
	Model   string   // codex, openai: the model ("" lets codex choose)
	BaseURL string   // openai: the API's base URL (default https://api.openai.com/v1)
	// APIKeyEnv names the environment variable holding the API key (default OPENAI_API_KEY). The
	// key is sent to the API and nowhere else: not to logs, reports, plans or commits.
	APIKeyEnv string
	// Store (openai) keeps prompts and answers at OpenAI and continues re-asks by
	// previous_response_id; by default nothing is stored and a re-ask resends the conversation.
	Store   bool
	Schema  []byte        // the strict plan schema the answer must follow
	Timeout time.Duration // for each answer (default 5 minutes)
	Dir     string        // the working folder of a command (codex runs in an empty folder of its own)
	// MaxInput is the most characters one prompt or follow-up may have; longer ones are refused
	// before they are sent. 0: the planner's known limit (CodexMaxInput for codex), none otherwise.
	MaxInput int
	// Progress, when set, is told what the planner is doing while it works (codex's retry notices).
	Progress func(string)
	// Instructions is the stable head of every prompt (plans.StablePrompt). The HTTP planners
	// send it apart from the rest (OpenAI's instructions, a system message, Anthropic's cached
	// system block), so that providers cache it.
	Instructions string

	// Headers are extra HTTP headers for every request (never the key: APIKeyHeader says where
	// the key goes). Query holds URL query parameters, such as Azure's api-version.
	Headers map[string]string
	Query   map[string]string
	// APIKeyHeader names the header the key is sent in: "Authorization" (as "Bearer KEY", the
	// default of openai and chat), Azure's "api-key", or Anthropic's "x-api-key" (its default).
	APIKeyHeader string
	// Output says how the plan's shape is asked for. chat: "json_schema" (the strict schema, the
	// default) or "json_object" (any JSON object, checked by archiplan: for servers without
	// schemas). anthropic: "tool" (one forced tool whose input schema is the plan's, the default)
	// or "json_schema" (structured outputs, output_config.format).
	Output string
	// MaxOutputTokens bounds one answer (anthropic: max_tokens, required by its API, default
	// 16384; chat: max_completion_tokens when set).
	MaxOutputTokens int
	// Name is the configured planner's name (planners.NAME in the configuration), for messages.
	Name string
}

// checkInput refuses a text longer than the planner takes.
func (c Config) checkInput(text string) error {
	if c.MaxInput <= 0 {
		return nil
	}
	if n := utf8.RuneCountInString(text); n > c.MaxInput {
		return fmt.Errorf("%w: %d characters, the %s planner takes at most %d; nothing was sent",
			ErrPromptTooLarge, n, c.Kind, c.MaxInput)
	}
	return nil
}

// New makes a planner from its configuration.
func New(c Config) (Planner, error) {
	if c.Timeout <= 0 {
		c.Timeout = 5 * time.Minute
	}
	switch c.Kind {
	case KindCommand:
		if len(c.Command) == 0 {
			return nil, fmt.Errorf("planner.command is empty: %w", ErrPlanner)
		}
		return &command{cfg: c}, nil
	case KindCodex:
		if len(c.Command) == 0 {
			c.Command = []string{"codex", "app-server"}
		}
		if c.MaxInput <= 0 {
			c.MaxInput = CodexMaxInput
		}
		return &codex{cfg: c}, nil
	case KindOpenAI:
		if c.BaseURL == "" {
			c.BaseURL = "https://api.openai.com/v1"
		}
		if c.APIKeyEnv == "" {
			c.APIKeyEnv = "OPENAI_API_KEY"
		}
		h, err := newHTTP(c, "the Responses API")
		if err != nil {
			return nil, err
		}
		return &openAI{httpAPI: h}, nil
	case KindChat:
		if c.BaseURL == "" {
			return nil, fmt.Errorf("planner.base_url is empty: the chat planner needs the server's URL (https://api.openai.com/v1, http://localhost:11434/v1, ...): %w", ErrPlanner)
		}
		switch c.Output {
		case "":
			c.Output = OutputJSONSchema
		case OutputJSONSchema, OutputJSONObject:
		default:
			return nil, fmt.Errorf("planner.output %q: the chat planner takes json_schema or json_object: %w", c.Output, ErrPlanner)
		}
		h, err := newHTTP(c, "the Chat Completions API")
		if err != nil {
			return nil, err
		}
		return &chat{httpAPI: h, output: c.Output}, nil
	case KindAnthropic:
		if c.BaseURL == "" {
			c.BaseURL = "https://api.anthropic.com/v1"
		}
		if c.APIKeyEnv == "" {
			c.APIKeyEnv = "ANTHROPIC_API_KEY"
		}
		if c.APIKeyHeader == "" {
			c.APIKeyHeader = "x-api-key"
		}
		if c.MaxOutputTokens <= 0 {
			c.MaxOutputTokens = 16384
		}
		switch c.Output {
		case "":
			c.Output = OutputTool
		case OutputTool, OutputJSONSchema:
		default:
			return nil, fmt.Errorf("planner.output %q: the anthropic planner takes tool or json_schema: %w", c.Output, ErrPlanner)
		}
		h, err := newHTTP(c, "the Messages API")
		if err != nil {
			return nil, err
		}
		return &anthropic{httpAPI: h}, nil
	}
	return nil, fmt.Errorf("planner.kind %q: use %s: %w", c.Kind, strings.Join(Kinds, ", "), ErrPlanner)
}

// Output formats (Config.Output).
const (
	OutputJSONSchema = "json_schema"
	OutputJSONObject = "json_object"
	OutputTool       = "tool"
)

// newHTTP checks what every HTTP planner needs: a model, and a base URL that sends no key in
// the clear.
func newHTTP(c Config, api string) (httpAPI, error) {
	if strings.TrimSpace(c.Model) == "" {
		return httpAPI{}, fmt.Errorf("planner.model is empty: %s needs a model: %w", api, ErrPlanner)
	}
	if err := checkBaseURL(c.BaseURL); err != nil {
		return httpAPI{}, err
	}
	for k := range c.Headers {
		if k := http.CanonicalHeaderKey(k); k == "Authorization" || k == "Api-Key" || k == "X-Api-Key" {
			return httpAPI{}, fmt.Errorf("planner.headers.%s: a key goes in the environment variable api_key_env names, never in the configuration: %w", k, ErrPlanner)
		}
	}
	return httpAPI{api: api, cfg: c}, nil
}

// authorize sets the key's header as the configuration says: "Authorization: Bearer KEY" unless
// another header is named. No key (a local server without one) sets nothing.
func (c Config) authorize(key string) func(http.Header) {
	return func(h http.Header) {
		switch {
		case key == "":
		case c.APIKeyHeader == "" || http.CanonicalHeaderKey(c.APIKeyHeader) == "Authorization":
			h.Set("Authorization", "Bearer "+key)
		default:
			h.Set(c.APIKeyHeader, key)
		}
	}
}

// withTimeout bounds one answer.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}

// refusalPlan turns a model's refusal into a refusal plan whose summary fits the schema, so a
// refusal reads as one whatever the API that carried it.
func refusalPlan(text string) string {
	plan, _ := json.Marshal(map[string]any{"schema_version": schemas.Latest, "status": "refusal",
		"summary": clip(strings.TrimSpace(text), schemas.MaxSummary), "actions": []any{}})
	return string(plan)
}

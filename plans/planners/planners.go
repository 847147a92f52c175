// Package planners talks to the planners archiplan can ask for a plan: the Codex app-server over
// stdio (JSON-RPC), the OpenAI Responses API, or any command that reads the prompt on standard
// input and prints its answer. Each is a conversation: Ask, then Again with follow-ups (the
// errors found in the answer) on the same thread.
package planners

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
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
	KindCommand = "command"
	KindCodex   = "codex"
	KindOpenAI  = "openai"
)

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
	Dir     string        // the working folder of a command or the app-server
	// MaxInput is the most characters one prompt or follow-up may have; longer ones are refused
	// before they are sent. 0: the planner's known limit (CodexMaxInput for codex), none otherwise.
	MaxInput int
	// Progress, when set, is told what the planner is doing while it works (codex's retry notices).
	Progress func(string)
	// Instructions is the stable head of every prompt (plans.StablePrompt). The OpenAI planner
	// sends it as instructions and the rest of the prompt as input.
	Instructions string
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
		if strings.TrimSpace(c.Model) == "" {
			return nil, fmt.Errorf("planner.model is empty: the Responses API needs a model: %w", ErrPlanner)
		}
		if err := checkBaseURL(c.BaseURL); err != nil {
			return nil, err
		}
		return &openAI{cfg: c}, nil
	}
	return nil, fmt.Errorf("planner.kind %q: use command, codex or openai: %w", c.Kind, ErrPlanner)
}

// withTimeout bounds one answer.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}

package planners

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/archiplan/archiplan/internal/proc"
	"os"
	"path/filepath"
	"strings"
)

// maxAnswer bounds what archiplan reads of an answer; a plan is far smaller.
const maxAnswer = 4 << 20

// command is a planner that is any program: the prompt on its standard input, the answer on its
// standard output. It has no memory, so a follow-up sends the whole conversation again.
type command struct {
	cfg          Config
	conversation strings.Builder
	schemaFile   string
}

func (c *command) Ask(ctx context.Context, prompt string) (string, error) {
	c.conversation.Reset()
	c.conversation.WriteString(prompt)
	return c.run(ctx)
}

func (c *command) Again(ctx context.Context, message string) (string, error) {
	c.conversation.WriteString("\n\n## archiplan's reply to your answer\n\n")
	c.conversation.WriteString(message)
	return c.run(ctx)
}

func (c *command) run(ctx context.Context) (string, error) {
	if err := c.cfg.checkInput(c.conversation.String()); err != nil {
		return "", err
	}
	if c.schemaFile == "" && len(c.cfg.Schema) > 0 {
		f, err := os.CreateTemp("", "archiplan-schema-*.json")
		if err != nil {
			return "", err
		}
		f.Write(c.cfg.Schema)
		f.Close()
		c.schemaFile = f.Name()
	}
	// the one runner for commands archiplan does not trust to behave: own process group, all it
	// started killed at the end, output capped, no wait on a pipe a child keeps
	res, err := proc.Run(ctx, proc.Spec{Path: c.cfg.Command[0], Args: c.cfg.Command[1:], Dir: c.cfg.Dir,
		Env: proc.Env(map[string]string{"ARCHIPLAN_OUTPUT_SCHEMA": c.schemaFile}), Stdin: strings.NewReader(c.conversation.String()),
		Timeout: c.cfg.Timeout, MaxOutput: maxAnswer})
	switch {
	case errors.Is(err, proc.ErrTimeout):
		return "", fmt.Errorf("%s after %s: %w", filepath.Base(c.cfg.Command[0]), c.cfg.Timeout, ErrTimeout)
	case errors.Is(err, proc.ErrCanceled):
		return "", ctx.Err()
	case err != nil:
		return "", fmt.Errorf("start %s: %v: %w", filepath.Base(c.cfg.Command[0]), err, ErrPlanner)
	case res.ExitCode != 0:
		return "", fmt.Errorf("%s: exit status %d: %s: %w", filepath.Base(c.cfg.Command[0]), res.ExitCode, lastLine(string(res.Stderr)), ErrPlanner)
	}
	out := bytes.NewBuffer(res.Stdout)
	answer := out.String()
	c.conversation.WriteString("\n\n## Your answer\n\n")
	c.conversation.WriteString(answer)
	return answer, nil
}

func (c *command) Close() error {
	if c.schemaFile != "" {
		os.Remove(c.schemaFile)
	}
	return nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}

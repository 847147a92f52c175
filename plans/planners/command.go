package planners

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
	ctx, cancel := withTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	cmd := exec.Command(c.cfg.Command[0], c.cfg.Command[1:]...)
	cmd.Dir = c.cfg.Dir
	cmd.Env = append(os.Environ(), "ARCHIPLAN_OUTPUT_SCHEMA="+c.schemaFile)
	cmd.Stdin = strings.NewReader(c.conversation.String())
	var out, errOut bytes.Buffer
	cmd.Stdout = &limitedBuffer{b: &out}
	cmd.Stderr = &limitedBuffer{b: &errOut}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start %s: %v: %w", filepath.Base(c.cfg.Command[0]), err, ErrPlanner)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return "", fmt.Errorf("%s: %v: %s: %w", filepath.Base(c.cfg.Command[0]), err, lastLine(errOut.String()), ErrPlanner)
		}
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("%s after %s: %w", filepath.Base(c.cfg.Command[0]), c.cfg.Timeout, ErrTimeout)
		}
		return "", ctx.Err()
	}
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

type limitedBuffer struct{ b *bytes.Buffer }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := maxAnswer - l.b.Len(); room > 0 {
		if len(p) > room {
			l.b.Write(p[:room])
		} else {
			l.b.Write(p)
		}
	}
	return len(p), nil
}

var _ io.Writer = (*limitedBuffer)(nil)

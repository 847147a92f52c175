package planners

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/archiplan/archiplan/internal/proc"
)

// codex talks to `codex app-server` over stdio: newline-delimited JSON-RPC 2.0 without the
// "jsonrpc" field. It initializes, starts a read-only thread that never asks for approval, and
// runs one turn per question with the strict plan schema as outputSchema; the answer is the
// turn's last agentMessage. Approval requests the server still sends are declined.
type codex struct {
	cfg Config

	cmd   *exec.Cmd
	stdin io.WriteCloser
	// dir is the app-server's working folder, empty and its own (see start)
	dir    string
	mu     sync.Mutex // writes
	nextID int
	thread string
	// lastTurn is the id of the last turn started (the audit records it with the thread)
	lastTurn string

	pending sync.Map        // id -> chan rpcMessage
	notes   chan rpcMessage // notifications
	dead    chan struct{}   // closed when the server's output ends
	deadErr error

	stderr    *tailBuffer // the end of what codex wrote to stderr
	lastRetry string      // the last "error" notification, e.g. "Reconnecting... 5/5 (cause)"
}

type rpcMessage struct {
	ID     *json.RawMessage `json:"id,omitempty"`
	Method string           `json:"method,omitempty"`
	Params json.RawMessage  `json:"params,omitempty"`
	Result json.RawMessage  `json:"result,omitempty"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// start runs the app-server in an empty folder of its own, never the workspace: codex reads its
// working folder's AGENTS.md into the model's instructions and, in a project its user trusts, the
// folder's .codex/config.toml over the user's, and a colleague's pull writes the workspace. Their
// words reached the planner unseen by `archiplan prompt`; the planner needs no folder (no tools).
func (c *codex) start() error {
	name := c.cfg.Command[0]
	if strings.Contains(name, "/") && !filepath.IsAbs(name) { // a path the workspace's folder resolves
		if abs, err := filepath.Abs(filepath.Join(c.cfg.Dir, name)); err == nil {
			name = abs
		}
	}
	cmd := exec.Command(name, c.cfg.Command[1:]...)
	cmd.Env = codexEnv(c.cfg.Command)
	c.stderr = &tailBuffer{max: 4096}
	cmd.Stderr = c.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "archiplan-codex-")
	if err != nil {
		return fmt.Errorf("start codex: %v: %w", err, ErrPlanner)
	}
	cmd.Dir = dir
	if err := proc.StartGroup(cmd); err != nil {
		os.Remove(dir)
		return fmt.Errorf("start %s: %v: %w", strings.Join(c.cfg.Command, " "), err, ErrPlanner)
	}
	c.cmd, c.stdin, c.dir = cmd, in, dir
	c.notes = make(chan rpcMessage, 256)
	c.dead = make(chan struct{})
	go c.read(out)
	return nil
}

// read dispatches what the server writes: responses to their callers, server requests answered
// at once (approvals declined), notifications to the turn in progress.
func (c *codex) read(out io.Reader) {
	defer close(c.dead)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), maxAnswer)
	for sc.Scan() {
		var m rpcMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			continue // not a message; the server's own noise
		}
		switch {
		case m.ID != nil && m.Method != "":
			c.answerServer(m)
		case m.ID != nil:
			if ch, ok := c.pending.LoadAndDelete(string(*m.ID)); ok {
				ch.(chan rpcMessage) <- m
			}
		default:
			select {
			case c.notes <- m:
			default: // a turn nobody waits for; drop rather than block the reader
			}
		}
	}
	c.deadErr = sc.Err()
}

// answerServer answers a request the server sends, each in the shape its method takes: every
// approval is declined and no permission granted (the planner may read, never run commands or
// change files); questions for the user and tool calls are answered with nothing; anything else
// is not supported. Under approvalPolicy "never" codex sends none of these; this is the second
// line of defence.
func (c *codex) answerServer(m rpcMessage) {
	var result any
	switch m.Method {
	case "item/commandExecution/requestApproval", "item/fileChange/requestApproval":
		result = map[string]any{"decision": "decline"}
	case "execCommandApproval", "applyPatchApproval":
		result = map[string]any{"decision": "denied"}
	case "item/permissions/requestApproval":
		result = map[string]any{"permissions": map[string]any{}, "scope": "turn"}
	case "mcpServer/elicitation/request":
		result = map[string]any{"action": "decline"}
	case "item/tool/requestUserInput":
		result = map[string]any{"answers": map[string]any{}}
	case "item/tool/call":
		result = map[string]any{"contentItems": []any{}, "success": false}
	}
	reply := map[string]any{"id": m.ID, "result": result}
	if result == nil {
		reply = map[string]any{"id": m.ID, "error": map[string]any{"code": -32601, "message": "archiplan does not support " + m.Method}}
	}
	c.write(reply)
}

func (c *codex) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.stdin.Write(append(b, '\n'))
	return err
}

// call sends a request and waits for its response.
func (c *codex) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.mu.Unlock()
	ch := make(chan rpcMessage, 1)
	c.pending.Store(fmt.Sprint(id), ch)
	if err := c.write(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return nil, fmt.Errorf("%s: %v: %w", method, err, ErrPlanner)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s (%d): %w", method, m.Error.Message, m.Error.Code, ErrPlanner)
		}
		return m.Result, nil
	case <-c.dead:
		return nil, fmt.Errorf("%s: the app-server exited%s: %w", method, c.why(), ErrPlanner)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *codex) Ask(ctx context.Context, prompt string) (string, error) {
	ctx, cancel := withTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	answer, err := c.ask(ctx, prompt)
	return answer, c.timeout(ctx, err)
}

func (c *codex) ask(ctx context.Context, prompt string) (string, error) {
	if err := c.cfg.checkInput(prompt); err != nil {
		return "", err
	}
	if err := c.start(); err != nil {
		return "", err
	}
	if _, err := c.call(ctx, "initialize", map[string]any{
		"clientInfo": map[string]any{"name": "archiplan", "title": "archiplan", "version": "1"}}); err != nil {
		return "", err
	}
	if err := c.write(map[string]any{"method": "initialized", "params": map[string]any{}}); err != nil {
		return "", err
	}
	// ephemeral: codex keeps no copy of the thread (the prompt holds the model) under CODEX_HOME
	params := map[string]any{"approvalPolicy": "never", "sandbox": "read-only", "ephemeral": true, "config": noTools}
	if c.cfg.Model != "" {
		params["model"] = c.cfg.Model
	}
	params["cwd"] = c.dir
	res, err := c.call(ctx, "thread/start", params)
	if err != nil {
		return "", err
	}
	var started struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	if err := json.Unmarshal(res, &started); err != nil || started.Thread.ID == "" {
		return "", fmt.Errorf("thread/start: no thread id: %w", ErrPlanner)
	}
	c.thread = started.Thread.ID
	return c.turn(ctx, prompt)
}

// noTools is the configuration a thread starts with (over the user's config.toml): codex offers
// the model no tool. Read-only, its agent still ran commands that read whatever archiplan's user
// may read (the review page's login under .git, ~/.ssh, /proc/PPID/environ with every key
// archiplan holds), viewed images on disk and searched the web; a model's text (a colleague's
// documentation) is enough to ask for it, and a plan's summary carries the answer into the inbox,
// where other planners read it. A planner answers from the prompt alone.
var noTools = map[string]any{
	"web_search": "disabled", "mcp_servers": map[string]any{},
	"features.shell_tool": false, "features.unified_exec": false, "features.view_image": false,
	"features.multi_agent": false, "features.goals": false, "features.apps": false, "features.plugins": false,
	"features.browser_use": false, "features.in_app_browser": false, "features.computer_use": false,
	"features.image_generation": false, "features.sleep_tool": false, "features.tool_suggest": false,
	"features.skill_search": false, "features.code_mode_host": false,
}

func (c *codex) Again(ctx context.Context, message string) (string, error) {
	if c.thread == "" {
		return "", fmt.Errorf("no conversation to continue: %w", ErrPlanner)
	}
	if err := c.cfg.checkInput(message); err != nil {
		return "", err
	}
	ctx, cancel := withTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	answer, err := c.turn(ctx, message)
	return answer, c.timeout(ctx, err)
}

func (c *codex) timeout(ctx context.Context, err error) error {
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		c.Close()
		return fmt.Errorf("codex app-server after %s%s: %w", c.cfg.Timeout, c.why(), ErrTimeout)
	}
	return err
}

// why is what codex said of its trouble: the last retry notice and the end of its stderr.
func (c *codex) why() string {
	var parts []string
	if c.lastRetry != "" {
		parts = append(parts, "last notice: "+c.lastRetry)
	}
	if c.stderr != nil {
		if t := lastLine(ansi.ReplaceAllString(c.stderr.String(), "")); t != "" {
			parts = append(parts, "stderr: "+t)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

func (c *codex) progress(msg string) {
	if c.cfg.Progress != nil {
		c.cfg.Progress(msg)
	}
}

// turn runs one turn and returns its final agentMessage.
func (c *codex) turn(ctx context.Context, text string) (string, error) {
	params := map[string]any{
		"threadId": c.thread,
		"input":    []map[string]any{{"type": "text", "text": text}},
	}
	if len(c.cfg.Schema) > 0 {
		params["outputSchema"] = json.RawMessage(c.cfg.Schema)
	}
	res, err := c.call(ctx, "turn/start", params)
	if err != nil {
		return "", err
	}
	var started struct {
		Turn struct {
			ID string `json:"id"`
		} `json:"turn"`
	}
	_ = json.Unmarshal(res, &started)
	c.lastTurn = started.Turn.ID
	last := ""
	deltas := map[string]*strings.Builder{}
	for {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-c.dead:
			return "", fmt.Errorf("the app-server exited during the turn%s: %w", c.why(), ErrPlanner)
		case m := <-c.notes:
			switch m.Method {
			case "error":
				c.noteError(m.Params)
			case "item/agentMessage/delta":
				var d struct {
					ItemID string `json:"itemId"`
					Delta  string `json:"delta"`
				}
				if json.Unmarshal(m.Params, &d) == nil {
					if deltas[d.ItemID] == nil {
						deltas[d.ItemID] = &strings.Builder{}
					}
					deltas[d.ItemID].WriteString(d.Delta)
				}
			case "item/completed":
				var p struct {
					Item struct {
						Type string `json:"type"`
						ID   string `json:"id"`
						Text string `json:"text"`
					} `json:"item"`
				}
				if json.Unmarshal(m.Params, &p) == nil && p.Item.Type == "agentMessage" {
					last = p.Item.Text
					if last == "" && deltas[p.Item.ID] != nil {
						last = deltas[p.Item.ID].String()
					}
				}
			case "turn/completed":
				if text, done, err := c.turnCompleted(m.Params, started.Turn.ID, last); done {
					return text, err
				}
			}
		}
	}
}

// noteError keeps the app-server's error notice for the turn's failure, and shows it as progress
// when the app-server tries again.
func (c *codex) noteError(params json.RawMessage) {
	var p struct {
		Error struct {
			Message           string  `json:"message"`
			AdditionalDetails *string `json:"additionalDetails"`
		} `json:"error"`
		WillRetry bool `json:"willRetry"`
	}
	if json.Unmarshal(params, &p) == nil {
		msg := p.Error.Message
		if p.Error.AdditionalDetails != nil && *p.Error.AdditionalDetails != "" {
			msg += " (" + *p.Error.AdditionalDetails + ")"
		}
		c.lastRetry = msg
		if p.WillRetry {
			c.progress("codex: " + msg)
		}
	}
}

// turnCompleted reads the end of turn turnID: done with the agent's last message, or with why the
// turn failed; not done when the notice is of another turn.
func (c *codex) turnCompleted(params json.RawMessage, turnID, last string) (text string, done bool, err error) {
	var p struct {
		Turn struct {
			ID     string `json:"id"`
			Status string `json:"status"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		} `json:"turn"`
	}
	if json.Unmarshal(params, &p) != nil || (turnID != "" && p.Turn.ID != "" && p.Turn.ID != turnID) {
		return "", false, nil
	}
	if p.Turn.Status == "failed" || p.Turn.Status == "interrupted" {
		msg := "the turn " + p.Turn.Status
		if p.Turn.Error != nil {
			msg += ": " + p.Turn.Error.Message
		}
		if c.lastRetry != "" && (p.Turn.Error == nil || !strings.Contains(c.lastRetry, p.Turn.Error.Message)) {
			msg += " (last notice: " + c.lastRetry + ")"
		}
		return "", true, fmt.Errorf("%s: %w", msg, ErrPlanner)
	}
	if last == "" {
		return "", true, fmt.Errorf("the turn ended without an agent message: %w", ErrPlanner)
	}
	return last, true, nil
}

// Conversation is the app-server's thread id and the id of its last turn.
func (c *codex) Conversation() (thread, turn string) { return c.thread, c.lastTurn }

func (c *codex) Close() error {
	if c.cmd == nil || c.cmd.Process == nil {
		return nil
	}
	c.stdin.Close()
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		proc.KillGroup(c.cmd)
		<-done
	}
	os.RemoveAll(c.dir)
	c.cmd = nil
	return nil
}

// ansi matches the terminal colour codes of codex's log lines.
var ansi = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

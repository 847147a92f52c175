// Command fakecodex speaks the Codex app-server's JSON-RPC over stdio for archiplan's tests: it
// answers initialize, thread/start and turn/start as the real server does, streams intermediate
// agent messages, sends an approval request and waits for the client's decision, then completes
// the turn with the next scripted answer (FAKE_CODEX_DIR/answerN.txt; HANG never completes). It
// logs what the client sent to FAKE_CODEX_DIR/log.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

type msg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

var (
	dir = os.Getenv("FAKE_CODEX_DIR")
	out = bufio.NewWriter(os.Stdout)
	in  = bufio.NewScanner(os.Stdin)
)

func logf(format string, args ...any) {
	f, err := os.OpenFile(filepath.Join(dir, "log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		fmt.Fprintf(f, format+"\n", args...)
		f.Close()
	}
}

func send(v any) {
	b, _ := json.Marshal(v)
	out.Write(append(b, '\n'))
	out.Flush()
}

func main() {
	in.Buffer(make([]byte, 1<<20), 16<<20)
	turns := 0
	for in.Scan() {
		var m msg
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			logf("bad line: %s", in.Text())
			continue
		}
		switch m.Method {
		case "initialize":
			send(map[string]any{"id": m.ID, "result": map[string]any{"userAgent": "fakecodex/0.1"}})
		case "initialized":
			logf("initialized")
		case "thread/start":
			var p struct {
				ApprovalPolicy string `json:"approvalPolicy"`
				Sandbox        string `json:"sandbox"`
			}
			json.Unmarshal(m.Params, &p)
			logf("thread/start approvalPolicy=%s sandbox=%s", p.ApprovalPolicy, p.Sandbox)
			send(map[string]any{"id": m.ID, "result": map[string]any{"thread": map[string]any{"id": "thr_1"}}})
			send(map[string]any{"method": "thread/started", "params": map[string]any{"thread": map[string]any{"id": "thr_1"}}})
		case "turn/start":
			turns++
			var p struct {
				ThreadID     string `json:"threadId"`
				Input        []struct{ Text string }
				OutputSchema json.RawMessage `json:"outputSchema"`
			}
			json.Unmarshal(m.Params, &p)
			text := ""
			if len(p.Input) > 0 {
				text = p.Input[0].Text
			}
			logf("turn/start %d thread=%s schema=%v input=%s", turns, p.ThreadID, len(p.OutputSchema) > 0, firstLine(text))
			if strings.Contains(text, "REF_NOT_FOUND") {
				logf("turn %d was told REF_NOT_FOUND", turns)
			}
			turnID := fmt.Sprintf("turn_%d", turns)
			send(map[string]any{"id": m.ID, "result": map[string]any{"turn": map[string]any{"id": turnID, "status": "inProgress", "items": []any{}}}})
			turn(turnID, turns)
		default:
			if len(m.ID) > 0 && m.Method == "" {
				logf("unexpected response %s %s", m.ID, m.Result)
			}
		}
	}
}

func turn(turnID string, n int) {
	send(map[string]any{"method": "turn/started", "params": map[string]any{"turn": map[string]any{"id": turnID}}})
	thinking := fmt.Sprintf("msg_%d_a", n)
	send(map[string]any{"method": "item/started", "params": map[string]any{"item": map[string]any{"type": "agentMessage", "id": thinking, "text": ""}}})
	send(map[string]any{"method": "item/agentMessage/delta", "params": map[string]any{"itemId": thinking, "delta": "Looking at the model"}})
	send(map[string]any{"method": "item/completed", "params": map[string]any{"item": map[string]any{"type": "agentMessage", "id": thinking, "text": "Looking at the model..."}}})
	// ask to run a command, and wait for the decision
	approvalID := 900 + n
	send(map[string]any{"id": approvalID, "method": "item/commandExecution/requestApproval",
		"params": map[string]any{"threadId": "thr_1", "turnId": turnID, "itemId": "cmd_1", "command": []string{"rm", "-rf", "/"}}})
	for in.Scan() {
		var m msg
		if json.Unmarshal(in.Bytes(), &m) == nil && string(m.ID) == fmt.Sprint(approvalID) && m.Method == "" {
			logf("approval decision %s", m.Result)
			break
		}
	}
	answer, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("answer%d.txt", n)))
	if err != nil {
		answer = []byte("I have no more answers.")
	}
	if strings.TrimSpace(string(answer)) == "HANG" {
		for {
			time.Sleep(time.Hour)
		}
	}
	final := fmt.Sprintf("msg_%d_b", n)
	send(map[string]any{"method": "item/completed", "params": map[string]any{"item": map[string]any{"type": "agentMessage", "id": final, "text": string(answer)}}})
	send(map[string]any{"method": "turn/completed", "params": map[string]any{"turn": map[string]any{"id": turnID, "status": "completed"}}})
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

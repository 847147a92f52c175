// Command fakecodex speaks the Codex app-server's JSON-RPC over stdio for archiplan's tests, in
// the shapes codex-cli 0.169.0 uses: it answers initialize, thread/start and turn/start, streams
// intermediate agent messages, then completes the turn with the next scripted answer
// ($CODEX_HOME/answerN.txt; HANG never completes; RETRYHANG sends "Reconnecting..." error
// notices with willRetry and never completes). Like the real server, it sends approval requests
// only when the thread's approvalPolicy is not "never", or when a file $CODEX_HOME/approvals asks
// it to test the client's second line of defence: then one request of every approval method, each in
// its real shape (a command approval carries command as a string). It logs what the client sent
// to $CODEX_HOME/log (archiplan passes the app-server CODEX_HOME, not the rest of its
// environment). (The real server is tested in plans/planners against a fake provider.)
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
	approvals bool
	dir       = os.Getenv("CODEX_HOME")
	out       = bufio.NewWriter(os.Stdout)
	in        = bufio.NewScanner(os.Stdin)
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
				Ephemeral      bool   `json:"ephemeral"`
			}
			json.Unmarshal(m.Params, &p)
			approvals = p.ApprovalPolicy != "never" || exists(filepath.Join(dir, "approvals"))
			logf("thread/start approvalPolicy=%s sandbox=%s ephemeral=%v", p.ApprovalPolicy, p.Sandbox, p.Ephemeral)
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
	if approvals {
		for i, req := range []struct {
			method string
			params map[string]any
		}{
			{"item/commandExecution/requestApproval", map[string]any{"threadId": "thr_1", "turnId": turnID, "itemId": "cmd_1", "command": "rm -rf /", "cwd": "/"}},
			{"item/fileChange/requestApproval", map[string]any{"threadId": "thr_1", "turnId": turnID, "itemId": "fc_1"}},
			{"execCommandApproval", map[string]any{"conversationId": "thr_1", "callId": "c1", "command": []string{"rm", "-rf", "/"}, "cwd": "/", "parsedCmd": []any{}}},
			{"applyPatchApproval", map[string]any{"conversationId": "thr_1", "callId": "c2", "fileChanges": map[string]any{}}},
			{"item/permissions/requestApproval", map[string]any{"threadId": "thr_1", "turnId": turnID, "itemId": "p1", "permissions": map[string]any{}}},
		} {
			id := 900 + 10*n + i
			send(map[string]any{"id": id, "method": req.method, "params": req.params})
			for in.Scan() {
				var m msg
				if json.Unmarshal(in.Bytes(), &m) == nil && string(m.ID) == fmt.Sprint(id) && m.Method == "" {
					logf("%s reply %s", req.method, m.Result)
					break
				}
			}
		}
	}
	answer, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("answer%d.txt", n)))
	if err != nil {
		answer = []byte("I have no more answers.")
	}
	if strings.TrimSpace(string(answer)) == "RETRYHANG" {
		for i := 1; i <= 5; i++ {
			send(map[string]any{"method": "error", "params": map[string]any{"threadId": "thr_1", "turnId": turnID, "willRetry": true,
				"error": map[string]any{"message": fmt.Sprintf("Reconnecting... %d/5", i), "codexErrorInfo": nil,
					"additionalDetails": "stream disconnected before completion: error sending request for url (http://127.0.0.1:9/v1/responses)"}}})
		}
		fmt.Fprintln(os.Stderr, "fakecodex: the provider at http://127.0.0.1:9 cannot be reached")
	}
	if s := strings.TrimSpace(string(answer)); s == "HANG" || s == "RETRYHANG" {
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

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

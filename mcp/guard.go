package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/archiplan/archiplan/internal/jsonscan"
	"io"
	"sync"
)

// Limits of one MCP message, checked before the SDK decodes it: a message beyond them would make
// the SDK's decoder fail, and with it the whole connection (a plan nested 10,000 deep ended the
// server). Such a message gets a JSON-RPC error of its own, and the server keeps serving.
const (
	mcpMaxDepth = 64      // a plan nests at most 32 levels, its envelope 4
	mcpMaxLine  = 4 << 20 // a plan is at most 1 MiB
)

// mcpGuard passes the messages of stdin through, one line at a time, and answers those that nest
// too deep or are too long with an error on out instead of passing them.
type mcpGuard struct {
	in      *bufio.Reader
	out     *lockedWriter
	pending []byte
}

// lockedWriter writes whole messages, one at a time: the SDK's and the guard's answers never mix.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

func newMCPGuard(in io.Reader, out io.Writer) (*mcpGuard, *lockedWriter) {
	w := &lockedWriter{w: out}
	return &mcpGuard{in: bufio.NewReaderSize(in, 64<<10), out: w}, w
}

func (g *mcpGuard) Close() error { return nil }

func (g *mcpGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		line, tooLong, err := g.line()
		if len(line) > 0 || tooLong {
			if why := g.refuse(line, tooLong); why != "" {
				g.answer(line, why)
			} else {
				g.pending = line
			}
		}
		if err != nil && len(g.pending) == 0 {
			return 0, err
		}
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// line reads one line, newline included; a line longer than mcpMaxLine is read to its end and
// dropped (only its start is kept, for its id).
func (g *mcpGuard) line() (line []byte, tooLong bool, err error) {
	for {
		chunk, err := g.in.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > mcpMaxLine {
				tooLong, line = true, line[:4096]
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}

// refuse says why a message is not passed on ("" to pass it).
func (g *mcpGuard) refuse(line []byte, tooLong bool) string {
	if tooLong {
		return fmt.Sprintf("request refused: a message longer than %d bytes", mcpMaxLine)
	}
	deep := false
	jsonscan.Walk(line, 0, func(ev jsonscan.Event, _, _, depth int) bool {
		deep = ev == jsonscan.Open && depth > mcpMaxDepth
		return !deep
	})
	if deep {
		return fmt.Sprintf("request refused: it nests deeper than %d levels (a plan nests at most 32)", mcpMaxDepth)
	}
	return ""
}

// answer writes a JSON-RPC error for a refused message, with its id when one can be found at its
// top level (a message without one is a notification, and gets no answer).
func (g *mcpGuard) answer(line []byte, why string) {
	id := topLevelID(line)
	if id == nil {
		return
	}
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": -32600, "message": why}})
	g.out.Write(append(msg, '\n'))
}

// topLevelID finds the "id" member of the message's top-level object without decoding the rest:
// a number or string, as JSON; nil when there is none to be found.
func topLevelID(line []byte) (id json.RawMessage) {
	jsonscan.Walk(line, 0, func(ev jsonscan.Event, i, start, depth int) bool {
		if ev != jsonscan.StringEnd || depth != 1 || string(line[start:i+1]) != `"id"` {
			return true
		}
		rest := bytes.TrimLeft(line[i+1:], " \t")
		if len(rest) == 0 || rest[0] != ':' {
			return true // a string "id" that is a value, not a member's name
		}
		d := json.NewDecoder(bytes.NewReader(bytes.TrimLeft(rest[1:], " \t")))
		var v json.RawMessage
		if d.Decode(&v) == nil && len(v) > 0 && (v[0] == '"' || v[0] == '-' || v[0] >= '0' && v[0] <= '9') {
			id = v
		}
		return false
	})
	return id
}

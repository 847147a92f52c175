package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/store"
)

// exampleWorkspace is a fresh workspace holding the example model.
func exampleWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	seed, _ := archixml.Example().Save()
	if _, _, err := store.Init(dir, store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed,
		Author: store.Signature{Name: "t", Email: "t@t"}}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// mcpSession runs `archiplan mcp --repo dir` in this process, as the command line runs it, and
// connects the SDK's own client to it over its standard input and output.
func mcpSession(t testing.TB, dir string) *mcp.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	root := newRoot(outW, &stderr)
	root.SetIn(inR)
	root.SetArgs([]string{"mcp", "--repo", dir})
	done := make(chan error, 1)
	go func() { done <- root.Execute(); outW.Close() }()
	client := mcp.NewClient(&mcp.Implementation{Name: "archiplan-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v (%s)", err, stderr.String())
	}
	t.Cleanup(func() {
		cs.Close()
		inW.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("archiplan mcp: %v (%s)", err, stderr.String())
			}
		case <-time.After(5 * time.Minute): // far beyond need: only a server that never ends
			t.Error("archiplan mcp did not end when its input closed")
		}
	})
	return cs
}

// call calls a tool and returns its text and whether it is an error.
func call(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return err.Error(), true
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// snapshot is every file of a workspace but .git, with its bytes.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() && info.Name() == ".git" {
			return filepath.SkipDir
		}
		if !info.IsDir() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			files[rel] = string(data)
		}
		return nil
	})
	return files
}

func head(t *testing.T, dir string) string {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// An agent's loop through MCP: find the element, draft a plan with a hallucinated id, read the
// report, fix it, submit it; the plan and its context land in the inbox, the model is untouched.
func TestMCP_ValidateFixSubmit(t *testing.T) {
	dir := exampleWorkspace(t)
	before, headBefore := snapshot(t, dir), head(t, dir)
	cs := mcpSession(t, dir)

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "allowed check context folders object_history search show stats submit_plan validate_plan views" {
		t.Fatalf("tools: %v", names)
	}

	text, isErr := call(t, cs, "search", map[string]any{"name": "customer", "type": "Business Actor"})
	var found struct {
		Total   int
		Results []struct{ ID, Name string }
	}
	if json.Unmarshal([]byte(text), &found); isErr || found.Total != 1 || found.Results[0].Name != "Customer" {
		t.Fatalf("search: %s", text)
	}
	customer := found.Results[0].ID

	text, isErr = call(t, cs, "show", map[string]any{"id": customer})
	if isErr || !strings.Contains(text, `"direction": "in"`) || !strings.Contains(text, `"views"`) || !strings.Contains(text, "Bike Rental") {
		t.Fatalf("show: %s", text)
	}
	text, isErr = call(t, cs, "views", map[string]any{})
	var views struct{ Views []struct{ ID string } }
	if json.Unmarshal([]byte(text), &views); isErr || len(views.Views) != 1 {
		t.Fatalf("views: %s", text)
	}
	text, isErr = call(t, cs, "show", map[string]any{"id": views.Views[0].ID})
	if isErr || !strings.Contains(text, customer) || !strings.Contains(text, `"connections"`) {
		t.Fatalf("show view: %s", text)
	}
	text, isErr = call(t, cs, "context", map[string]any{"intent": "Rename the customer", "max_elements": 3})
	if isErr || !strings.Contains(text, `"focus": ["`+customer+`"]`) {
		t.Fatalf("context: %s", text)
	}

	draft := map[string]any{"schema_version": "2.0", "status": "ready", "summary": "Rename the customer to Client",
		"actions": []any{map[string]any{"op": "rename_element", "element_id": "customer-1", "new_name": "Client"}}}
	text, isErr = call(t, cs, "validate_plan", map[string]any{"plan": draft})
	if isErr || !strings.Contains(text, `"verdict": "invalid"`) || !strings.Contains(text, "REF_NOT_FOUND") || !strings.Contains(text, "/actions/0/element_id") {
		t.Fatalf("the hallucinated id is not reported: %s", text)
	}
	draft["actions"] = []any{map[string]any{"op": "rename_element", "element_id": customer, "new_name": "Client"}}
	text, isErr = call(t, cs, "validate_plan", map[string]any{"plan": draft, "scope": "ids:" + customer})
	if isErr || !strings.Contains(text, `"verdict": "valid"`) {
		t.Fatalf("the fixed plan: %s", text)
	}
	if after := snapshot(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatal("validate_plan wrote something")
	}

	text, isErr = call(t, cs, "submit_plan", map[string]any{"name": "rename-customer", "plan": draft, "scope": "ids:" + customer})
	if isErr || !strings.Contains(text, "Submitted plans/rename-customer.json (valid)") || !strings.Contains(text, "Client") {
		t.Fatalf("submit: %s", text)
	}
	plan, err := os.ReadFile(filepath.Join(dir, "plans", "rename-customer.json"))
	if err != nil || !strings.Contains(string(plan), customer) {
		t.Fatalf("%s %v", plan, err)
	}
	ctx, err := os.ReadFile(filepath.Join(dir, "plans", "rename-customer.context.json"))
	if err != nil || !strings.Contains(string(ctx), `"scope": "ids:`+customer+`"`) {
		t.Fatalf("%s %v", ctx, err)
	}
	after := snapshot(t, dir)
	delete(after, filepath.Join("plans", "rename-customer.json"))
	delete(after, filepath.Join("plans", "rename-customer.context.json"))
	if fmt.Sprint(after) != fmt.Sprint(before) || head(t, dir) != headBefore {
		t.Fatal("submit_plan wrote more than the plan and its context, or moved HEAD")
	}
}

// No tool, and no argument of one, can approve, apply, or write outside the inbox.
func TestMCP_SubmitCannotApprove(t *testing.T) {
	dir := exampleWorkspace(t)
	outside := filepath.Join(t.TempDir(), "outside.json")
	os.WriteFile(outside, []byte("outside"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "plans", "evil.json"))
	os.WriteFile(filepath.Join(dir, "plans", "taken.approved"), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(dir, "plans", "taken2.json.approved"), []byte("{}"), 0o644)
	cs := mcpSession(t, dir)
	plan := map[string]any{"schema_version": "2.0", "status": "ready", "summary": "s", "actions": []any{}}

	for _, name := range []string{"x.approved", "X.APPROVED", "x.json", "x.json.approved", "x.rejected", "x.context",
		"x.preview", "x.report", "../x", "../../plans/x", "a/b", "/tmp/x", ".hidden", "", "-x", "a b", "x.tmp-1",
		"x.tmp", strings.Repeat("a", 101), "x\x00y", "x\ny", "ä"} {
		text, isErr := call(t, cs, "submit_plan", map[string]any{"name": name, "plan": plan})
		if !isErr || !strings.Contains(text, "BAD_PLAN_NAME") {
			t.Errorf("%q: %s", name, text)
		}
	}
	for _, name := range []string{"evil", "taken", "taken2"} {
		text, isErr := call(t, cs, "submit_plan", map[string]any{"name": name, "plan": plan})
		if !isErr || !strings.Contains(text, "PLAN_EXISTS") {
			t.Errorf("%q: %s", name, text)
		}
	}
	if data, _ := os.ReadFile(outside); string(data) != "outside" {
		t.Fatal("a symlink in the inbox was followed")
	}
	// arguments that are not the tool's are refused, not obeyed
	for _, args := range []map[string]any{
		{"name": "sneaky", "plan": plan, "approve": true},
		{"name": "sneaky", "plan": plan, "path": "../model.archimate"},
	} {
		if text, isErr := call(t, cs, "submit_plan", args); !isErr {
			t.Errorf("%v accepted: %s", args, text)
		}
	}
	// one plan of a name; the second submission does not replace it
	if text, isErr := call(t, cs, "submit_plan", map[string]any{"name": "once", "plan": plan}); isErr {
		t.Fatal(text)
	}
	other := map[string]any{"schema_version": "2.0", "status": "refusal", "summary": "other", "actions": []any{}}
	if text, isErr := call(t, cs, "submit_plan", map[string]any{"name": "once", "plan": other}); !isErr || !strings.Contains(text, "PLAN_EXISTS") {
		t.Fatalf("a second submission: %s", text)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "plans", "once.json")); strings.Contains(string(data), "other") {
		t.Fatal("a plan was overwritten")
	}
	// what the inbox holds now: the plans named, the files the test put there, nothing else
	entries, _ := os.ReadDir(filepath.Join(dir, "plans"))
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != ".gitignore evil.json once.json taken.approved taken2.json.approved" {
		t.Fatalf("the inbox holds %v", got)
	}
	// every tool's arguments: none can name a file, a state or an apply
	tools, _ := cs.ListTools(context.Background(), nil)
	for _, tl := range tools.Tools {
		schema, _ := json.Marshal(tl.InputSchema)
		for _, word := range []string{"approve", "apply", "path", "file", "commit"} {
			var s struct{ Properties map[string]any }
			json.Unmarshal(schema, &s)
			for p := range s.Properties {
				if strings.Contains(p, word) {
					t.Errorf("%s takes %q", tl.Name, p)
				}
			}
		}
	}
}

// inspector is the MCP Inspector's CLI (npm @modelcontextprotocol/inspector-cli, pinned in
// .ci/run): $ARCHIPLAN_MCP_INSPECTOR, else mcp-inspector-cli on PATH; the test skips without it.
func inspector(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("ARCHIPLAN_MCP_INSPECTOR")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("mcp-inspector-cli"); err != nil {
			t.Skip("no MCP Inspector CLI: set ARCHIPLAN_MCP_INSPECTOR (npm install @modelcontextprotocol/inspector-cli)")
		}
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node")
	}
	return bin
}

// A real MCP client, the MCP Inspector's CLI, lists the tools and calls each one against the
// archiplan binary.
func TestMCP_InspectorCLI(t *testing.T) {
	bin := inspector(t)
	archiplan := filepath.Join(t.TempDir(), "archiplan")
	if out, err := exec.Command("go", "build", "-o", archiplan, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := exampleWorkspace(t)
	// inspector-cli 1.0.3 finds its own package.json relative to the working folder: run it from
	// its build folder
	real, _ := filepath.EvalSymlinks(bin)
	cwd := filepath.Dir(real)
	inspect := func(args ...string) map[string]any {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--cli", archiplan, "mcp", "--repo", dir}, args...)...)
		cmd.Dir = cwd
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s\n%s", args, err, out, stderr.String())
		}
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("inspector %v: %v\n%s", args, err, out)
		}
		return v
	}
	text := func(v map[string]any) string {
		content, _ := v["content"].([]any)
		if len(content) == 0 || v["isError"] == true {
			t.Fatalf("tool error: %v", v)
		}
		return content[0].(map[string]any)["text"].(string)
	}
	list := inspect("--method", "tools/list")
	tools, _ := list["tools"].([]any)
	if len(tools) != 11 {
		t.Fatalf("tools: %v", list)
	}
	m := archixml.Example()
	customer, view := "", m.Views()[0].ID()
	for _, e := range m.Elements() {
		if e.Name() == "Customer" {
			customer = e.ID()
		}
	}
	if s := text(inspect("--method", "tools/call", "--tool-name", "search", "--tool-arg", "name=customer")); !strings.Contains(s, customer) {
		t.Fatalf("search: %s", s)
	}
	if s := text(inspect("--method", "tools/call", "--tool-name", "show", "--tool-arg", "id="+customer)); !strings.Contains(s, "Bike Rental") {
		t.Fatalf("show: %s", s)
	}
	if s := text(inspect("--method", "tools/call", "--tool-name", "views")); !strings.Contains(s, view) {
		t.Fatalf("views: %s", s)
	}
	if s := text(inspect("--method", "tools/call", "--tool-name", "context", "--tool-arg", "intent=Rename the customer")); !strings.Contains(s, `"focus": ["`+customer) {
		t.Fatalf("context: %.300s", s)
	}
	plan := `plan={"schema_version":"2.0","status":"ready","summary":"Rename the customer","actions":[{"op":"rename_element","element_id":"` + customer + `","new_name":"Client"}]}`
	if s := text(inspect("--method", "tools/call", "--tool-name", "validate_plan", "--tool-arg", plan)); !strings.Contains(s, `"verdict": "valid"`) {
		t.Fatalf("validate_plan: %s", s)
	}
	if s := text(inspect("--method", "tools/call", "--tool-name", "submit_plan", "--tool-arg", "name=inspected", "--tool-arg", plan)); !strings.Contains(s, "Submitted plans/inspected.json (valid)") {
		t.Fatalf("submit_plan: %s", s)
	}
	if _, err := os.Stat(filepath.Join(dir, "plans", "inspected.json")); err != nil {
		t.Fatal(err)
	}
}

// issue 18: a hostile plan over MCP is answered with an error, and the server keeps serving: a
// plan nested 10,000 deep (it ended archiplan mcp), a 1 MiB [0,0,...] actions array; and a model
// Archi cannot open is MODEL_INVALID here too, as in the daemon. The messages are written as a
// hostile client writes them: raw lines (the SDK's client refuses to marshal the deep one).
func TestMCP_HostilePlans(t *testing.T) {
	dir := exampleWorkspace(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	root := newRoot(outW, &stderr)
	root.SetIn(inR)
	root.SetArgs([]string{"mcp", "--repo", dir})
	done := make(chan error, 1)
	go func() { done <- root.Execute(); outW.Close() }()
	answers := make(chan map[string]any, 8)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				answers <- m
			}
		}
		close(answers)
	}()
	send := func(line string) {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("archiplan mcp stopped reading: %v (%s)", err, stderr.String())
		}
	}
	answer := func(id float64) map[string]any {
		t.Helper()
		for m := range answers {
			if m["id"] == id {
				return m
			}
		}
		t.Fatalf("no answer to %v: archiplan mcp ended (%s)", id, stderr.String())
		return nil
	}
	call := func(id int, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"validate_plan","arguments":{"plan":%s}}}`, id, args)
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	answer(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(call(2, `{"schema_version":"2.0","x":`+strings.Repeat("[", 10000)+strings.Repeat("]", 10000)+`}`))
	if m := answer(2); m["error"] == nil || !strings.Contains(fmt.Sprint(m["error"]), "nests deeper") {
		t.Fatalf("a plan nested 10,000 deep: %v", m)
	}
	send(call(3, `{"schema_version":"2.0","status":"ready","summary":"s","actions":[0`+strings.Repeat(",0", 524000)+`]}`))
	// (indented again by validate_plan, it is over the size cap; either limit refuses it)
	if m := answer(3); !strings.Contains(fmt.Sprint(m["result"]), "EXTRACT_TOO_MANY_ACTIONS") && !strings.Contains(fmt.Sprint(m["result"]), "EXTRACT_TOO_LARGE") {
		t.Fatalf("a 1 MiB actions array: %v", m)
	}

	// two objects of the committed model share an id
	data, err := os.ReadFile(filepath.Join(dir, "model.archimate"))
	if err != nil {
		t.Fatal(err)
	}
	dup := strings.ReplaceAll(string(data), "id-37914ef915915bd2606e2c7216356e27", "id-59a96df4cd3e24d3da41e81a8c7d1335")
	if err := os.WriteFile(filepath.Join(dir, "model.archimate"), []byte(dup), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", dir, "commit", "-qam", "duplicate ids").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	send(call(4, `{"schema_version":"2.0","status":"ready","summary":"Rename the customer","actions":[{"op":"rename_element","element_id":"id-59a96df4cd3e24d3da41e81a8c7d1335","new_name":"Client"}]}`))
	if m := answer(4); !strings.Contains(fmt.Sprint(m["result"]), "MODEL_INVALID") {
		t.Fatalf("against a model with duplicate ids: %.400v", m)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatalf("archiplan mcp: %v (%s)", err, stderr.String())
	}
}

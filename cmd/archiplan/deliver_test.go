package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/internal/giteatest"
	"github.com/archiplan/archiplan/store"
)

// TestGiteaDeliver_AskAndSubmitPlan: with deliver: pull-request, a plan ask lands (a command
// planner's answer) and a plan MCP's submit_plan lands each become a pull request on a real Gitea,
// as the daemon's deliver makes them, with no daemon running: the description is the preview,
// the plan waits in the inbox, and nothing is applied (main on the forge and here unmoved).
func TestGiteaDeliver_AskAndSubmitPlan(t *testing.T) {
	g := giteatest.Shared(t) // skips where there is no Gitea
	repo := g.NewRepo(t, "testgiteadeliver")
	dir := filepath.Join(t.TempDir(), "ws")
	ledgertest.Git(t, filepath.Dir(dir), "clone", "-q", repo.CloneURL(g.Bot), dir)
	ledgertest.Git(t, dir, "remote", "set-url", "origin", g.URL+"/"+repo.FullName()+".git") // no token in the URL
	t.Setenv("ARCHIPLAN_GIT_USER", g.Bot.Name)
	t.Setenv("ARCHIPLAN_GIT_TOKEN", g.Bot.Token)
	t.Setenv("GITEA_TOKEN", g.Bot.Token)
	seed, _ := archixml.Example().Save()
	ws, _, err := store.Init(dir, store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed, Author: ledgertest.Signature})
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Push(context.Background(), "origin"); err != nil {
		t.Fatal(err)
	}
	customer := ledgertest.Elements(t, ws)[0]
	// the planner: a command that answers with one plan, its summary a planner's markup
	tools := t.TempDir()
	answer := `{"schema_version":"2.0","status":"ready","summary":"rename <b>it</b>","actions":[{"op":"rename_element","element_id":"` + customer + `","new_name":"Client"}]}`
	if err := os.WriteFile(filepath.Join(tools, "answer.json"), []byte(answer), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tools, "planner.sh"), []byte("cat >/dev/null\ncat "+filepath.Join(tools, "answer.json")+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf("remote: origin\nforge:\n  kind: gitea\n  url: %s\n  repo: %s\n  base: main\ndeliver: pull-request\nplanner:\n  kind: command\n  command: [sh, %s]\n  timeout: 60s\n  max_attempts: 1\n",
		g.URL, repo.FullName(), filepath.Join(tools, "planner.sh"))
	if err := os.WriteFile(filepath.Join(dir, ".archiplan.yaml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	main := head(t, dir)
	var sha string // the head of the pull request read last
	pr := func(n int) (body, headRef string) {
		t.Helper()
		var p struct {
			Body string `json:"body"`
			Head struct {
				Ref string `json:"ref"`
				SHA string `json:"sha"`
			} `json:"head"`
		}
		if err := g.API(g.Reviewer, "GET", fmt.Sprintf("/repos/%s/pulls/%d", repo.FullName(), n), nil, &p); err != nil {
			t.Fatal(err)
		}
		sha = p.Head.SHA
		return p.Body, p.Head.Ref
	}
	approve := func(n int) {
		t.Helper()
		if err := g.API(g.Reviewer, "POST", fmt.Sprintf("/repos/%s/pulls/%d/reviews", repo.FullName(), n),
			map[string]any{"event": "APPROVED", "body": "read the preview", "commit_id": sha}, nil); err != nil {
			t.Fatal(err)
		}
	}
	archiplan := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := run(append(args, "--repo", dir), &out, &errOut); code != 0 {
			t.Fatalf("archiplan %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out.String(), errOut.String())
		}
		t.Logf("$ archiplan %s\n%s", strings.Join(args, " "), out.String())
		return out.String()
	}
	unapplied := func(name string) {
		t.Helper()
		if _, err := os.Stat(filepath.Join(dir, "plans", name+".json")); err != nil {
			t.Errorf("%s does not wait in the inbox: %v", name, err)
		}
		var b struct {
			Commit struct {
				ID string `json:"id"`
			} `json:"commit"`
		}
		if err := g.API(g.Owner, "GET", "/repos/"+repo.FullName()+"/branches/main", nil, &b); err != nil {
			t.Fatal(err)
		}
		if b.Commit.ID != main || head(t, dir) != main {
			t.Errorf("something was applied: main is %s on the forge, %s here, was %s", b.Commit.ID, head(t, dir), main)
		}
	}

	// ask
	out := archiplan("ask", "Rename the customer to Client", "--name", "asked")
	if !strings.Contains(out, "landed plans/asked.json: valid") || !strings.Contains(out, "pull request #1 "+g.URL) {
		t.Fatalf("ask did not say its pull request:\n%s", out)
	}
	body, ref := pr(1)
	if ref != "archiplan/plan/asked" || !strings.Contains(body, "**archiplan plan `asked`**") || !strings.Contains(body, `"Client"`) || strings.Contains(body, "<b>") {
		t.Errorf("pull request #1 (%s):\n%s", ref, body)
	}
	unapplied("asked")

	// MCP's submit_plan
	cs := mcpSession(t, dir)
	var plan map[string]any
	if err := json.Unmarshal([]byte(strings.Replace(answer, `"Client"`, `"Patron"`, 1)), &plan); err != nil {
		t.Fatal(err)
	}
	text, isErr := call(t, cs, "submit_plan", map[string]any{"name": "via-mcp", "plan": plan})
	if isErr || !strings.Contains(text, "Submitted plans/via-mcp.json (valid)") || !strings.Contains(text, "Proposed for review: pull request #2 "+g.URL) {
		t.Fatalf("submit_plan: %s", text)
	}
	body, ref = pr(2)
	if ref != "archiplan/plan/via-mcp" || !strings.Contains(body, "**archiplan plan `via-mcp`**") || !strings.Contains(body, `"Patron"`) || strings.Contains(body, "<b>") {
		t.Errorf("pull request #2 (%s):\n%s", ref, body)
	}
	unapplied("via-mcp")

	// the asked plan approved and applied; its revert, asked for as archiplan revert, is a pull
	// request too (deliver: pull-request), applied when approved: the model is the seed again
	pr(1)
	approve(1)
	out = archiplan("pr", "--apply", "asked")
	applied := regexp.MustCompile(`applied as ([0-9a-f]+), approved by ` + g.Reviewer.Name + `; merged`).FindStringSubmatch(out)
	if applied == nil {
		t.Fatalf("not applied: %s", out)
	}
	id := ledgertest.Git(t, dir, "log", "-1", "--format=%(trailers:key=Plan-Id,valueonly)", applied[1])
	out = archiplan("revert", id)
	if !strings.Contains(out, "pull request #3 "+g.URL) || !strings.Contains(out, "revert of "+id) {
		t.Fatalf("revert did not propose a pull request: %s", out)
	}
	if ledgertest.Git(t, dir, "show", "HEAD:model.archimate") == string(seed) {
		t.Fatal("revert reverted without an approval")
	}
	body, ref = pr(3)
	if ref != "archiplan/revert/"+id || !strings.Contains(body, "revert of plan `"+id+"`") {
		t.Errorf("pull request #3 (%s):\n%s", ref, body)
	}
	approve(3)
	if out := archiplan("pr", "--apply", "--revert", id); !strings.Contains(out, "revert of "+id+" (#3): applied as") {
		t.Fatalf("not reverted: %s", out)
	}
	ledgertest.Git(t, dir, "fetch", "-q", "origin")
	if ledgertest.Git(t, dir, "show", "origin/main:model.archimate") != strings.TrimRight(string(seed), "\n") {
		t.Error("the model on the forge's main is not the one before the plan")
	}
	t.Logf("$ git log -1\n%s", ledgertest.Git(t, dir, "log", "-1", "origin/main"))
}

package pullreq_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/forge"
	_ "github.com/archiplan/archiplan/forge/gitea"
	"github.com/archiplan/archiplan/internal/giteatest"
	"github.com/archiplan/archiplan/pullreq"
	"github.com/archiplan/archiplan/store"
)

func TestMain(m *testing.M) { giteatest.Main(m) }

// giteaWalk is a workspace whose team remote is a repository on a real Gitea (main protected by
// one approval), archiplan acting as the bot, the reviewer the other person.
type giteaWalk struct {
	g    *giteatest.Gitea
	repo giteatest.Repo
	ws   *store.Workspace
	led  *ledger.Ledger
	fg   forge.Forge
	flow *pullreq.Flow
	ids  []string
}

func newGiteaWalk(t *testing.T) *giteaWalk {
	g := giteatest.Shared(t) // skips where there is no Gitea
	repo := g.NewRepo(t, strings.ToLower(strings.ReplaceAll(t.Name(), "_", "-")))
	dir := filepath.Join(t.TempDir(), "ws")
	// the clone's URL carries no token: archiplan's pushes take it from the environment, in a header
	web := g.URL + "/" + repo.FullName() + ".git"
	ledgertest.Git(t, filepath.Dir(dir), "clone", "-q", repo.CloneURL(g.Bot), dir)
	ledgertest.Git(t, dir, "remote", "set-url", "origin", web)
	t.Setenv("ARCHIPLAN_GIT_USER", g.Bot.Name)
	t.Setenv("ARCHIPLAN_GIT_TOKEN", g.Bot.Token)
	seed, _ := archixml.Example().Save()
	ws, _, err := store.Init(dir, store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed, Author: ledgertest.Signature})
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Push(context.Background(), "origin"); err != nil {
		t.Fatal(err)
	}
	led := ledger.New(ledger.Config{Workspace: ws, Inbox: ledgertest.Inbox(ws), ApprovedBy: ledgertest.Signature,
		Remote: ledger.Remote{Name: "origin", Pull: true, Push: true}})
	fg, err := forge.Open(forge.Config{Kind: "gitea", URL: g.URL, Repo: repo.FullName(), Token: g.Bot.Token})
	if err != nil {
		t.Fatal(err)
	}
	return &giteaWalk{g: g, repo: repo, ws: ws, led: led, fg: fg, ids: ledgertest.Elements(t, ws),
		flow: &pullreq.Flow{Ledger: led, Forge: fg, Remote: "origin", Base: "main"}}
}

func (w *giteaWalk) open(t *testing.T, name string, raw []byte) *pullreq.State {
	t.Helper()
	if err := w.led.Inbox().Submit(name, raw); err != nil {
		t.Fatal(err)
	}
	st, err := w.flow.Open(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// approve is the reviewer's approval of a pull request's head, through Gitea's API.
func (w *giteaWalk) approve(t *testing.T, number int, head string) {
	t.Helper()
	if err := w.g.API(w.g.Reviewer, "POST", fmt.Sprintf("/repos/%s/pulls/%d/reviews", w.repo.FullName(), number),
		map[string]any{"event": "APPROVED", "body": "read the preview", "commit_id": head}, nil); err != nil {
		t.Fatal(err)
	}
}

func (w *giteaWalk) apply(t *testing.T, name string) *pullreq.Outcome {
	t.Helper()
	o, err := w.flow.Apply(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func (w *giteaWalk) branchHead(t *testing.T, branch string) string {
	t.Helper()
	var b struct {
		Commit struct {
			ID string `json:"id"`
		} `json:"commit"`
	}
	if err := w.g.API(w.g.Owner, "GET", "/repos/"+w.repo.FullName()+"/branches/"+branch, nil, &b); err != nil {
		t.Fatal(err)
	}
	return b.Commit.ID
}

// TestGiteaWalk walks plans as pull requests on a real Gitea: a planner's plan opened as a pull
// request, archiplan ci's preview comment read back, the other person's approval, the apply on
// merge (the commit, its trailers, the model), a push after an approval that voids it, and a
// stale base. It logs the time from the approval to the apply commit on main.
func TestGiteaWalk(t *testing.T) {
	w := newGiteaWalk(t)
	ctx := context.Background()
	g := w.g

	// 1. a planner's plan, opened as a pull request
	st := w.open(t, "walk-1", ledgertest.Rename(w.ids[0], "Client <i>"))
	pr, err := w.fg.PR(ctx, st.Number)
	if err != nil {
		t.Fatal(err)
	}
	if pr.HeadSHA != st.Head || pr.Base != "main" || !strings.Contains(pr.Body, "/raw/commit/"+st.Head+"/.archiplan/proposed/walk-1/") ||
		strings.Contains(pr.Body, "<i>") {
		t.Fatalf("pull request as Gitea has it: %+v", pr)
	}
	t.Logf("pull request %s", pr.URL)

	// 2. archiplan ci on the branch: one comment, read back as the reviewer sees it
	dir := filepath.Join(t.TempDir(), "ci")
	ledgertest.Git(t, filepath.Dir(dir), "clone", "-q", "-b", st.Branch, w.repo.CloneURL(g.Bot), dir)
	cws, err := store.Open(dir, "model.archimate")
	if err != nil {
		t.Fatal(err)
	}
	ci := &pullreq.CI{Workspace: cws, Forge: w.fg, Base: st.Base, Number: st.Number}
	for i := 0; i < 2; i++ { // a second run (another push) edits the comment in place
		if res, err := ci.Run(ctx); err != nil || !res.Valid() {
			t.Fatalf("ci: %v %+v", err, res)
		}
	}
	var comments []struct {
		Body string `json:"body"`
		User struct {
			Login string `json:"login"`
		} `json:"user"`
	}
	if err := g.API(g.Reviewer, "GET", fmt.Sprintf("/repos/%s/issues/%d/comments", w.repo.FullName(), st.Number), nil, &comments); err != nil {
		t.Fatal(err)
	}
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "**archiplan**: valid") || comments[0].User.Login != g.Bot.Name {
		t.Fatalf("comments: %+v", comments)
	}
	var statuses []struct {
		Context string `json:"context"`
		Status  string `json:"status"`
	}
	if err := g.API(g.Reviewer, "GET", fmt.Sprintf("/repos/%s/commits/%s/statuses", w.repo.FullName(), st.Head), nil, &statuses); err != nil {
		t.Fatal(err)
	}
	if len(statuses) == 0 || statuses[0].Context != pullreq.StatusContext || statuses[0].Status != "success" {
		t.Errorf("statuses: %+v", statuses)
	}

	// 3. not approved yet: nothing applies
	if o := w.apply(t, "walk-1"); o.State != pullreq.Waiting {
		t.Fatalf("%+v", o)
	}
	// 4. the other person approves; the apply on merge
	w.approve(t, st.Number, st.Head)
	approved := time.Now()
	o := w.apply(t, "walk-1")
	took := time.Since(approved)
	if o.State != pullreq.Applied || !o.Merged {
		t.Fatalf("not applied and merged: %+v", o)
	}
	main := w.branchHead(t, "main")
	ledgertest.Git(t, w.ws.Root, "fetch", "-q", "origin")
	if out := ledgertest.Git(t, w.ws.Root, "merge-base", "--is-ancestor", o.Commit, main); out != "" {
		t.Fatal(out)
	}
	msg := ledgertest.Git(t, w.ws.Root, "log", "-1", "--format=%B", o.Commit)
	if !hasLine(msg, "Approved-By: "+g.Reviewer.Name+" <"+g.Reviewer.Name+"@127.0.0.1>") {
		t.Errorf("trailers:\n%s", msg)
	}
	model := ledgertest.Git(t, w.ws.Root, "show", main+":model.archimate")
	if !strings.Contains(model, `name="Client &lt;i>"`) && !strings.Contains(model, `name="Client &lt;i&gt;"`) {
		t.Errorf("the model on main does not hold the rename")
	}
	if files := ledgertest.Git(t, w.ws.Root, "ls-tree", "-r", "--name-only", main); strings.Contains(files, ".archiplan/proposed") {
		t.Errorf("the proposal reached main:\n%s", files)
	}
	merged, err := w.fg.PR(ctx, st.Number)
	if err != nil || !merged.Merged {
		t.Fatalf("pull request not merged: %+v %v", merged, err)
	}
	t.Logf("approval to the apply commit on main: %s (apply %s, main %s)", took.Round(time.Millisecond), store.Short(o.Commit), store.Short(main))

	// 5. a push after the approval voids it
	st2 := w.open(t, "walk-2", ledgertest.Rename(w.ids[1], "Second"))
	w.approve(t, st2.Number, st2.Head)
	w.repo.PutFile(t, g.Owner, st2.Branch, "", ".archiplan/proposed/walk-2/walk-2.json", string(ledgertest.Rename(w.ids[1], "Other")))
	if o := w.apply(t, "walk-2"); o.State != pullreq.Stale || !strings.Contains(o.Reason, "branch moved") {
		t.Fatalf("applied after a push: %+v", o)
	}
	if pr, _ := w.fg.PR(ctx, st2.Number); !strings.Contains(pr.Body, "**Stale**") || pr.Merged {
		t.Errorf("not marked stale on Gitea: %+v", pr)
	}

	// 6. a stale base: main moves after the approval
	st3 := w.open(t, "walk-3", ledgertest.Rename(w.ids[2], "Third"))
	w.approve(t, st3.Number, st3.Head)
	w.repo.PutFile(t, g.Owner, "main", "", "NOTES.md", "a colleague's commit\n")
	if o := w.apply(t, "walk-3"); o.State != pullreq.Stale || !strings.Contains(o.Reason, "base moved") {
		t.Fatalf("applied on a moved base: %+v", o)
	}
	// previewed again on the new base, approved again: applied
	again, err := w.flow.Open(ctx, "walk-3")
	if err != nil {
		t.Fatal(err)
	}
	if pr, _ := w.fg.PR(ctx, st3.Number); !strings.Contains(pr.Body, "the base moved from") {
		t.Errorf("the re-preview does not say the base moved:\n%s", pr.Body)
	}
	w.approve(t, again.Number, again.Head)
	if o := w.apply(t, "walk-3"); o.State != pullreq.Applied || !o.Merged {
		t.Fatalf("%+v", o)
	}
}

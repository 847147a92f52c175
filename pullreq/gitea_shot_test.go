package pullreq_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/internal/giteatest"
)

// TestGiteaWalk_Docs is the walk of docs/forges.md as a person runs it, on a real Gitea: the
// built archiplan's `pr NAME`, `ci` and `pr --apply NAME` in a shell's place, their stdout logged
// (-v) for the page, and the pull request as the reviewer sees it on the forge, in Chromium, once
// approved (DIR/forge-pr.png: the description, the preview comment, the approval;
// DIR/forge-pr-comment.png: archiplan's comment alone). It runs only when ARCHIPLAN_SCREENSHOTS=DIR
// is set (and skips without a Gitea, or a Chromium, or Gitea's frontend build, without which its
// pages are bare HTML whose scripts a browser waits on forever).
func TestGiteaWalk_Docs(t *testing.T) {
	if os.Getenv("ARCHIPLAN_SCREENSHOTS") == "" {
		t.Skip("ARCHIPLAN_SCREENSHOTS=DIR writes the forge's screenshot")
	}
	chromium := browserPath()
	if chromium == "" {
		t.Skip("no chromium binary found (apt-get install chromium)")
	}
	w := newGiteaWalk(t)
	g := w.g
	if !g.Frontend {
		t.Skipf("Gitea serves no frontend build (set %s, or let .ci/run build it)", giteatest.EnvPublic)
	}
	bin := filepath.Join(t.TempDir(), "archiplan")
	if b, err := exec.Command("go", "build", "-o", bin, "../cmd/archiplan").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	// the person's shell: the bot's token for the forge, the workspace set up as docs/forges.md says
	env := append(os.Environ(), "GITEA_TOKEN="+g.Bot.Token)
	run := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("archiplan %v: %v\n%s%s", args, err, stdout.String(), stderr.String())
		}
		t.Logf("$ archiplan %s\n%s", strings.Join(args, " "), stdout.String())
		return stdout.String()
	}
	conf := fmt.Sprintf("model: model.archimate\ninbox: plans\nremote: origin\npull: true\npush: true\nforge:\n  kind: gitea\n  url: %s\n  repo: %s\n", g.URL, w.repo.FullName())
	if err := os.WriteFile(filepath.Join(w.ws.Root, ".archiplan.yaml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	ledgertest.Git(t, w.ws.Root, "add", ".archiplan.yaml")
	ledgertest.Git(t, w.ws.Root, "commit", "-qm", "archiplan: the team's forge")
	if err := w.ws.Push(context.Background(), "origin"); err != nil {
		t.Fatal(err)
	}
	base := ledgertest.Git(t, w.ws.Root, "rev-parse", "HEAD")

	// a planner's plan in the inbox; the person opens its pull request
	if err := w.led.Inbox().Submit("rename-client", ledgertest.Rename(w.ids[0], "Client")); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`^pull request #(\d+) `).FindStringSubmatch(run(w.ws.Root, "pr", "rename-client"))
	if m == nil {
		t.Fatal("archiplan pr printed no pull request")
	}
	number := m[1]

	// the forge's CI: archiplan ci in a clone of the branch
	ci := filepath.Join(t.TempDir(), "ci")
	ledgertest.Git(t, filepath.Dir(ci), "clone", "-q", "-b", "archiplan/plan/rename-client", w.repo.CloneURL(g.Bot), ci)
	run(ci, "ci", "--base", base, "--pr", number)

	// the reviewer approves on the forge; the person applies
	var pr struct {
		Head struct {
			SHA string `json:"sha"`
		} `json:"head"`
		Number int `json:"number"`
	}
	if err := g.API(g.Reviewer, "GET", "/repos/"+w.repo.FullName()+"/pulls/"+number, nil, &pr); err != nil {
		t.Fatal(err)
	}
	w.approve(t, pr.Number, pr.Head.SHA)
	shootPullRequest(t, g, w.repo.FullName()+"/pulls/"+number, os.Getenv("ARCHIPLAN_SCREENSHOTS"))
	approved := time.Now()
	applied := run(w.ws.Root, "pr", "--apply", "rename-client")
	took := time.Since(approved)
	if !strings.Contains(applied, "applied as") {
		t.Fatalf("not applied: %s", applied)
	}
	commit := regexp.MustCompile(`applied as ([0-9a-f]+)`).FindStringSubmatch(applied)[1]
	msg := ledgertest.Git(t, w.ws.Root, "log", "-1", commit)
	if !strings.Contains(msg, "Approved-By: "+g.Reviewer.Name) {
		t.Errorf("the apply commit is not approved by the forge's account:\n%s", msg)
	}
	t.Logf("$ git log -1 %s\n%s", commit, msg)
	t.Logf("approval to the apply commit on main: %s", took.Round(time.Millisecond))
}

// browserPath is Debian's chromium (or another Chromium on PATH); "" when there is none.
func browserPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// shootPullRequest logs the reviewer in to the forge in a headless Chromium, opens the pull
// request's conversation (path: OWNER/REPO/pulls/N) and writes dir/forge-pr.png (the
// conversation: description, comments, reviews) and dir/forge-pr-comment.png (the last comment,
// archiplan's preview). It waits for states only: the login form, the page with its comments, every
// picture in the conversation loaded.
func shootPullRequest(t *testing.T, g *giteatest.Gitea, path, dir string) {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(browserPath()), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1100, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancelCtx := chromedp.NewContext(actx)
	defer cancelCtx()
	// the first run starts the browser and ties its life to its context: bctx, not a deadline's
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(bctx, 3*time.Minute)
	defer cancel()
	u := g.Reviewer
	if err := chromedp.Do(ctx,
		chromedp.Navigate(g.URL+"/user/login"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="user_name"]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name="user_name"]`), u.Name),
		chromedp.SendKeys(chromedp.CSS(`input[name="password"]`), u.Password),
		chromedp.Submit(chromedp.CSS(`input[name="password"]`)),
		// signed in: the navigation bar shows the account's avatar
		chromedp.WaitVisible(chromedp.CSS(`.navbar-right .navbar-avatar`)),
	); err != nil {
		t.Fatalf("log in to the forge as %s: %v\n%s", u.Name, err, g.Log())
	}
	const comments = `.issue-content-left .timeline-item.comment`
	// the forge's pictures load lazily, once scrolled to: a screenshot of the whole conversation
	// wants them all
	loaded := `(() => {
		document.querySelectorAll('img[loading="lazy"]').forEach((i) => { i.loading = 'eager'; });
		const cs = document.querySelectorAll(` + "`" + comments + "`" + `);
		// the forge's scripts ran: what it renders in the browser (the mermaid diagram) is drawn
		return document.readyState === 'complete' && cs.length >= 2 &&
			!document.querySelector('.issue-content-left .is-loading') &&
			[...document.querySelectorAll('.issue-content-left img')].every((i) => i.complete);
	})()`
	for _, step := range []struct {
		what string
		do   chromedp.Action[chromedp.Void]
	}{
		{"open", chromedp.Navigate(g.URL + "/" + path)},
		{"see its comments", chromedp.WaitVisible(chromedp.CSS(comments))},
		{"see it loaded", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := chromedp.Poll[bool](loaded, chromedp.WithPollingTimeout(0))(ctx, t)
			return err
		})},
	} {
		if err := chromedp.Do(ctx, step.do); err != nil {
			sctx, scancel := context.WithTimeout(bctx, 20*time.Second)
			state, serr := chromedp.Run(sctx, chromedp.Evaluate[string](`JSON.stringify({url: location.href, state: document.readyState,
				comments: document.querySelectorAll(`+"`"+comments+"`"+`).length,
				images: [...document.images].map((i) => [i.src, i.complete]), body: document.body.innerText.slice(0, 500)})`))
			scancel()
			t.Fatalf("%s %s: %v\n%s %v", step.what, path, err, state, serr)
		}
	}
	// the comment shown is archiplan's preview, rendered (its markdown's heading, its table)
	const comment = comments + `[id^="issuecomment-"]`
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(`+"`"+comment+"`"+`).innerText`))
	if err != nil || !strings.Contains(shown, "archiplan: valid at") || !strings.Contains(shown, "Verdict\tvalid") {
		t.Fatalf("the forge does not show archiplan's comment as rendered markdown (%v):\n%s", err, shown)
	}
	// each view's pictures under their labels, as the forge lays them out (issue 38)
	if order, err := chromedp.Run(ctx, chromedp.Evaluate[string](ledgertest.PicturesUnderLabels+`(document.querySelector(`+"`"+comment+"`"+`))`)); err != nil || order != "" {
		t.Errorf("the forge does not show each picture under its label (%v): %s", err, order)
	}
	for _, s := range []struct{ name, sel string }{
		{"forge-pr.png", `.issue-content-left`},
		// a comment's item has its id (the description's is issue-N, a review's body has none)
		{"forge-pr-comment.png", comment},
	} {
		png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(s.sel)))
		if err != nil {
			t.Fatalf("screenshot %s: %v", s.sel, err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, s.name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

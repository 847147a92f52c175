package gitea

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/archiplan/archiplan/forge"
	"github.com/archiplan/archiplan/forge/internal/rest"
	"github.com/archiplan/archiplan/internal/giteatest"
)

func TestMain(m *testing.M) { giteatest.Main(m) }

func client(t *testing.T, g *giteatest.Gitea, r giteatest.Repo, u giteatest.User) *Client {
	t.Helper()
	f, err := forge.Open(forge.Config{Kind: "gitea", URL: g.URL, Repo: r.FullName(), Token: u.Token})
	if err != nil {
		t.Fatal(err)
	}
	return f.(*Client)
}

// waitFor polls the forge until ok says its state is reached (Gitea checks mergeability and marks
// reviews stale in its queues, after the request that caused it has answered).
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("gitea never reached: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The client's walk on a real Gitea: the bot opens a pull request and edits it, finds it by its
// branch, reads a review given on an older head as stale after a push, keeps one comment per
// marker, sets a status read back, and merges only the head that was approved.
func TestGitea_Walk(t *testing.T) {
	g := giteatest.Shared(t)
	r := g.NewRepo(t, "walk")
	ctx := context.Background()
	bot := client(t, g, r, g.Bot)
	head1 := r.PutFile(t, g.Bot, "plan-a", "main", "plans/a.json", "{\"one\":1}\n")

	pr, err := bot.OpenPR(ctx, forge.NewPR{Title: "plan a", Body: "the preview", Head: "plan-a", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Number == 0 || pr.Head != "plan-a" || pr.Base != "main" || pr.HeadSHA != head1 || pr.Author != g.Bot.Name ||
		pr.State != "open" || !strings.HasPrefix(pr.URL, g.URL+"/") || len(pr.BaseSHA) != 40 {
		t.Fatalf("opened %+v", pr)
	}
	if _, err := bot.OpenPR(ctx, forge.NewPR{Title: "again", Head: "plan-a", Base: "main"}); !errors.Is(err, forge.ErrRefused) {
		t.Errorf("a second pull request of one branch: %v, want ErrRefused", err)
	}
	if err := bot.EditPR(ctx, pr.Number, "plan a (re-previewed)", "the new preview"); err != nil {
		t.Fatal(err)
	}
	got, err := bot.PR(ctx, pr.Number)
	if err != nil || got.Title != "plan a (re-previewed)" || got.Body != "the new preview" {
		t.Fatalf("after edit: %+v, %v", got, err)
	}
	found, ok, err := bot.FindPR(ctx, "plan-a")
	if err != nil || !ok || found.Number != pr.Number {
		t.Fatalf("FindPR(plan-a) = %+v %v %v", found, ok, err)
	}
	if _, ok, err := bot.FindPR(ctx, "plan-none"); ok || err != nil {
		t.Fatalf("FindPR(plan-none) = %v %v", ok, err)
	}

	// the other person approves head1; a push makes head2, and Gitea marks the approval stale
	review := func(event, commit string) {
		t.Helper()
		if err := g.API(g.Reviewer, "POST", "/repos/"+r.FullName()+"/pulls/"+itoa(pr.Number)+"/reviews",
			map[string]any{"event": event, "body": "looked", "commit_id": commit}, nil); err != nil {
			t.Fatal(err)
		}
	}
	review("APPROVED", head1)
	head2 := r.PutFile(t, g.Bot, "plan-a", "", "plans/a.json", "{\"one\":2}\n")
	waitFor(t, "the approval of head1 stale", func() bool {
		rs, err := bot.Reviews(ctx, pr.Number)
		return err == nil && len(rs) == 1 && rs[0].Stale
	})
	review("COMMENT", head2)
	review("APPROVED", head2)
	rs, err := bot.Reviews(ctx, pr.Number)
	if err != nil {
		t.Fatal(err)
	}
	want := []forge.Review{{User: g.Reviewer.Name, State: forge.ReviewApproved, CommitID: head1, Stale: true},
		{User: g.Reviewer.Name, State: forge.ReviewCommented, CommitID: head2},
		{User: g.Reviewer.Name, State: forge.ReviewApproved, CommitID: head2}}
	if len(rs) != len(want) {
		t.Fatalf("reviews %+v, want %+v", rs, want)
	}
	for i := range want {
		if rs[i].At.IsZero() {
			t.Errorf("review %d has no time", i)
		}
		rs[i].At = time.Time{}
		if rs[i] != want[i] {
			t.Errorf("review %d = %+v, want %+v", i, rs[i], want[i])
		}
	}

	// one comment per marker, edited in place; another user's comment carrying the marker is
	// not the bot's
	if err := g.API(g.Reviewer, "POST", "/repos/"+r.FullName()+"/issues/"+itoa(pr.Number)+"/comments",
		map[string]any{"body": forge.Marked("preview", "bob copies the marker")}, nil); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if err := bot.Comment(ctx, pr.Number, "preview", "preview number "+itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	var cs []struct {
		Body string `json:"body"`
		User struct {
			Login string `json:"login"`
		} `json:"user"`
	}
	if err := g.API(g.Owner, "GET", "/repos/"+r.FullName()+"/issues/"+itoa(pr.Number)+"/comments", nil, &cs); err != nil {
		t.Fatal(err)
	}
	var mine []string
	for _, c := range cs {
		if c.User.Login == g.Bot.Name {
			mine = append(mine, c.Body)
		} else if !strings.Contains(c.Body, "bob copies the marker") {
			t.Errorf("%s's comment changed: %q", c.User.Login, c.Body)
		}
	}
	if len(mine) != 1 || mine[0] != forge.Marked("preview", "preview number 3") {
		t.Errorf("the bot's comments after 3 calls: %q", mine)
	}

	st := forge.Status{Context: "archiplan/preview", State: forge.StatusSuccess, Description: "valid: 1 op", TargetURL: g.URL + "/x"}
	if err := bot.SetStatus(ctx, head2, st); err != nil {
		t.Fatal(err)
	}
	var sts []struct {
		Context     string `json:"context"`
		Status      string `json:"status"`
		Description string `json:"description"`
		TargetURL   string `json:"target_url"`
	}
	if err := g.API(g.Owner, "GET", "/repos/"+r.FullName()+"/commits/"+head2+"/statuses", nil, &sts); err != nil {
		t.Fatal(err)
	}
	if len(sts) != 1 || sts[0].Context != st.Context || sts[0].Status != st.State || sts[0].Description != st.Description || sts[0].TargetURL != st.TargetURL {
		t.Errorf("statuses of head2: %+v", sts)
	}

	// merge: refused (409 head out of date) for the head that moved, done for the approved one;
	// Gitea answers 405 "try again later" while it still checks the pull request after the push
	var err1 error
	waitFor(t, "the merge of head1 answered other than 405", func() bool {
		err1 = bot.Merge(ctx, pr.Number, head1, "apply plan a")
		return rest.Status(err1) != http.StatusMethodNotAllowed
	})
	if !errors.Is(err1, forge.ErrRefused) || rest.Status(err1) != http.StatusConflict {
		t.Fatalf("merge of the old head: %v, want 409", err1)
	}
	if p, _ := bot.PR(ctx, pr.Number); p.Merged {
		t.Fatal("merged although the head moved")
	}
	var err2 error
	waitFor(t, "the merge of head2 answered other than 405", func() bool {
		err2 = bot.Merge(ctx, pr.Number, head2, "apply plan a\n\nApproved-By: bob")
		return rest.Status(err2) != http.StatusMethodNotAllowed
	})
	if err2 != nil {
		t.Fatal(err2)
	}
	if p, err := bot.PR(ctx, pr.Number); err != nil || !p.Merged || p.State != "closed" {
		t.Errorf("after merge: %+v %v", p, err)
	}
}

// A token the forge refuses is ErrAuth, and the error is one line without the token.
func TestGitea_BadToken(t *testing.T) {
	g := giteatest.Shared(t)
	r := g.NewRepo(t, "badtoken")
	c := client(t, g, r, giteatest.User{Name: "nobody", Token: "0123456789abcdef0123456789abcdef01234567"})
	_, err := c.PR(context.Background(), 1)
	if !errors.Is(err, forge.ErrAuth) {
		t.Fatalf("%v, want ErrAuth", err)
	}
	if strings.Contains(err.Error(), "0123456789abcdef") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

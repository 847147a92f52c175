package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archiplan/archiplan/forge"
	"github.com/archiplan/archiplan/forge/internal/forgefake"
)

const token = "ghp_s3cretTOKENvalue0123456789abcdef"

// fake is a GitHub holding one repository, octo/models, whose requests are checked against the
// REST API's description (docs.github.com/en/rest, API version 2022-11-28; the operations'
// pages are named on each endpoint below).
type fake struct {
	*forgefake.Server
	mu       sync.Mutex
	me       string // the token's user; "" answers /user with 403, as an Actions token
	pulls    map[int]map[string]any
	reviews  []map[string]any
	comments []map[string]any
	statuses []map[string]any
	nextID   int
	// fail, when set, answers before the handler (retries, errors)
	fail func(w http.ResponseWriter, r *http.Request) bool
}

// page slices a list as GitHub's per_page and page do.
func page[T any](r *http.Request, all []T) []T {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per == 0 {
		per = 30
	}
	p, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if p == 0 {
		p = 1
	}
	lo, hi := min((p-1)*per, len(all)), min(p*per, len(all))
	return all[lo:hi]
}

func newFake(t *testing.T) *fake {
	f := &fake{me: "archiplan-bot", pulls: map[int]map[string]any{}, nextID: 100}
	repo := "/repos/{owner}/{repo}"
	h := func(fn func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any)) func(http.ResponseWriter, *http.Request, map[string]string, map[string]any) {
		return func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
			if p["owner"] != "" && (p["owner"] != "octo" || p["repo"] != "models") {
				forgefake.JSON(w, 404, map[string]string{"message": "Not Found"})
				return
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.fail != nil && f.fail(w, r) {
				return
			}
			fn(w, r, p, b)
		}
	}
	pull := func(w http.ResponseWriter, p map[string]string) map[string]any {
		n, _ := strconv.Atoi(p["pull_number"])
		pr, ok := f.pulls[n]
		if !ok {
			forgefake.JSON(w, 404, map[string]string{"message": "Not Found"})
		}
		return pr
	}
	endpoints := []forgefake.Endpoint{
		{Method: "POST", Path: repo + "/pulls", // Create a pull request
			Body: map[string]string{"title": forgefake.String, "head": forgefake.String, "head_repo": forgefake.String,
				"base": forgefake.String, "body": forgefake.String, "maintainer_can_modify": forgefake.Boolean,
				"draft": forgefake.Boolean, "issue": forgefake.Integer},
			Required: []string{"head", "base"},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				for _, pr := range f.pulls {
					if pr["head"].(map[string]any)["ref"] == b["head"] && pr["state"] == "open" {
						forgefake.JSON(w, 422, map[string]any{"message": "Validation Failed", "errors": []any{map[string]any{"message": "A pull request already exists for octo:" + b["head"].(string) + "."}}})
						return
					}
				}
				n := len(f.pulls) + 1
				f.pulls[n] = map[string]any{"number": n, "html_url": "https://github.com/octo/models/pull/" + strconv.Itoa(n),
					"title": b["title"], "body": b["body"], "state": "open", "merged": false, "mergeable": nil,
					"user": map[string]any{"login": f.me, "type": "User"},
					"head": map[string]any{"ref": b["head"], "sha": "h1"}, "base": map[string]any{"ref": b["base"], "sha": "b1"}}
				forgefake.JSON(w, 201, f.pulls[n])
			})},
		{Method: "PATCH", Path: repo + "/pulls/{pull_number}", // Update a pull request
			Body: map[string]string{"title": forgefake.String, "body": forgefake.String, "state": forgefake.String,
				"base": forgefake.String, "maintainer_can_modify": forgefake.Boolean},
			Enum: map[string][]string{"state": {"open", "closed"}},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				if pr := pull(w, p); pr != nil {
					for k, v := range b {
						pr[k] = v
					}
					forgefake.JSON(w, 200, pr)
				}
			})},
		{Method: "GET", Path: repo + "/pulls/{pull_number}", // Get a pull request
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				if pr := pull(w, p); pr != nil {
					forgefake.JSON(w, 200, pr)
				}
			})},
		{Method: "GET", Path: repo + "/pulls", // List pull requests
			Query: []string{"state", "head", "base", "sort", "direction", "per_page", "page"},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				var out []map[string]any
				for i := 1; i <= len(f.pulls); i++ {
					pr := f.pulls[i]
					if st := r.URL.Query().Get("state"); st != "all" && st != "" && pr["state"] != st {
						continue
					}
					if hd := r.URL.Query().Get("head"); hd != "" && hd != "octo:"+pr["head"].(map[string]any)["ref"].(string) {
						continue
					}
					out = append(out, pr)
				}
				forgefake.JSON(w, 200, page(r, out))
			})},
		{Method: "GET", Path: repo + "/pulls/{pull_number}/reviews", // List reviews for a pull request
			Query: []string{"per_page", "page"},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				forgefake.JSON(w, 200, page(r, f.reviews))
			})},
		{Method: "PUT", Path: repo + "/pulls/{pull_number}/merge", // Merge a pull request
			Body: map[string]string{"commit_title": forgefake.String, "commit_message": forgefake.String,
				"sha": forgefake.String, "merge_method": forgefake.String},
			Enum: map[string][]string{"merge_method": {"merge", "squash", "rebase"}},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				pr := pull(w, p)
				if pr == nil {
					return
				}
				if sha, ok := b["sha"]; ok && sha != pr["head"].(map[string]any)["sha"] {
					forgefake.JSON(w, 409, map[string]string{"message": "Head branch was modified. Review and try the merge again."})
					return
				}
				pr["merged"], pr["state"] = true, "closed"
				forgefake.JSON(w, 200, map[string]any{"sha": "m1", "merged": true, "message": "Pull Request successfully merged"})
			})},
		{Method: "GET", Path: "/user", // Get the authenticated user
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				if f.me == "" {
					forgefake.JSON(w, 403, map[string]string{"message": "Resource not accessible by integration"})
					return
				}
				forgefake.JSON(w, 200, map[string]any{"login": f.me, "type": "User"})
			})},
		{Method: "GET", Path: repo + "/issues/{issue_number}/comments", // List issue comments
			Query: []string{"since", "per_page", "page"},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				var out []map[string]any
				for _, c := range f.comments {
					if c["issue"] == p["issue_number"] {
						out = append(out, c)
					}
				}
				forgefake.JSON(w, 200, page(r, out))
			})},
		{Method: "POST", Path: repo + "/issues/{issue_number}/comments", // Create an issue comment
			Body: map[string]string{"body": forgefake.String}, Required: []string{"body"},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				f.nextID++
				login, typ := f.me, "User"
				if login == "" {
					login, typ = "github-actions[bot]", "Bot"
				}
				c := map[string]any{"id": f.nextID, "issue": p["issue_number"], "body": b["body"], "user": map[string]any{"login": login, "type": typ}}
				f.comments = append(f.comments, c)
				forgefake.JSON(w, 201, c)
			})},
		{Method: "PATCH", Path: repo + "/issues/comments/{comment_id}", // Update an issue comment
			Body: map[string]string{"body": forgefake.String}, Required: []string{"body"},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				for _, c := range f.comments {
					if strconv.Itoa(c["id"].(int)) == p["comment_id"] {
						c["body"] = b["body"]
						forgefake.JSON(w, 200, c)
						return
					}
				}
				forgefake.JSON(w, 404, map[string]string{"message": "Not Found"})
			})},
		{Method: "POST", Path: repo + "/statuses/{sha}", // Create a commit status
			Body:     map[string]string{"state": forgefake.String, "target_url": forgefake.String, "description": forgefake.String, "context": forgefake.String},
			Required: []string{"state"}, Enum: map[string][]string{"state": {"error", "failure", "pending", "success"}},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				b["sha"] = p["sha"]
				f.statuses = append(f.statuses, b)
				forgefake.JSON(w, 201, b)
			})},
	}
	// Enterprise Server's API is under /api/v3 of its address; the test's address is one
	f.Server = forgefake.New(t, "/api/v3", map[string]string{"Accept": "application/vnd.github+json",
		"X-GitHub-Api-Version": "2022-11-28", "Authorization": "Bearer " + token, "User-Agent": "archiplan"}, endpoints)
	return f
}

func (f *fake) client(t *testing.T) *Client {
	t.Helper()
	fg, err := forge.Open(forge.Config{Kind: "github", URL: f.URL, Repo: "octo/models", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	c := fg.(*Client)
	c.SetBackoff(time.Millisecond)
	return c
}

// Every call of the walk is one the API describes, with its fields, and the client reads the
// answers into the forge's words.
func TestGitHub_Walk(t *testing.T) {
	f := newFake(t)
	c := f.client(t)
	ctx := context.Background()
	pr, err := c.OpenPR(ctx, forge.NewPR{Title: "plan a", Body: "the preview", Head: "plan-a", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Number != 1 || pr.Head != "plan-a" || pr.HeadSHA != "h1" || pr.Base != "main" || pr.BaseSHA != "b1" ||
		pr.State != "open" || pr.Author != "archiplan-bot" || pr.Mergeable || pr.URL != "https://github.com/octo/models/pull/1" {
		t.Errorf("opened %+v", pr)
	}
	if _, err := c.OpenPR(ctx, forge.NewPR{Title: "again", Head: "plan-a", Base: "main"}); !errors.Is(err, forge.ErrRefused) ||
		!strings.Contains(err.Error(), "422") {
		t.Errorf("a second pull request of one head: %v", err)
	}
	if err := c.EditPR(ctx, 1, "plan a (2)", "new preview"); err != nil {
		t.Fatal(err)
	}
	if got, err := c.PR(ctx, 1); err != nil || got.Title != "plan a (2)" || got.Body != "new preview" {
		t.Errorf("after edit %+v %v", got, err)
	}
	if got, ok, err := c.FindPR(ctx, "plan-a"); err != nil || !ok || got.Number != 1 {
		t.Errorf("FindPR(plan-a) %+v %v %v", got, ok, err)
	}
	if _, ok, err := c.FindPR(ctx, "plan-b"); err != nil || ok {
		t.Errorf("FindPR(plan-b) %v %v", ok, err)
	}
	if _, err := c.PR(ctx, 7); !errors.Is(err, forge.ErrNotFound) {
		t.Errorf("PR 7: %v, want ErrNotFound", err)
	}

	// reviews over two pages, in GitHub's words
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	for i := 0; i < 101; i++ {
		f.reviews = append(f.reviews, map[string]any{"user": map[string]any{"login": "carol"}, "state": "COMMENTED", "commit_id": "h0", "submitted_at": at})
	}
	f.reviews = append(f.reviews,
		map[string]any{"user": map[string]any{"login": "bob"}, "state": "APPROVED", "commit_id": "h0", "submitted_at": at},
		map[string]any{"user": map[string]any{"login": "bob"}, "state": "DISMISSED", "commit_id": "h0", "submitted_at": at},
		map[string]any{"user": map[string]any{"login": "dave"}, "state": "CHANGES_REQUESTED", "commit_id": "h1", "submitted_at": at},
		map[string]any{"user": map[string]any{"login": "erin"}, "state": "PENDING", "commit_id": "h1"},
		map[string]any{"user": map[string]any{"login": "bob"}, "state": "APPROVED", "commit_id": "h1", "submitted_at": at})
	rs, err := c.Reviews(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []forge.Review{{User: "bob", State: forge.ReviewApproved, CommitID: "h0", At: at},
		{User: "bob", State: "DISMISSED", CommitID: "h0", At: at, Stale: true},
		{User: "dave", State: forge.ReviewChangesRequested, CommitID: "h1", At: at},
		{User: "bob", State: forge.ReviewApproved, CommitID: "h1", At: at}}
	if len(rs) != 101+len(want) || rs[0].State != forge.ReviewCommented {
		t.Fatalf("%d reviews, want %d", len(rs), 101+len(want))
	}
	for i, w := range want {
		if g := rs[101+i]; g != w {
			t.Errorf("review %d = %+v, want %+v", i, g, w)
		}
	}

	// one comment per marker, another user's copy of the marker left alone
	f.comments = append(f.comments, map[string]any{"id": 1, "issue": "1", "body": forge.Marked("preview", "mallory's"), "user": map[string]any{"login": "mallory", "type": "User"}})
	for i := 1; i <= 3; i++ {
		if err := c.Comment(ctx, 1, "preview", fmt.Sprintf("preview %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if len(f.comments) != 2 || f.comments[0]["body"] != forge.Marked("preview", "mallory's") || f.comments[1]["body"] != forge.Marked("preview", "preview 3") {
		t.Errorf("comments after 3 calls: %v", f.comments)
	}
	if n := f.Count("POST", "/repos/{o}/{r}/issues/{n}/comments"); n != 1 {
		t.Errorf("%d comments posted, want 1", n)
	}

	long := strings.Repeat("é", 200)
	if err := c.SetStatus(ctx, "h1", forge.Status{Context: "archiplan/preview", State: forge.StatusFailure, Description: long}); err != nil {
		t.Fatal(err)
	}
	if st := f.statuses[0]; st["sha"] != "h1" || st["state"] != "failure" || st["context"] != "archiplan/preview" ||
		len([]rune(st["description"].(string))) != 140 || st["target_url"] != nil {
		t.Errorf("status %v", st)
	}

	if err := c.Merge(ctx, 1, "h0", "apply"); !errors.Is(err, forge.ErrRefused) {
		t.Errorf("merge of a moved head: %v, want ErrRefused", err)
	}
	if err := c.Merge(ctx, 1, "h1", "apply plan a\n\nApproved-By: bob"); err != nil {
		t.Fatal(err)
	}
	calls := f.Calls()
	last := calls[len(calls)-1].Body
	if last["commit_title"] != "apply plan a" || last["commit_message"] != "Approved-By: bob" || last["sha"] != "h1" || last["merge_method"] != "merge" {
		t.Errorf("merge body %v", last)
	}
	if got, _ := c.PR(ctx, 1); !got.Merged || got.State != "closed" {
		t.Errorf("after merge %+v", got)
	}
}

// An Actions token may not read /user: the comment kept is the bot's.
func TestGitHub_ActionsToken(t *testing.T) {
	f := newFake(t)
	f.me = ""
	f.pulls[1] = map[string]any{"number": 1}
	f.comments = append(f.comments, map[string]any{"id": 1, "issue": "1", "body": forge.Marked("preview", "a person's"), "user": map[string]any{"login": "mallory", "type": "User"}})
	c := f.client(t)
	for i := 0; i < 2; i++ {
		if err := c.Comment(context.Background(), 1, "preview", "mine"); err != nil {
			t.Fatal(err)
		}
	}
	if len(f.comments) != 2 || f.comments[1]["user"].(map[string]any)["login"] != "github-actions[bot]" || f.comments[0]["body"] != forge.Marked("preview", "a person's") {
		t.Errorf("comments %v", f.comments)
	}
}

// 5xx and 429 are asked again (a bounded number of times) where that is safe; a POST that failed
// with 502 is not (the forge may have opened the pull request), one refused with 429 is.
func TestGitHub_Retries(t *testing.T) {
	f := newFake(t)
	c := f.client(t)
	ctx := context.Background()
	f.pulls[1] = map[string]any{"number": 1, "state": "open", "head": map[string]any{"ref": "x", "sha": "h"}, "base": map[string]any{"ref": "main"}}
	n := 0
	f.fail = func(w http.ResponseWriter, r *http.Request) bool {
		n++
		if n <= 2 {
			forgefake.JSON(w, 502, map[string]string{"message": "Server Error"})
			return true
		}
		return false
	}
	if _, err := c.PR(ctx, 1); err != nil || n != 3 {
		t.Errorf("GET after two 502: %v after %d tries", err, n)
	}
	n = -10
	if _, err := c.PR(ctx, 1); err == nil || !strings.Contains(err.Error(), "502") || n != -7 {
		t.Errorf("GET always 502: %v after %d tries, want 3", err, n+10)
	}
	n = 0
	if _, err := c.OpenPR(ctx, forge.NewPR{Title: "t", Head: "y", Base: "main"}); err == nil || n != 1 {
		t.Errorf("POST after 502: %v after %d tries, want 1", err, n)
	}
	n = 0
	f.fail = func(w http.ResponseWriter, r *http.Request) bool {
		n++
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			forgefake.JSON(w, 429, map[string]string{"message": "slow down"})
			return true
		}
		return false
	}
	if _, err := c.OpenPR(ctx, forge.NewPR{Title: "t", Head: "z", Base: "main"}); err != nil || n != 2 {
		t.Errorf("POST after 429: %v after %d tries, want 2", err, n)
	}
}

// The token goes only in its header, to the forge's host: never in an error, whatever the forge
// echoes, nor to another host a redirect points at.
func TestGitHub_TokenNeverShown(t *testing.T) {
	f := newFake(t)
	c := f.client(t)
	f.fail = func(w http.ResponseWriter, r *http.Request) bool {
		forgefake.JSON(w, 401, map[string]string{"message": "Bad credentials: " + r.Header.Get("Authorization") + "\nsecond line"})
		return true
	}
	_, err := c.PR(context.Background(), 1)
	if !errors.Is(err, forge.ErrAuth) || strings.Contains(err.Error(), token) || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q", err)
	}
	if !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "github: GET /repos/octo/models/pulls/1") {
		t.Errorf("error %q does not say what was refused", err)
	}
}

func TestGitHub_Address(t *testing.T) {
	for url, want := range map[string]string{"": "https://api.github.com", "https://github.com/": "https://api.github.com",
		"https://ghe.example.com": "https://ghe.example.com/api/v3", "http://127.0.0.1:8080": "http://127.0.0.1:8080/api/v3"} {
		c, err := New(forge.Config{URL: url, Repo: "o/r", Token: "t"})
		if err != nil || c.api.Base != want {
			t.Errorf("%q: %v %v, want %s", url, c, err, want)
		}
	}
	for _, url := range []string{"http://ghe.example.com", "ftp://x", "https://user:pw@ghe.example.com"} {
		if _, err := New(forge.Config{URL: url, Repo: "o/r", Token: "t"}); !errors.Is(err, forge.ErrForge) {
			t.Errorf("%q: %v, want refused", url, err)
		}
	}
}

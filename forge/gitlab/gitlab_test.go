package gitlab

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archiplan/archiplan/forge"
	"github.com/archiplan/archiplan/forge/internal/forgefake"
)

const token = "glpat-s3cretTOKENvalue0123"

// fake is a GitLab holding one project, group/sub/models, whose requests are checked against the
// REST API v4's description (docs.gitlab.com/api: merge_requests.md "Create MR", "Update MR",
// "Get single MR", "List project merge requests", "Merge a merge request", "Get single MR diff
// versions"; merge_request_approvals.md "Get Configuration" of a merge request; notes.md "List
// all merge request notes", "Create new merge request note", "Modify existing merge request
// note"; commits.md "Set the pipeline status of a commit"; users.md "Get the current user").
type fake struct {
	*forgefake.Server
	mu         sync.Mutex
	me         string
	mrs        map[int]map[string]any
	notes      []map[string]any
	approvedBy []string
	versions   []map[string]any // newest first
	statuses   []map[string]any
	nextID     int
	fail       func(w http.ResponseWriter, r *http.Request) bool
}

const project = "group%2Fsub%2Fmodels"

func page[T any](r *http.Request, all []T) []T {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per == 0 {
		per = 20
	}
	p, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if p == 0 {
		p = 1
	}
	lo, hi := min((p-1)*per, len(all)), min(p*per, len(all))
	return all[lo:hi]
}

func newFake(t *testing.T) *fake {
	f := &fake{me: "archiplan-bot", mrs: map[int]map[string]any{}, nextID: 100}
	h := func(fn func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any)) func(http.ResponseWriter, *http.Request, map[string]string, map[string]any) {
		return func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
			if id, ok := p["id"]; ok && id != project {
				forgefake.JSON(w, 404, map[string]string{"message": "404 Project Not Found"})
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
	mr := func(w http.ResponseWriter, p map[string]string) map[string]any {
		n, _ := strconv.Atoi(p["merge_request_iid"])
		m, ok := f.mrs[n]
		if !ok {
			forgefake.JSON(w, 404, map[string]string{"message": "404 Not found"})
		}
		return m
	}
	base := "/projects/{id}/merge_requests"
	one := base + "/{merge_request_iid}"
	endpoints := []forgefake.Endpoint{
		{Method: "POST", Path: base,
			Body: map[string]string{"source_branch": forgefake.String, "target_branch": forgefake.String, "title": forgefake.String,
				"description": forgefake.String, "assignee_id": forgefake.Integer, "labels": forgefake.String,
				"remove_source_branch": forgefake.Boolean, "squash": forgefake.Boolean, "target_project_id": forgefake.Integer,
				"allow_collaboration": forgefake.Boolean, "milestone_id": forgefake.Integer},
			Required: []string{"source_branch", "target_branch", "title"},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				for _, m := range f.mrs {
					if m["source_branch"] == b["source_branch"] && m["state"] == "opened" {
						forgefake.JSON(w, 409, map[string]any{"message": []string{"Another open merge request already exists for this source branch: !1"}})
						return
					}
				}
				n := len(f.mrs) + 1
				f.mrs[n] = map[string]any{"id": 1000 + n, "iid": n, "web_url": "https://gitlab.example.com/group/sub/models/-/merge_requests/" + strconv.Itoa(n),
					"title": b["title"], "description": b["description"], "state": "opened", "sha": "h1",
					"source_branch": b["source_branch"], "target_branch": b["target_branch"], "author": map[string]any{"username": f.me},
					"detailed_merge_status": "checking", "merge_status": "checking", "has_conflicts": false,
					"diff_refs": map[string]any{"base_sha": "mb", "head_sha": "h1", "start_sha": "b1"}}
				forgefake.JSON(w, 201, f.mrs[n])
			})},
		{Method: "PUT", Path: one,
			Body: map[string]string{"title": forgefake.String, "description": forgefake.String, "target_branch": forgefake.String,
				"state_event": forgefake.String, "remove_source_branch": forgefake.Boolean, "squash": forgefake.Boolean,
				"discussion_locked": forgefake.Boolean},
			Enum: map[string][]string{"state_event": {"close", "reopen"}},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				if m := mr(w, p); m != nil {
					for k, v := range b {
						m[k] = v
					}
					forgefake.JSON(w, 200, m)
				}
			})},
		{Method: "GET", Path: one, Query: []string{"render_html", "include_diverged_commits_count", "include_rebase_in_progress"},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				if m := mr(w, p); m != nil {
					forgefake.JSON(w, 200, m)
				}
			})},
		{Method: "GET", Path: base,
			Query: []string{"state", "source_branch", "target_branch", "order_by", "sort", "per_page", "page", "scope", "author_username"},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				if st := r.URL.Query().Get("state"); st != "" && !strings.Contains("opened closed locked merged all", st) {
					forgefake.JSON(w, 400, map[string]string{"error": "state does not have a valid value"})
					return
				}
				var out []map[string]any
				for i := 1; i <= len(f.mrs); i++ {
					m := f.mrs[i]
					if st := r.URL.Query().Get("state"); st != "" && st != "all" && m["state"] != st {
						continue
					}
					if sb := r.URL.Query().Get("source_branch"); sb != "" && m["source_branch"] != sb {
						continue
					}
					out = append(out, m)
				}
				forgefake.JSON(w, 200, page(r, out))
			})},
		{Method: "GET", Path: one + "/approvals",
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				var by []any
				for _, u := range f.approvedBy {
					by = append(by, map[string]any{"user": map[string]any{"username": u}})
				}
				forgefake.JSON(w, 200, map[string]any{"approvals_required": 1, "approved_by": by})
			})},
		{Method: "GET", Path: one + "/versions", Query: []string{"per_page", "page"},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				forgefake.JSON(w, 200, page(r, f.versions))
			})},
		{Method: "GET", Path: one + "/notes", Query: []string{"sort", "order_by", "per_page", "page", "activity_filter"},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				if s := r.URL.Query().Get("sort"); s != "" && s != "asc" && s != "desc" {
					forgefake.JSON(w, 400, map[string]string{"error": "sort does not have a valid value"})
					return
				}
				if o := r.URL.Query().Get("order_by"); o != "" && o != "created_at" && o != "updated_at" {
					forgefake.JSON(w, 400, map[string]string{"error": "order_by does not have a valid value"})
					return
				}
				forgefake.JSON(w, 200, page(r, f.notes))
			})},
		{Method: "POST", Path: one + "/notes",
			Body:     map[string]string{"body": forgefake.String, "internal": forgefake.Boolean, "created_at": forgefake.String, "merge_request_diff_head_sha": forgefake.String},
			Required: []string{"body"},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				f.nextID++
				n := map[string]any{"id": f.nextID, "body": b["body"], "author": map[string]any{"username": f.me}, "system": false}
				f.notes = append(f.notes, n)
				forgefake.JSON(w, 201, n)
			})},
		{Method: "PUT", Path: one + "/notes/{note_id}",
			Body: map[string]string{"body": forgefake.String, "confidential": forgefake.Boolean}, Required: []string{"body"},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				for _, n := range f.notes {
					if fmt.Sprint(n["id"]) == p["note_id"] {
						n["body"] = b["body"]
						forgefake.JSON(w, 200, n)
						return
					}
				}
				forgefake.JSON(w, 404, map[string]string{"message": "404 Note Not Found"})
			})},
		{Method: "PUT", Path: one + "/merge",
			Body: map[string]string{"merge_commit_message": forgefake.String, "squash_commit_message": forgefake.String,
				"squash": forgefake.Boolean, "should_remove_source_branch": forgefake.Boolean,
				"merge_when_pipeline_succeeds": forgefake.Boolean, "auto_merge": forgefake.Boolean, "sha": forgefake.String},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				m := mr(w, p)
				if m == nil {
					return
				}
				if sha, ok := b["sha"]; ok && sha != m["sha"] {
					forgefake.JSON(w, 409, map[string]string{"message": "SHA does not match HEAD of source branch: " + m["sha"].(string)})
					return
				}
				m["state"] = "merged"
				forgefake.JSON(w, 200, m)
			})},
		{Method: "GET", Path: "/user",
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				forgefake.JSON(w, 200, map[string]any{"username": f.me})
			})},
		{Method: "POST", Path: "/projects/{id}/statuses/{sha}",
			Body: map[string]string{"state": forgefake.String, "ref": forgefake.String, "name": forgefake.String, "context": forgefake.String,
				"target_url": forgefake.String, "description": forgefake.String, "pipeline_id": forgefake.Integer},
			Required: []string{"state"},
			Enum:     map[string][]string{"state": {"pending", "running", "success", "failed", "canceled", "skipped"}},
			Handle: h(func(w http.ResponseWriter, r *http.Request, p map[string]string, b map[string]any) {
				b["sha"] = p["sha"]
				f.statuses = append(f.statuses, b)
				forgefake.JSON(w, 201, b)
			})},
	}
	f.Server = forgefake.New(t, "/api/v4", map[string]string{"Private-Token": token, "Authorization": "", "User-Agent": "archiplan"}, endpoints)
	return f
}

func (f *fake) client(t *testing.T) *Client {
	t.Helper()
	fg, err := forge.Open(forge.Config{Kind: "gitlab", URL: f.URL, Repo: "group/sub/models", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	c := fg.(*Client)
	c.SetBackoff(time.Millisecond)
	return c
}

func TestGitLab_Walk(t *testing.T) {
	f := newFake(t)
	c := f.client(t)
	ctx := context.Background()
	pr, err := c.OpenPR(ctx, forge.NewPR{Title: "plan a", Body: "the preview", Head: "plan-a", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Number != 1 || pr.Head != "plan-a" || pr.HeadSHA != "h1" || pr.Base != "main" || pr.BaseSHA != "b1" ||
		pr.State != "open" || pr.Author != "archiplan-bot" || pr.Mergeable || !strings.HasSuffix(pr.URL, "/-/merge_requests/1") {
		t.Errorf("opened %+v", pr)
	}
	if _, err := c.OpenPR(ctx, forge.NewPR{Title: "again", Head: "plan-a", Base: "main"}); !errors.Is(err, forge.ErrRefused) ||
		!strings.Contains(err.Error(), "Another open merge request") {
		t.Errorf("a second merge request of one branch: %v", err)
	}
	if err := c.EditPR(ctx, 1, "plan a (2)", "new preview"); err != nil {
		t.Fatal(err)
	}
	f.mrs[1]["detailed_merge_status"] = "mergeable"
	if got, err := c.PR(ctx, 1); err != nil || got.Title != "plan a (2)" || got.Body != "new preview" || !got.Mergeable {
		t.Errorf("after edit %+v %v", got, err)
	}
	if got, ok, err := c.FindPR(ctx, "plan-a"); err != nil || !ok || got.Number != 1 {
		t.Errorf("FindPR(plan-a) %+v %v %v", got, ok, err)
	}
	if _, ok, err := c.FindPR(ctx, "plan-b"); err != nil || ok {
		t.Errorf("FindPR(plan-b) %v %v", ok, err)
	}

	// approvals dated by their notes, on the head of the version of their time: bob approved h0,
	// a push made h1 (approvals reset), bob approved h1; carol approved and withdrew
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	f.versions = []map[string]any{{"id": 2, "head_commit_sha": "h1", "created_at": at(10)}, {"id": 1, "head_commit_sha": "h0", "created_at": at(0)}}
	sys := func(user, body string, m int) map[string]any {
		f.nextID++
		return map[string]any{"id": f.nextID, "body": body, "author": map[string]any{"username": user}, "system": true, "created_at": at(m)}
	}
	for i := 0; i < 100; i++ {
		f.notes = append(f.notes, sys("archiplan-bot", "added 1 commit", 0))
	}
	f.notes = append(f.notes, sys("bob", "approved this merge request", 5), sys("carol", "approved this merge request", 6),
		sys("carol", "unapproved this merge request", 7), sys("bob", "approved this merge request", 12))
	f.approvedBy = []string{"bob"}
	rs, err := c.Reviews(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []forge.Review{{User: "bob", State: forge.ReviewApproved, CommitID: "h0", At: at(5), Stale: true},
		{User: "carol", State: forge.ReviewApproved, CommitID: "h0", At: at(6), Stale: true},
		{User: "bob", State: forge.ReviewApproved, CommitID: "h1", At: at(12)}}
	if len(rs) != len(want) {
		t.Fatalf("reviews %+v, want %+v", rs, want)
	}
	for i := range want {
		if !rs[i].At.Equal(want[i].At) {
			t.Errorf("review %d at %s, want %s", i, rs[i].At, want[i].At)
		}
		rs[i].At = want[i].At
		if rs[i] != want[i] {
			t.Errorf("review %d = %+v, want %+v", i, rs[i], want[i])
		}
	}

	// one note per marker, another user's copy of the marker left alone
	f.notes = append(f.notes, map[string]any{"id": 1, "body": forge.Marked("preview", "mallory's"), "author": map[string]any{"username": "mallory"}, "system": false})
	for i := 1; i <= 3; i++ {
		if err := c.Comment(ctx, 1, "preview", fmt.Sprintf("preview %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	var bodies []string
	for _, n := range f.notes {
		if n["system"] == false {
			bodies = append(bodies, n["body"].(string))
		}
	}
	if len(bodies) != 2 || bodies[0] != forge.Marked("preview", "mallory's") || bodies[1] != forge.Marked("preview", "preview 3") {
		t.Errorf("notes after 3 calls: %q", bodies)
	}

	for _, st := range []string{forge.StatusSuccess, forge.StatusFailure, forge.StatusError, forge.StatusPending} {
		if err := c.SetStatus(ctx, "h1", forge.Status{Context: "archiplan/preview", State: st, Description: "d", TargetURL: "https://x/y"}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, st := range f.statuses {
		if st["sha"] != "h1" || st["name"] != "archiplan/preview" || st["target_url"] != "https://x/y" {
			t.Errorf("status %v", st)
		}
		got = append(got, st["state"].(string))
	}
	if strings.Join(got, " ") != "success failed failed pending" {
		t.Errorf("states %v", got)
	}
	if err := c.SetStatus(ctx, "h1", forge.Status{State: "weird"}); !errors.Is(err, forge.ErrForge) {
		t.Errorf("unknown state: %v", err)
	}

	if err := c.Merge(ctx, 1, "h0", "apply"); !errors.Is(err, forge.ErrRefused) {
		t.Errorf("merge of a moved head: %v, want ErrRefused", err)
	}
	if err := c.Merge(ctx, 1, "h1", "apply plan a\n\nApproved-By: bob"); err != nil {
		t.Fatal(err)
	}
	calls := f.Calls()
	if b := calls[len(calls)-1].Body; b["merge_commit_message"] != "apply plan a\n\nApproved-By: bob" || b["sha"] != "h1" {
		t.Errorf("merge body %v", b)
	}
	if got, _ := c.PR(ctx, 1); !got.Merged || got.State != "closed" {
		t.Errorf("after merge %+v", got)
	}
}

// GitLab's PRIVATE-TOKEN is not a header Go drops on a redirect to another host: the client
// follows none there, and no error shows the token, whatever the forge echoes.
func TestGitLab_TokenNeverShown(t *testing.T) {
	var leaked []string
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked = append(leaked, r.Header.Get("Private-Token"))
		forgefake.JSON(w, 200, map[string]any{"iid": 1})
	}))
	defer elsewhere.Close()
	f := newFake(t)
	c := f.client(t)
	f.fail = func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasSuffix(r.URL.Path, "/2") {
			http.Redirect(w, r, strings.Replace(elsewhere.URL, "127.0.0.1", "localhost", 1)+r.URL.Path, http.StatusFound)
			return true
		}
		forgefake.JSON(w, 401, map[string]string{"message": "401 Unauthorized " + r.Header.Get("Private-Token")})
		return true
	}
	_, err := c.PR(context.Background(), 1)
	if !errors.Is(err, forge.ErrAuth) || strings.Contains(err.Error(), token) {
		t.Errorf("error %q", err)
	}
	_, err = c.PR(context.Background(), 2)
	if len(leaked) != 0 {
		t.Errorf("the token went to another host: %q", leaked)
	}
	if err == nil || strings.Contains(err.Error(), token) {
		t.Errorf("redirect elsewhere: %v", err)
	}
}

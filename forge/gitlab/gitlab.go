// Package gitlab is the forge client for GitLab (REST API v4): merge requests, their approvals,
// notes and commit statuses. Plain net/http through forge/internal/rest, as the other clients.
//
// GitLab has no reviews with a commit: a merge request has approvals (who approves it now) and
// system notes ("approved this merge request", with a time), and versions (each push's head,
// with a time). Reviews puts them together: each approval note is a review on the head of the
// version current when it was given; it is stale when its user does not approve the merge
// request now (withdrawn, or reset by a push where the project resets approvals on push).
package gitlab

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/archiplan/archiplan/forge"
	"github.com/archiplan/archiplan/forge/internal/rest"
)

func init() {
	forge.Register("gitlab", func(c forge.Config) (forge.Forge, error) { return New(c) })
}

// Client is one project on a GitLab.
type Client struct {
	api     rest.Client
	project string // the project's full path, escaped as one segment
	meOnce  sync.Once
	me      string
	meErr   error
}

// New is the client of cfg: URL (default https://gitlab.com) with its API under /api/v4; Repo is
// the project's full path (group/subgroup/name).
func New(cfg forge.Config) (*Client, error) {
	raw := cfg.URL
	if raw == "" {
		raw = "https://gitlab.com"
	}
	web, err := forge.CheckURL(raw)
	if err != nil {
		return nil, err
	}
	if strings.Count(cfg.Repo, "/") < 1 || strings.Contains(cfg.Repo, "//") || strings.HasPrefix(cfg.Repo, "/") || strings.HasSuffix(cfg.Repo, "/") {
		return nil, fmt.Errorf("forge.repo %q: want group/name: %w", cfg.Repo, forge.ErrForge)
	}
	token := forge.Token(cfg, web)
	c := &Client{project: url.PathEscape(cfg.Repo)}
	c.api = rest.Client{Forge: "gitlab", Base: web.String() + "/api/v4", Token: token, HTTP: cfg.HTTP,
		Header: http.Header{"Accept": {"application/json"}},
		Auth: func(h http.Header) {
			if token != "" {
				h.Set("Private-Token", token)
			}
		}}
	return c, nil
}

// SetBackoff shortens the wait between retries (tests).
func (c *Client) SetBackoff(d time.Duration) { c.api.Backoff = d }

func (c *Client) Kind() string { return "gitlab" }

func (c *Client) mrs() string { return "/projects/" + c.project + "/merge_requests" }

func (c *Client) mr(iid int) string { return c.mrs() + "/" + strconv.Itoa(iid) }

// pageSize is the most GitLab gives per page.
const pageSize = 100

type user struct {
	Username string `json:"username"`
}

// mergeRequest is what the client reads of a merge request.
type mergeRequest struct {
	IID                 int    `json:"iid"`
	WebURL              string `json:"web_url"`
	Title               string `json:"title"`
	Description         string `json:"description"`
	State               string `json:"state"` // opened, closed, locked, merged
	SHA                 string `json:"sha"`
	SourceBranch        string `json:"source_branch"`
	TargetBranch        string `json:"target_branch"`
	Author              user   `json:"author"`
	DetailedMergeStatus string `json:"detailed_merge_status"`
	MergeStatus         string `json:"merge_status"` // deprecated, for GitLab before 15.6
	HasConflicts        bool   `json:"has_conflicts"`
	DiffRefs            struct {
		StartSHA string `json:"start_sha"`
	} `json:"diff_refs"`
}

func (m mergeRequest) pr() forge.PR {
	state := "open"
	if m.State == "closed" || m.State == "merged" {
		state = "closed"
	}
	mergeable := m.DetailedMergeStatus == "mergeable" || (m.DetailedMergeStatus == "" && m.MergeStatus == "can_be_merged")
	return forge.PR{Number: m.IID, URL: m.WebURL, Title: m.Title, Body: m.Description, Head: m.SourceBranch,
		HeadSHA: m.SHA, Base: m.TargetBranch, BaseSHA: m.DiffRefs.StartSHA, State: state, Merged: m.State == "merged",
		Mergeable: mergeable && !m.HasConflicts, Author: m.Author.Username}
}

func (c *Client) OpenPR(ctx context.Context, n forge.NewPR) (forge.PR, error) {
	var m mergeRequest
	_, err := c.api.Do(ctx, "POST", c.mrs(), map[string]any{"source_branch": n.Head, "target_branch": n.Base,
		"title": n.Title, "description": n.Body}, &m)
	return m.pr(), err
}

func (c *Client) EditPR(ctx context.Context, number int, title, body string) error {
	_, err := c.api.Do(ctx, "PUT", c.mr(number), map[string]any{"title": title, "description": body}, nil)
	return err
}

func (c *Client) PR(ctx context.Context, number int) (forge.PR, error) {
	var m mergeRequest
	_, err := c.api.Do(ctx, "GET", c.mr(number), nil, &m)
	return m.pr(), err
}

func (c *Client) FindPR(ctx context.Context, head string) (forge.PR, bool, error) {
	var ms []mergeRequest
	q := url.Values{"state": {"opened"}, "source_branch": {head}, "per_page": {strconv.Itoa(pageSize)}}
	if _, err := c.api.Do(ctx, "GET", c.mrs()+"?"+q.Encode(), nil, &ms); err != nil {
		return forge.PR{}, false, err
	}
	for _, m := range ms {
		if m.SourceBranch == head {
			return m.pr(), true, nil
		}
	}
	return forge.PR{}, false, nil
}

// note is a merge request's note.
type note struct {
	ID        int64     `json:"id"`
	Body      string    `json:"body"`
	Author    user      `json:"author"`
	System    bool      `json:"system"`
	CreatedAt time.Time `json:"created_at"`
}

func (c *Client) notes(ctx context.Context, iid, page int) ([]note, error) {
	var ns []note
	_, err := c.api.Do(ctx, "GET", fmt.Sprintf("%s/notes?sort=asc&order_by=created_at&per_page=%d&page=%d", c.mr(iid), pageSize, page), nil, &ns)
	return ns, err
}

// The system notes of an approval and of its withdrawal, as GitLab writes them.
const (
	approvedNote   = "approved this merge request"
	unapprovedNote = "unapproved this merge request"
)

func (c *Client) Reviews(ctx context.Context, number int) ([]forge.Review, error) {
	var approvals struct {
		ApprovedBy []struct {
			User user `json:"user"`
		} `json:"approved_by"`
	}
	if _, err := c.api.Do(ctx, "GET", c.mr(number)+"/approvals", nil, &approvals); err != nil {
		return nil, err
	}
	now := map[string]bool{}
	for _, a := range approvals.ApprovedBy {
		now[a.User.Username] = true
	}
	var versions []struct {
		HeadCommitSHA string    `json:"head_commit_sha"`
		CreatedAt     time.Time `json:"created_at"`
	}
	if _, err := c.api.Do(ctx, "GET", fmt.Sprintf("%s/versions?per_page=%d", c.mr(number), pageSize), nil, &versions); err != nil {
		return nil, err
	}
	headAt := func(t time.Time) string { // versions come newest first
		for _, v := range versions {
			if !v.CreatedAt.After(t) {
				return v.HeadCommitSHA
			}
		}
		return ""
	}
	var out []forge.Review
	last := map[string]int{} // a user's last approval in out
	err := rest.Pages(pageSize, func(page int) (int, bool, error) {
		ns, err := c.notes(ctx, number, page)
		for _, n := range ns {
			if !n.System {
				continue
			}
			switch strings.TrimSpace(n.Body) {
			case approvedNote:
				last[n.Author.Username] = len(out)
				out = append(out, forge.Review{User: n.Author.Username, State: forge.ReviewApproved,
					CommitID: headAt(n.CreatedAt), At: n.CreatedAt, Stale: true})
			case unapprovedNote:
				delete(last, n.Author.Username)
			}
		}
		return len(ns), false, err
	})
	if err != nil {
		return nil, err
	}
	for u := range now {
		if i, ok := last[u]; ok {
			out[i].Stale = false // the approval GitLab holds now
		} else {
			out = append(out, forge.Review{User: u, State: forge.ReviewApproved}) // no note to date it
		}
	}
	return out, nil
}

func (c *Client) whoami(ctx context.Context) (string, error) {
	c.meOnce.Do(func() {
		var u user
		_, c.meErr = c.api.Do(ctx, "GET", "/user", nil, &u)
		c.me = u.Username
	})
	return c.me, c.meErr
}

func (c *Client) Comment(ctx context.Context, number int, marker, body string) error {
	me, err := c.whoami(ctx)
	if err != nil {
		return err
	}
	return rest.KeepComment(pageSize, func(page int) ([]rest.Note, int, error) {
		ns, err := c.notes(ctx, number, page)
		var out []rest.Note
		for _, n := range ns {
			if !n.System {
				out = append(out, rest.Note{ID: n.ID, Body: n.Body, User: n.Author.Username})
			}
		}
		return out, len(ns), err
	}, func(n rest.Note) bool { return n.User == me }, marker, body,
		func(id int64, body string) error {
			_, err := c.api.Do(ctx, "PUT", fmt.Sprintf("%s/notes/%d", c.mr(number), id), map[string]any{"body": body}, nil)
			return err
		}, func(body string) error {
			_, err := c.api.Do(ctx, "POST", c.mr(number)+"/notes", map[string]any{"body": body}, nil)
			return err
		})
}

// statusStates are GitLab's words for the commit status states (it has no "error").
var statusStates = map[string]string{forge.StatusSuccess: "success", forge.StatusFailure: "failed",
	forge.StatusError: "failed", forge.StatusPending: "pending"}

func (c *Client) SetStatus(ctx context.Context, sha string, st forge.Status) error {
	state, ok := statusStates[st.State]
	if !ok {
		return fmt.Errorf("gitlab: status state %q: not one of success, failure, error, pending: %w", st.State, forge.ErrForge)
	}
	in := map[string]any{"state": state, "name": st.Context, "description": st.Description}
	if st.TargetURL != "" {
		in["target_url"] = st.TargetURL
	}
	_, err := c.api.Do(ctx, "POST", "/projects/"+c.project+"/statuses/"+rest.PathEscape(sha), in, nil)
	return err
}

// Merge merges with message as the merge commit's message; GitLab refuses (409) when the head is
// no longer headSHA, (405, 422) when the merge request cannot be merged.
func (c *Client) Merge(ctx context.Context, number int, headSHA, message string) error {
	_, err := c.api.Do(ctx, "PUT", c.mr(number)+"/merge", map[string]any{"merge_commit_message": message,
		"sha": headSHA, "should_remove_source_branch": false}, nil)
	return err
}

// Package gitea is the forge client for Gitea and Forgejo (API v1, under /api/v1): pull requests,
// their reviews (with Gitea's stale and dismissed flags), issue comments and commit statuses.
// Plain net/http through forge/internal/rest: the SDK (code.gitea.io/sdk) would bring a module
// and its dependencies for the dozen calls made here.
package gitea

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/archiplan/archiplan/forge"
	"github.com/archiplan/archiplan/forge/internal/rest"
)

func init() {
	forge.Register("gitea", func(c forge.Config) (forge.Forge, error) { return New(c) })
	forge.Register("forgejo", func(c forge.Config) (forge.Forge, error) { return New(c) })
}

// Client is one repository on a Gitea or Forgejo.
type Client struct {
	api         rest.Client
	web         string
	owner, name string
	meOnce      sync.Once
	me          string
	meErr       error
}

// New is the client of cfg (URL required: there is no one Gitea).
func New(cfg forge.Config) (*Client, error) {
	if cfg.URL == "" {
		return nil, fmt.Errorf("forge.url: a Gitea's address is required: %w", forge.ErrForge)
	}
	web, err := forge.CheckURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	owner, name, ok := strings.Cut(cfg.Repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, fmt.Errorf("forge.repo %q: want owner/name: %w", cfg.Repo, forge.ErrForge)
	}
	token := forge.Token(cfg, web)
	c := &Client{web: web.String(), owner: owner, name: name}
	c.api = rest.Client{Forge: "gitea", Base: web.String() + "/api/v1", Token: token, HTTP: cfg.HTTP,
		Header: http.Header{"Accept": {"application/json"}},
		Auth: func(h http.Header) {
			if token != "" {
				h.Set("Authorization", "token "+token)
			}
		}}
	return c, nil
}

// SetBackoff shortens the wait between retries (tests).
func (c *Client) SetBackoff(d time.Duration) { c.api.Backoff = d }

func (c *Client) Kind() string { return "gitea" }

func (c *Client) repo() string {
	return "/repos/" + rest.PathEscape(c.owner) + "/" + rest.PathEscape(c.name)
}

// pull is what the client reads of Gitea's PullRequest.
type pull struct {
	Number    int    `json:"number"`
	HTMLURL   string `json:"html_url"`
	Title     string `json:"title"`
	Body      string `json:"body"`
	State     string `json:"state"`
	Merged    bool   `json:"merged"`
	Mergeable bool   `json:"mergeable"`
	User      struct {
		Login string `json:"login"`
	} `json:"user"`
	Head struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	} `json:"head"`
	Base struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	} `json:"base"`
}

func (p pull) pr() forge.PR {
	return forge.PR{Number: p.Number, URL: p.HTMLURL, Title: p.Title, Body: p.Body, Head: p.Head.Ref,
		HeadSHA: p.Head.SHA, Base: p.Base.Ref, BaseSHA: p.Base.SHA, State: p.State, Merged: p.Merged,
		Mergeable: p.Mergeable, Author: p.User.Login}
}

func (c *Client) OpenPR(ctx context.Context, n forge.NewPR) (forge.PR, error) {
	var p pull
	_, err := c.api.Do(ctx, "POST", c.repo()+"/pulls", map[string]any{"title": n.Title, "body": n.Body,
		"head": n.Head, "base": n.Base}, &p)
	return p.pr(), err
}

func (c *Client) EditPR(ctx context.Context, number int, title, body string) error {
	_, err := c.api.Do(ctx, "PATCH", c.repo()+"/pulls/"+strconv.Itoa(number), map[string]any{"title": title, "body": body}, nil)
	return err
}

func (c *Client) PR(ctx context.Context, number int) (forge.PR, error) {
	var p pull
	_, err := c.api.Do(ctx, "GET", c.repo()+"/pulls/"+strconv.Itoa(number), nil, &p)
	return p.pr(), err
}

// pageSize is how many items a list asks for per page (Gitea's default MAX_RESPONSE_ITEMS is 50).
const pageSize = 50

func (c *Client) FindPR(ctx context.Context, head string) (forge.PR, bool, error) {
	var found *pull
	err := rest.Pages(pageSize, func(page int) (int, bool, error) {
		var ps []pull
		_, err := c.api.Do(ctx, "GET", fmt.Sprintf("%s/pulls?state=open&page=%d&limit=%d", c.repo(), page, pageSize), nil, &ps)
		for i := range ps {
			if ps[i].Head.Ref == head {
				found = &ps[i]
				return len(ps), true, err
			}
		}
		return len(ps), false, err
	})
	if err != nil || found == nil {
		return forge.PR{}, false, err
	}
	return found.pr(), true, nil
}

func (c *Client) Reviews(ctx context.Context, number int) ([]forge.Review, error) {
	var out []forge.Review
	err := rest.Pages(pageSize, func(page int) (int, bool, error) {
		var rs []struct {
			User struct {
				Login string `json:"login"`
			} `json:"user"`
			State       string    `json:"state"`
			CommitID    string    `json:"commit_id"`
			SubmittedAt time.Time `json:"submitted_at"`
			Stale       bool      `json:"stale"`
			Dismissed   bool      `json:"dismissed"`
		}
		_, err := c.api.Do(ctx, "GET", fmt.Sprintf("%s/pulls/%d/reviews?page=%d&limit=%d", c.repo(), number, page, pageSize), nil, &rs)
		for _, r := range rs {
			if r.State == "PENDING" || r.State == "REQUEST_REVIEW" {
				continue // not given yet: a draft, or a request for one
			}
			out = append(out, forge.Review{User: r.User.Login, State: r.State, CommitID: r.CommitID,
				At: r.SubmittedAt, Stale: r.Stale || r.Dismissed})
		}
		return len(rs), false, err
	})
	return out, err
}

// whoami is the token's user, asked once.
func (c *Client) whoami(ctx context.Context) (string, error) {
	c.meOnce.Do(func() {
		var u struct {
			Login string `json:"login"`
		}
		_, c.meErr = c.api.Do(ctx, "GET", "/user", nil, &u)
		c.me = u.Login
	})
	return c.me, c.meErr
}

func (c *Client) Comment(ctx context.Context, number int, marker, body string) error {
	me, err := c.whoami(ctx)
	if err != nil {
		return err
	}
	// Gitea lists an issue's comments whole (page and limit are ignored there): one page
	return rest.KeepComment(math.MaxInt, func(int) ([]rest.Note, int, error) {
		var cs []struct {
			ID   int64  `json:"id"`
			Body string `json:"body"`
			User struct {
				Login string `json:"login"`
			} `json:"user"`
		}
		_, err := c.api.Do(ctx, "GET", fmt.Sprintf("%s/issues/%d/comments", c.repo(), number), nil, &cs)
		notes := make([]rest.Note, len(cs))
		for i, cm := range cs {
			notes[i] = rest.Note{ID: cm.ID, Body: cm.Body, User: cm.User.Login}
		}
		return notes, len(cs), err
	}, func(n rest.Note) bool { return n.User == me }, marker, body,
		func(id int64, body string) error {
			_, err := c.api.Do(ctx, "PATCH", fmt.Sprintf("%s/issues/comments/%d", c.repo(), id), map[string]any{"body": body}, nil)
			return err
		}, func(body string) error {
			_, err := c.api.Do(ctx, "POST", fmt.Sprintf("%s/issues/%d/comments", c.repo(), number), map[string]any{"body": body}, nil)
			return err
		})
}

func (c *Client) SetStatus(ctx context.Context, sha string, st forge.Status) error {
	_, err := c.api.Do(ctx, "POST", c.repo()+"/statuses/"+rest.PathEscape(sha), map[string]any{
		"state": st.State, "context": st.Context, "description": st.Description, "target_url": st.TargetURL}, nil)
	return err
}

// Merge merges with a merge commit whose title is message's first line and whose body is the
// rest; Gitea refuses (409 "head out of date") when the head is no longer headSHA.
func (c *Client) Merge(ctx context.Context, number int, headSHA, message string) error {
	title, body, _ := strings.Cut(message, "\n")
	// fast-forward: the apply commit itself becomes the base's head, on its first-parent history,
	// where archiplan log and revert read applied plans (a merge commit would hide it)
	args := map[string]any{"do": "fast-forward-only", "merge_title_field": title,
		"merge_message_field": strings.TrimSpace(body), "head_commit_id": headSHA}
	// Gitea answers 405 "Please try again later" while it is still checking whether the pull
	// request can be merged (a busy server takes seconds after the push); that is a state to wait
	// out, not a refusal: ask again, a little later each time, until it answers or ctx ends
	var busy error // the last "try again later"
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
		_, err := c.api.Do(ctx, "POST", fmt.Sprintf("%s/pulls/%d/merge", c.repo(), number), args, nil)
		if err != nil && busy != nil && ctx.Err() != nil {
			return stillChecking(ctx, number, busy)
		}
		if err == nil || !strings.Contains(err.Error(), "try again later") {
			return err
		}
		busy = err
		select {
		case <-ctx.Done():
			return stillChecking(ctx, number, busy)
		case <-time.After(wait):
		}
	}
}

// stillChecking is why a merge Gitea kept answering "try again later" was given up: ctx ended
// (both errors wrapped: a forge refusal, and the context's end).
func stillChecking(ctx context.Context, number int, busy error) error {
	return fmt.Errorf("merge pull request %d: Gitea was still checking whether it can be merged when the wait ended (%w): %w",
		number, ctx.Err(), busy)
}

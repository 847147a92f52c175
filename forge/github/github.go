// Package github is the forge client for GitHub and GitHub Enterprise Server (REST API, version
// 2022-11-28): pull requests, their reviews, issue comments and commit statuses. Plain net/http
// through forge/internal/rest, as the other clients: go-github would bring a large module for a
// dozen calls.
package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/archiplan/archiplan/forge"
	"github.com/archiplan/archiplan/forge/internal/rest"
)

// APIVersion is the REST API version asked for (the X-GitHub-Api-Version header).
const APIVersion = "2022-11-28"

func init() {
	forge.Register("github", func(c forge.Config) (forge.Forge, error) { return New(c) })
}

// Client is one repository on GitHub.
type Client struct {
	api         rest.Client
	owner, name string
	meOnce      sync.Once
	me          string // "" when the token may not read /user (an Actions or App token)
	meErr       error
}

// New is the client of cfg: github.com's API at https://api.github.com, an Enterprise Server's at
// URL/api/v3.
func New(cfg forge.Config) (*Client, error) {
	raw := cfg.URL
	if raw == "" {
		raw = "https://github.com"
	}
	web, err := forge.CheckURL(raw)
	if err != nil {
		return nil, err
	}
	base := web.String() + "/api/v3"
	if web.Host == "github.com" || web.Host == "www.github.com" {
		base = "https://api.github.com"
	}
	owner, name, ok := strings.Cut(cfg.Repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, fmt.Errorf("forge.repo %q: want owner/name: %w", cfg.Repo, forge.ErrForge)
	}
	token := forge.Token(cfg, web)
	c := &Client{owner: owner, name: name}
	c.api = rest.Client{Forge: "github", Base: base, Token: token, HTTP: cfg.HTTP,
		Header: http.Header{"Accept": {"application/vnd.github+json"}, "X-Github-Api-Version": {APIVersion}},
		Auth: func(h http.Header) {
			if token != "" {
				h.Set("Authorization", "Bearer "+token)
			}
		}}
	return c, nil
}

// SetBackoff shortens the wait between retries (tests).
func (c *Client) SetBackoff(d time.Duration) { c.api.Backoff = d }

func (c *Client) Kind() string { return "github" }

func (c *Client) repo() string {
	return "/repos/" + rest.PathEscape(c.owner) + "/" + rest.PathEscape(c.name)
}

// pageSize is the most GitHub gives per page.
const pageSize = 100

type user struct {
	Login string `json:"login"`
	Type  string `json:"type"` // "User", "Bot"
}

// pull is what the client reads of a pull request.
type pull struct {
	Number    int    `json:"number"`
	HTMLURL   string `json:"html_url"`
	Title     string `json:"title"`
	Body      string `json:"body"`
	State     string `json:"state"`
	Merged    bool   `json:"merged"`
	Mergeable *bool  `json:"mergeable"` // null while GitHub computes it
	User      user   `json:"user"`
	Head      struct {
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
		Mergeable: p.Mergeable != nil && *p.Mergeable, Author: p.User.Login}
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

// FindPR asks for the open pull requests whose head is owner:head (the repository's own branch).
func (c *Client) FindPR(ctx context.Context, head string) (forge.PR, bool, error) {
	var ps []pull
	q := url.Values{"state": {"open"}, "head": {c.owner + ":" + head}, "per_page": {strconv.Itoa(pageSize)}}
	if _, err := c.api.Do(ctx, "GET", c.repo()+"/pulls?"+q.Encode(), nil, &ps); err != nil {
		return forge.PR{}, false, err
	}
	for _, p := range ps {
		if p.Head.Ref == head {
			return p.pr(), true, nil
		}
	}
	return forge.PR{}, false, nil
}

// states are GitHub's review states in the words every client reports.
var states = map[string]string{"APPROVED": forge.ReviewApproved, "CHANGES_REQUESTED": forge.ReviewChangesRequested,
	"COMMENTED": forge.ReviewCommented}

// Reviews lists the reviews; a review dismissed (by a person, or by branch protection's "dismiss
// stale approvals" after a push) is reported Stale with GitHub's word DISMISSED.
func (c *Client) Reviews(ctx context.Context, number int) ([]forge.Review, error) {
	var out []forge.Review
	err := rest.Pages(pageSize, func(page int) (int, bool, error) {
		var rs []struct {
			User        user      `json:"user"`
			State       string    `json:"state"`
			CommitID    string    `json:"commit_id"`
			SubmittedAt time.Time `json:"submitted_at"`
		}
		_, err := c.api.Do(ctx, "GET", fmt.Sprintf("%s/pulls/%d/reviews?per_page=%d&page=%d", c.repo(), number, pageSize, page), nil, &rs)
		for _, r := range rs {
			if r.State == "PENDING" {
				continue // a draft its author has not submitted
			}
			state, ok := states[r.State]
			if !ok {
				state = r.State
			}
			out = append(out, forge.Review{User: r.User.Login, State: state, CommitID: r.CommitID, At: r.SubmittedAt,
				Stale: r.State == "DISMISSED"})
		}
		return len(rs), false, err
	})
	return out, err
}

// whoami is the token's user; "" when the token may not read it (GitHub Actions' GITHUB_TOKEN,
// an App's installation token: 403), and then the client's comments are those of bots.
func (c *Client) whoami(ctx context.Context) (string, error) {
	c.meOnce.Do(func() {
		var u user
		_, c.meErr = c.api.Do(ctx, "GET", "/user", nil, &u)
		if rest.Status(c.meErr) == http.StatusForbidden {
			c.meErr = nil
		}
		c.me = u.Login
	})
	return c.me, c.meErr
}

func (c *Client) Comment(ctx context.Context, number int, marker, body string) error {
	me, err := c.whoami(ctx)
	if err != nil {
		return err
	}
	bots := map[string]bool{}
	return rest.KeepComment(pageSize, func(page int) ([]rest.Note, int, error) {
		var cs []struct {
			ID   int64  `json:"id"`
			Body string `json:"body"`
			User user   `json:"user"`
		}
		_, err := c.api.Do(ctx, "GET", fmt.Sprintf("%s/issues/%d/comments?per_page=%d&page=%d", c.repo(), number, pageSize, page), nil, &cs)
		notes := make([]rest.Note, len(cs))
		for i, cm := range cs {
			notes[i] = rest.Note{ID: cm.ID, Body: cm.Body, User: cm.User.Login}
			bots[cm.User.Login] = cm.User.Type == "Bot"
		}
		return notes, len(cs), err
	}, func(n rest.Note) bool { return n.User == me || (me == "" && bots[n.User]) }, marker, body,
		func(id int64, body string) error {
			_, err := c.api.Do(ctx, "PATCH", fmt.Sprintf("%s/issues/comments/%d", c.repo(), id), map[string]any{"body": body}, nil)
			return err
		}, func(body string) error {
			_, err := c.api.Do(ctx, "POST", fmt.Sprintf("%s/issues/%d/comments", c.repo(), number), map[string]any{"body": body}, nil)
			return err
		})
}

// maxDescription is the longest status description GitHub takes.
const maxDescription = 140

func (c *Client) SetStatus(ctx context.Context, sha string, st forge.Status) error {
	d := st.Description
	if utf8.RuneCountInString(d) > maxDescription {
		d = string([]rune(d)[:maxDescription-1]) + "…"
	}
	in := map[string]any{"state": st.State, "context": st.Context, "description": d}
	if st.TargetURL != "" {
		in["target_url"] = st.TargetURL
	}
	_, err := c.api.Do(ctx, "POST", c.repo()+"/statuses/"+rest.PathEscape(sha), in, nil)
	return err
}

// Merge merges with a merge commit titled by message's first line, the rest its body; GitHub
// refuses (409) when the head is no longer headSHA, (405) when it cannot be merged.
func (c *Client) Merge(ctx context.Context, number int, headSHA, message string) error {
	title, body, _ := strings.Cut(message, "\n")
	var out struct {
		Merged bool `json:"merged"`
	}
	_, err := c.api.Do(ctx, "PUT", fmt.Sprintf("%s/pulls/%d/merge", c.repo(), number), map[string]any{
		"commit_title": title, "commit_message": strings.TrimSpace(body), "sha": headSHA, "merge_method": "merge"}, &out)
	if err == nil && !out.Merged {
		err = fmt.Errorf("github: PUT %s/pulls/%d/merge: answered not merged: %w", c.repo(), number, errors.Join(forge.ErrForge, forge.ErrRefused))
	}
	return err
}

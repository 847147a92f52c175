// Package forge speaks to the team's forge (Gitea/Forgejo, GitHub, GitLab) about pull requests: the
// forge is the engine that authenticates people, holds the discussion and enforces branch rules,
// and archiplan asks it only what an approval needs. One small interface, one client per forge;
// tokens travel only in a request's header and never reach a log, an error or a commit.
package forge

import (
	"context"
	"time"
)

// Forge is one repository on one forge, as the token's owner sees it.
type Forge interface {
	// Kind names the forge ("gitea", "github", "gitlab").
	Kind() string
	// OpenPR opens a pull request from Head into Base.
	OpenPR(ctx context.Context, pr NewPR) (PR, error)
	// EditPR replaces a pull request's title and description.
	EditPR(ctx context.Context, number int, title, body string) error
	// PR reads one pull request as it is now.
	PR(ctx context.Context, number int) (PR, error)
	// FindPR finds the open pull request whose head branch is head (ok false when there is none).
	FindPR(ctx context.Context, head string) (pr PR, ok bool, err error)
	// Reviews lists a pull request's reviews, oldest first.
	Reviews(ctx context.Context, number int) ([]Review, error)
	// Comment keeps one comment on a pull request per marker: the first call posts it, later
	// calls edit that comment in place (never one comment per push). The marker is an invisible
	// line the client writes into the body and finds again; only comments by the token's own
	// user are considered.
	Comment(ctx context.Context, number int, marker, body string) error
	// SetStatus sets a commit status (a check) on sha.
	SetStatus(ctx context.Context, sha string, st Status) error
	// Merge merges a pull request whose head is still headSHA (the forge refuses when it moved).
	Merge(ctx context.Context, number int, headSHA, message string) error
}

// NewPR is a pull request to open.
type NewPR struct {
	Title, Body string
	Head, Base  string // branch names
}

// PR is a pull request as the forge reports it.
type PR struct {
	Number    int
	URL       string // the page a person opens
	Title     string
	Body      string
	Head      string // branch
	HeadSHA   string
	Base      string // branch
	BaseSHA   string // the base branch's commit the forge compares against
	State     string // "open", "closed"
	Merged    bool
	Mergeable bool
	Author    string
}

// Review is one review of a pull request.
type Review struct {
	User     string
	State    string // ReviewApproved, ReviewChangesRequested, ReviewCommented, or the forge's own word
	CommitID string // the head the review was given on
	At       time.Time
	Stale    bool // the forge says a later push voided it (Gitea's "stale", GitLab's reset approvals)
}

// Review states, as every client reports them.
const (
	ReviewApproved         = "APPROVED"
	ReviewChangesRequested = "REQUEST_CHANGES"
	ReviewCommented        = "COMMENT"
)

// Status is a commit status.
type Status struct {
	Context     string // "archiplan/preview"
	State       string // StatusSuccess, StatusFailure, StatusPending, StatusError
	Description string // one line
	TargetURL   string
}

// Commit status states.
const (
	StatusSuccess = "success"
	StatusFailure = "failure"
	StatusPending = "pending"
	StatusError   = "error"
)

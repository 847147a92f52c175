package pullreq_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/forge"
)

// repoForge is a forge for tests that behaves like one where it matters here: its repository is a
// real bare git repository (the workspace's origin), so branches, heads and bases are what git
// says; pull requests, reviews, comments and statuses are kept in memory as a forge keeps them in
// its database. Merge is a fast-forward of the base to the head, refused when the head moved or
// the base is not under it.
type repoForge struct {
	t    testing.TB
	bare string
	mu   sync.Mutex
	prs  []*fakePR
	// statuses by commit and context
	statuses map[string]map[string]forge.Status
	posts    int // comments posted (not edited)
	// lag makes the API report a pull request's head as it was when last read with lag off, as
	// Gitea does for a moment after a push (it updates refs/pull/N/head from a queue)
	lag bool
}

type fakePR struct {
	forge.PR
	reviews  []forge.Review
	comments map[string]string
}

func newRepoForge(t testing.TB, bare string) *repoForge {
	return &repoForge{t: t, bare: bare, statuses: map[string]map[string]forge.Status{}}
}

func (f *repoForge) Kind() string { return "gitea" }

func (f *repoForge) ref(branch string) string {
	out, err := ledgertest.GitErr(f.bare, "rev-parse", "-q", "--verify", "refs/heads/"+branch)
	if err != nil {
		return ""
	}
	return out
}

func (f *repoForge) find(n int) (*fakePR, error) {
	if n < 1 || n > len(f.prs) {
		return nil, fmt.Errorf("pull request %d: 404 Not Found", n)
	}
	return f.prs[n-1], nil
}

func (f *repoForge) live(p *fakePR) forge.PR {
	if p.State == "open" && (!f.lag || p.HeadSHA == "") {
		p.HeadSHA = f.ref(p.Head)
	}
	pr := p.PR
	if pr.State == "open" {
		pr.BaseSHA = f.ref(pr.Base)
	}
	return pr
}

func (f *repoForge) OpenPR(_ context.Context, n forge.NewPR) (forge.PR, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ref(n.Head) == "" || f.ref(n.Base) == "" {
		return forge.PR{}, fmt.Errorf("open a pull request: 404 no branch %s or %s", n.Head, n.Base)
	}
	num := len(f.prs) + 1
	p := &fakePR{PR: forge.PR{Number: num, URL: fmt.Sprintf("http://forge.test/team/model/pulls/%d", num), Title: n.Title, Body: n.Body,
		Head: n.Head, Base: n.Base, State: "open", Mergeable: true, Author: "bot"}, comments: map[string]string{}}
	f.prs = append(f.prs, p)
	return f.live(p), nil
}

func (f *repoForge) EditPR(_ context.Context, n int, title, body string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.find(n)
	if err != nil {
		return err
	}
	p.Title, p.Body = title, body
	return nil
}

func (f *repoForge) PR(_ context.Context, n int) (forge.PR, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.find(n)
	if err != nil {
		return forge.PR{}, err
	}
	return f.live(p), nil
}

func (f *repoForge) FindPR(_ context.Context, head string) (forge.PR, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.prs {
		if p.Head == head && p.State == "open" {
			return f.live(p), true, nil
		}
	}
	return forge.PR{}, false, nil
}

func (f *repoForge) Reviews(_ context.Context, n int) ([]forge.Review, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.find(n)
	if err != nil {
		return nil, err
	}
	return append([]forge.Review(nil), p.reviews...), nil
}

// review is a person's review of a pull request's head as it is now.
func (f *repoForge) review(n int, user, state string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.find(n)
	if err != nil {
		f.t.Fatal(err)
	}
	head := f.ref(p.Head)
	p.reviews = append(p.reviews, forge.Review{User: user, State: state, CommitID: head, At: time.Now()})
	return head
}

func (f *repoForge) Comment(_ context.Context, n int, marker, body string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.find(n)
	if err != nil {
		return err
	}
	if _, ok := p.comments[marker]; !ok {
		f.posts++
	}
	p.comments[marker] = body
	return nil
}

func (f *repoForge) SetStatus(_ context.Context, sha string, st forge.Status) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := ledgertest.GitErr(f.bare, "cat-file", "-e", sha+"^{commit}"); err != nil {
		return fmt.Errorf("status of %s: 404 no such commit", sha)
	}
	if f.statuses[sha] == nil {
		f.statuses[sha] = map[string]forge.Status{}
	}
	f.statuses[sha][st.Context] = st
	return nil
}

func (f *repoForge) status(sha, context string) forge.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.statuses[sha][context]
}

func (f *repoForge) Merge(_ context.Context, n int, headSHA, message string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.find(n)
	if err != nil {
		return err
	}
	if p.State != "open" {
		return fmt.Errorf("merge %d: 405 pull request is closed", n)
	}
	if head := f.ref(p.Head); head != headSHA {
		return fmt.Errorf("merge %d: 409 head moved to %s", n, head)
	}
	base := f.ref(p.Base)
	if _, err := ledgertest.GitErr(f.bare, "merge-base", "--is-ancestor", base, headSHA); err != nil {
		return fmt.Errorf("merge %d: 405 not fast-forwardable", n)
	}
	if out, err := ledgertest.GitErr(f.bare, "update-ref", "refs/heads/"+p.Base, headSHA, base); err != nil {
		return fmt.Errorf("merge %d: %s", n, out)
	}
	p.State, p.Merged, p.HeadSHA, p.BaseSHA = "closed", true, headSHA, base
	return nil
}

func (f *repoForge) body(n int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.find(n)
	if err != nil {
		f.t.Fatal(err)
	}
	return p.Body
}

func (f *repoForge) comment(n int, marker string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.find(n)
	if err != nil {
		f.t.Fatal(err)
	}
	return p.comments[marker]
}

var _ forge.Forge = (*repoForge)(nil)

func hasLine(s, line string) bool {
	for _, l := range strings.Split(s, "\n") {
		if l == line {
			return true
		}
	}
	return false
}

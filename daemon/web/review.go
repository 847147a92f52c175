package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/daemon/web/pages"
)

// Reviews is what a Backend may also do: show what a local branch changes against the branch
// the workspace is on, as a plan's preview shows a plan (archiplan review CURRENT..BRANCH).
type Reviews interface {
	// Branches are the local branches, and the one the workspace is on ("" when none).
	Branches() (current string, branches []string, err error)
	// Review is CURRENT..BRANCH reviewed; ErrNotFound when BRANCH is no local branch.
	Review(branch string) (*ReviewPage, error)
}

// ReviewPage is a branch reviewed.
type ReviewPage struct {
	Branch, Current string
	Markdown        []byte            // the review's Markdown, as archiplan wrote it
	Pictures        map[string][]byte // the pictures it shows, by file name
}

// review lists the local branches and shows the review of the one asked for (?branch=NAME).
func (s *Server) review(w http.ResponseWriter, r *http.Request) {
	rb, ok := s.cfg.Backend.(Reviews)
	if !ok {
		s.fail(w, r, fmt.Errorf("reviews: %w", ErrNotFound))
		return
	}
	current, branches, err := rb.Branches()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	others := slices.DeleteFunc(slices.Clone(branches), func(b string) bool { return b == current })
	branch := r.URL.Query().Get("branch")
	var shown any
	if branch != "" {
		rp, err := rb.Review(branch)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		shown = pages.MarkdownWith(rp.Markdown, func(dest string, _ bool) string {
			if _, ok := rp.Pictures[dest]; ok {
				return s.base + "/review/picture?branch=" + url.QueryEscape(branch) + "&file=" + url.QueryEscape(dest)
			}
			return ""
		})
	}
	title := "Review"
	if branch != "" {
		title = "Review " + branch
	}
	s.render(w, http.StatusOK, "review", struct {
		common
		Current  string
		Branches []string
		Branch   string
		Review   any
	}{s.common(title, "review"), current, others, branch, shown})
}

// reviewPicture is one picture of a branch's review, only as archiplan drew it.
func (s *Server) reviewPicture(w http.ResponseWriter, r *http.Request) {
	rb, ok := s.cfg.Backend.(Reviews)
	if !ok {
		http.NotFound(w, r)
		return
	}
	rp, err := rb.Review(r.URL.Query().Get("branch"))
	if err != nil {
		http.Error(w, err.Error(), statusOf(err))
		return
	}
	data, ok := rp.Pictures[r.URL.Query().Get("file")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	writeSVG(w, data)
}

// Branches implements Reviews.
func (l *Local) Branches() (string, []string, error) { return l.ws.Branches() }

// Review implements Reviews: the branch against the one the workspace is on, read from the
// models (ledger.ReviewRange), the last one kept while neither branch moves.
func (l *Local) Review(branch string) (*ReviewPage, error) {
	current, branches, err := l.ws.Branches()
	if err != nil {
		return nil, err
	}
	if !slices.Contains(branches, branch) {
		// only a local branch's name, as git lists it, ever reaches git
		return nil, fmt.Errorf("branch %q: %w", branch, ErrNotFound)
	}
	base := current
	if base == "" {
		base = "HEAD"
	}
	from, err1 := l.ws.ResolveCommit(base)
	to, err2 := l.ws.ResolveCommit(branch)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	key := from + ".." + to
	l.rmu.Lock()
	defer l.rmu.Unlock()
	if l.reviewed != nil && l.reviewedKey == key && l.reviewed.Branch == branch {
		return l.reviewed, nil
	}
	rv, err := ledger.ReviewRange(l.ws, base+".."+branch, "review")
	if err != nil {
		return nil, err
	}
	l.reviewed = &ReviewPage{Branch: branch, Current: base, Markdown: rv.Markdown, Pictures: rv.Pictures}
	l.reviewedKey = key
	return l.reviewed, nil
}

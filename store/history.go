package store

import (
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/archiplan/archiplan/internal/lazyre"
)

// Commit trailers archiplan writes and reads back.
const (
	TrailerPlanID        = "Plan-Id"
	TrailerPlanSHA256    = "Plan-Sha256"
	TrailerBaseCommit    = "Base-Commit"
	TrailerApprovedBy    = "Approved-By"
	TrailerRevertsPlan   = "Reverts-Plan"
	TrailerRevertsCommit = "Reverts-Commit"
)

// CommitInfo is one commit of the branch's first-parent history.
type CommitInfo struct {
	Hash      string
	Parent    string // first parent ("" for the root commit)
	Merge     bool   // more than one parent
	When      time.Time
	Author    string
	Subject   string
	Message   string
	Trailers  map[string]string
	ModelBlob string // the model's blob at this commit ("" when absent)
	// GitReverts is the commit a plain `git revert` of this commit names ("This reverts commit X.")
	GitReverts string
	// Via is, for a commit a merge brought from its other side (SideCommits), that merge
	Via string
}

var revertLine = lazyre.New(`This reverts commit ([0-9a-f]{40})`)

// History walks the first-parent history from HEAD, newest first, until stop returns true for a
// commit (which is included) or the history ends.
func (w *Workspace) History(stop func(CommitInfo) bool) ([]CommitInfo, error) {
	head, err := w.Head()
	if err != nil || head == "" {
		return nil, err
	}
	return w.historyFrom(head, stop)
}

// HistoryFrom is History from a commit, its newest n commits at most (n <= 0: all).
func (w *Workspace) HistoryFrom(commit string, n int) ([]CommitInfo, error) {
	if n <= 0 {
		return w.historyFrom(commit, nil)
	}
	return w.historyFrom(commit, func(CommitInfo) bool { n--; return n == 0 })
}

// historyFrom walks the first-parent history from a commit, as History does from HEAD.
func (w *Workspace) historyFrom(head string, stop func(CommitInfo) bool) ([]CommitInfo, error) {
	var out []CommitInfo
	h := plumbing.NewHash(head)
	for {
		c, err := w.git().CommitObject(h)
		if err != nil {
			return nil, fmt.Errorf("read commit %s: %w", h.String()[:12], err)
		}
		info := w.infoOf(c)
		out = append(out, info)
		if stop != nil && stop(info) {
			return out, nil
		}
		if len(c.ParentHashes) == 0 {
			return out, nil
		}
		h = c.ParentHashes[0]
	}
}

// infoOf is what History says of the commit c.
func (w *Workspace) infoOf(c *object.Commit) CommitInfo {
	info := CommitInfo{Hash: c.Hash.String(), When: c.Author.When, Author: c.Author.Name + " <" + c.Author.Email + ">",
		Trailers: trailers(c.Message), Message: c.Message}
	info.Subject, _, _ = strings.Cut(c.Message, "\n")
	if m := revertLine.FindStringSubmatch(c.Message); m != nil {
		info.GitReverts = m[1]
	}
	// the model's blob id from its tree entry: Commit.File would read (inflate) the blob
	if t, err := c.Tree(); err == nil {
		if e, err := t.FindEntry(w.Model); err == nil {
			info.ModelBlob = e.Hash.String()
		}
	}
	if len(c.ParentHashes) > 0 {
		info.Parent = c.ParentHashes[0].String()
	}
	info.Merge = len(c.ParentHashes) > 1
	return info
}

// SideCommits are the commits the merges of line (a first-parent history, as History gives it)
// brought from their other parents: every commit reachable from those parents that is not on
// line, newest merge first, each side walked from its tip, each with Via, the merge that brought it
// (the oldest one, when a later merge of the same branch reaches it again). A colleague's apply
// merged by a plain git pull lies there, not on the first-parent line.
func (w *Workspace) SideCommits(line []CommitInfo) ([]CommitInfo, error) {
	return w.SideCommitsSince(line, time.Time{})
}

// SideCommitsSince is SideCommits for a line that is the newest part of the history only (a
// page of it, since its oldest commit's time): a side is not walked into commits committed
// before since, where the first-parent line beyond the page would stop it (an older page, read
// with an earlier since, lists them).
func (w *Workspace) SideCommitsSince(line []CommitInfo, since time.Time) ([]CommitInfo, error) {
	seen := map[plumbing.Hash]bool{}
	for _, c := range line {
		seen[plumbing.NewHash(c.Hash)] = true
	}
	var sides [][]CommitInfo
	for i := len(line) - 1; i >= 0; i-- { // oldest merge first: it brought what later ones reach again
		m := line[i]
		if !m.Merge {
			continue
		}
		mc, err := w.git().CommitObject(plumbing.NewHash(m.Hash))
		if err != nil {
			return nil, fmt.Errorf("read commit %s: %w", m.Hash[:12], err)
		}
		var side []CommitInfo
		queue := append([]plumbing.Hash(nil), mc.ParentHashes[1:]...)
		for len(queue) > 0 {
			h := queue[0]
			queue = queue[1:]
			if seen[h] {
				continue
			}
			seen[h] = true
			c, err := w.git().CommitObject(h)
			if err != nil {
				return nil, fmt.Errorf("read commit %s: %w", h.String()[:12], err)
			}
			if c.Author.When.Before(since) { // the time CommitInfo.When says, as the line's oldest is given
				continue
			}
			info := w.infoOf(c)
			info.Via = m.Hash
			side = append(side, info)
			queue = append(queue, c.ParentHashes...)
		}
		sides = append(sides, side)
	}
	var out []CommitInfo
	for i := len(sides) - 1; i >= 0; i-- {
		out = append(out, sides[i]...)
	}
	return out, nil
}

// trailers reads "Key: value" lines of a message's last paragraph.
func trailers(msg string) map[string]string {
	paras := strings.Split(strings.TrimSpace(msg), "\n\n")
	last := paras[len(paras)-1]
	out := map[string]string{}
	for _, line := range strings.Split(last, "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if ok && !strings.Contains(k, " ") && k != "" {
			out[k] = strings.TrimSpace(v)
		}
	}
	if len(paras) == 1 { // a subject alone has no trailers
		return map[string]string{}
	}
	return out
}

// ResolveCommit expands a commit id or unique prefix to the full id.
func (w *Workspace) ResolveCommit(rev string) (string, error) {
	h, err := w.git().ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return "", fmt.Errorf("no commit %q: %w", rev, err)
	}
	return h.String(), nil
}

// ModelAt reads the model as committed at a commit.
func (w *Workspace) ModelAt(commit string) ([]byte, bool, error) { return w.FileAt(commit, w.Model) }

// Info reads one commit as History describes it.
func (w *Workspace) Info(hash string) (CommitInfo, error) {
	hist, err := w.historyFrom(hash, func(CommitInfo) bool { return true })
	if err != nil || len(hist) == 0 {
		return CommitInfo{}, err
	}
	return hist[0], nil
}

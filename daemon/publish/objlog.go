package publish

import (
	"github.com/archiplan/archiplan/daemon/ledger"
)

// siteObjectLog is one commit of the History section of an object's page: log --object's entry
// (the same index), its words with every character a person cannot see shown as its code.
type siteObjectLog struct {
	Commit, Short, Date, Author, PlanID, Summary, Intent, ApprovedBy string
	Merge                                                            bool
	Changes                                                          []string
}

// siteObjectLogs is what a site reads of the index of objects' histories: opened once for all
// the pages, and the commits of the site's first-parent line, whose entries it shows.
type siteObjectLogs struct {
	x      *ledger.ObjectIndex
	onLine map[string]bool
	// off: the site's commit is not on the branch the index follows (publish --commit of
	// another branch); no section then, rather than a history that misses its commits
	off bool
}

// objectHistory is the History of one object on its page, newest first, up to the site's commit.
func (s *siteWriter) objectHistory(id string) ([]siteObjectLog, error) {
	h := &s.objLogs
	if on, err := s.historyOn(); !on || err != nil {
		return nil, err
	}
	entries, err := h.x.Log(id)
	if err != nil {
		return nil, err
	}
	var out []siteObjectLog
	for _, e := range entries {
		if !h.onLine[e.Commit] {
			continue // after the site's commit
		}
		e = e.Shown()
		out = append(out, siteObjectLog{Commit: e.Commit, Short: e.Commit[:min(12, len(e.Commit))], Date: e.Date, Author: e.Author,
			PlanID: e.PlanID, Summary: e.Summary, Intent: e.Intent, ApprovedBy: e.ApprovedBy, Merge: e.Merge, Changes: e.Changes})
	}
	return out, nil
}

// historyOn opens the index of objects' histories for the site's commit, and says whether its
// pages show histories (not when the commit is off the branch the index follows).
func (s *siteWriter) historyOn() (bool, error) {
	h := &s.objLogs
	if h.x != nil || h.off {
		return !h.off, nil
	}
	head, err := s.ws.Head()
	if err != nil {
		return false, err
	}
	if base, err := s.ws.MergeBase(head, s.commit); err != nil || base != s.commit {
		h.off = true
		return false, nil
	}
	if h.x, err = ledger.OpenObjectIndexWith(s.ws, s.models); err != nil {
		return false, err
	}
	h.onLine = make(map[string]bool, len(s.hist))
	for _, c := range s.hist {
		h.onLine[c.Hash] = true
	}
	return true, nil
}

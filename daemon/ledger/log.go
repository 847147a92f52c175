package ledger

import (
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/store"
)

// Kinds of log entries.
const (
	KindApply     = "apply"
	KindRevert    = "revert"
	KindGitRevert = "git-revert"
)

// Entry is one applied or reverted plan, read back from git.
type Entry struct {
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Kind    string `json:"kind"` // apply, revert, git-revert
	PlanID  string `json:"plan_id"`
	Summary string `json:"summary"`
	Author  string `json:"author"`
	Reverts string `json:"reverts,omitempty"` // the commit a revert undoes
	// UndoneBy, for an apply, is a later commit not made by archiplan that put back what the plan
	// changed (Archi saving its in-memory model over the apply, say): the plan is no longer in
	// the model although no revert says so.
	UndoneBy string `json:"undone_by,omitempty"`
}

// Log reads the applied and reverted plans of the branch, newest first.
func Log(ws *store.Workspace) ([]Entry, error) {
	hist, err := ws.History(nil)
	if err != nil {
		return nil, err
	}
	return LogOf(ws, hist), nil
}

// LogOf is Log of a history already read (ws.History's, newest first), for a reader that needs
// the history too and would otherwise walk it twice. hist may be the newest part of the history
// only (a page of it): what an entry says depends on later commits only, and the apply a
// git revert undoes, when older than hist, is read from git.
func LogOf(ws *store.Workspace, hist []store.CommitInfo) []Entry {
	applies := map[string]string{} // apply commit -> plan id
	reverted := map[string]bool{}  // plan ids reverted by archiplan or git
	for _, c := range hist {
		if id := c.Trailers[store.TrailerPlanID]; id != "" {
			applies[c.Hash] = id
		}
	}
	for _, c := range hist {
		if _, ok := applies[c.GitReverts]; c.GitReverts != "" && !ok {
			if info, err := ws.Info(c.GitReverts); err == nil && info.Hash == c.GitReverts {
				applies[c.GitReverts] = info.Trailers[store.TrailerPlanID]
			}
		}
	}
	entries := []Entry{}
	for i, c := range hist {
		e := Entry{Commit: c.Hash, Date: c.When.UTC().Format("2006-01-02T15:04:05Z"), Author: c.Author}
		switch {
		case c.Trailers[store.TrailerPlanID] != "":
			e.Kind, e.PlanID, e.Summary = KindApply, c.Trailers[store.TrailerPlanID], strings.TrimPrefix(c.Subject, "plan: ")
			if !reverted[e.PlanID] {
				e.UndoneBy = undoneBy(ws, hist[:i], c)
			}
		case c.Trailers[store.TrailerRevertsPlan] != "":
			e.Kind, e.PlanID, e.Reverts = KindRevert, c.Trailers[store.TrailerRevertsPlan], c.Trailers[store.TrailerRevertsCommit]
			e.Summary = strings.TrimPrefix(c.Subject, "revert: ")
			reverted[e.PlanID] = true
		case applies[c.GitReverts] != "":
			e.Kind, e.PlanID, e.Reverts, e.Summary = KindGitRevert, applies[c.GitReverts], c.GitReverts, c.Subject
			reverted[e.PlanID] = true
		default:
			continue
		}
		entries = append(entries, e)
	}
	return entries
}

// undoneBy finds the oldest later commit, not archiplan's, after which every object the plan
// changed is again as it was before the plan: the plan silently undone. later is newest first.
func undoneBy(ws *store.Workspace, later []store.CommitInfo, apply store.CommitInfo) string {
	var suspects []store.CommitInfo
	for i := len(later) - 1; i >= 0; i-- {
		c := later[i]
		if c.Trailers[store.TrailerPlanID] == "" && c.Trailers[store.TrailerRevertsPlan] == "" && c.GitReverts == "" &&
			c.ModelBlob != "" && c.ModelBlob != parentBlob(later, i, apply) {
			suspects = append(suspects, c)
		}
	}
	if len(suspects) == 0 {
		return ""
	}
	id := apply.Trailers[store.TrailerPlanID]
	a, err := ReadArchive(ws, apply.Hash, id)
	if err != nil || len(a.Inverse.Touched) == 0 {
		return ""
	}
	before, err := modelAt(ws, apply.Parent)
	if err != nil {
		return ""
	}
	for _, c := range suspects {
		after, err := modelAt(ws, c.Hash)
		if err != nil {
			continue
		}
		same := true
		for _, t := range a.Inverse.Touched {
			x, okX := objectXML(before, t)
			y, okY := objectXML(after, t)
			if okX != okY || x != y {
				same = false
				break
			}
		}
		if same {
			return c.Hash
		}
	}
	return ""
}

// parentBlob is the model blob of the commit before later[i] (later newest first, apply before
// them all).
func parentBlob(later []store.CommitInfo, i int, apply store.CommitInfo) string {
	if i+1 < len(later) {
		return later[i+1].ModelBlob
	}
	return apply.ModelBlob
}

func modelAt(ws *store.Workspace, commit string) (*archixml.Model, error) {
	data, ok, err := ws.ModelAt(commit)
	if err != nil || !ok {
		return nil, err
	}
	return archixml.Load(data)
}

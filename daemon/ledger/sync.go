package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// Remote says how a workspace shares a git remote with a team.
type Remote struct {
	Name string // a remote of the repository's git config ("origin")
	Pull bool   // fetch and fast-forward on a timer and before each apply
	Push bool   // push each apply commit at once
}

// Dropped is an applied plan that could not go to the remote: the remote changed what it changed,
// or it is no longer valid there. Its local commit is gone; the plan is rejected as stale.
type Dropped struct {
	PlanID string
	Raw    []byte
	Reason string
}

// SyncResult is what a sync did.
type SyncResult struct {
	Pushed  bool
	Rebased int       // local apply commits made again on top of the remote
	Dropped []Dropped // plans rejected as stale
}

// maxPushTries bounds the fetch-rebase-push loop when other daemons keep winning the race.
const maxPushTries = 20

// Pull fetches the remote and fast-forwards the branch when it is only behind: never a merge,
// never a reset that drops local commits. An unreachable remote is reported (ErrUnreachable) and
// work goes on locally.
func (l *Ledger) Pull(ctx context.Context) error {
	r := l.cfg.Remote
	if r.Name == "" || !r.Pull {
		return nil
	}
	return l.locked(func() error { return pullLocked(ctx, l.cfg.Workspace, r) })
}

func pullLocked(ctx context.Context, ws *store.Workspace, r Remote) error {
	if err := ws.Fetch(ctx, r.Name); err != nil {
		return err
	}
	head, err := ws.Head()
	if err != nil {
		return err
	}
	remote, err := ws.RemoteHead(r.Name)
	if err != nil || remote == "" || remote == head {
		return err
	}
	base, err := ws.MergeBase(head, remote)
	if err != nil {
		return err
	}
	if base == head { // only behind: fast-forward
		return ws.MoveBranch(head, remote)
	}
	return nil // ahead, or diverged: Sync pushes (and makes local plans again on top)
}

// Sync pushes the branch's local commits. When the remote moved, it fetches and makes each local
// apply commit again on top of the remote (the same approved plan, validated again there) unless
// the remote changed what the plan changed or the plan is no longer valid; those are dropped and
// reported stale. Then it pushes again. Never a force-push; a commit that cannot be pushed because
// the remote is unreachable stays, and the next sync tries again.
func (l *Ledger) Sync(ctx context.Context) (*SyncResult, error) {
	var res *SyncResult
	err := l.locked(func() error {
		var err error
		res, err = l.sync(ctx)
		return err
	})
	return res, err
}

func (l *Ledger) sync(ctx context.Context) (*SyncResult, error) {
	ws, r, opts := l.cfg.Workspace, l.cfg.Remote, l.Options()
	res := &SyncResult{}
	for try := 0; try < maxPushTries; try++ {
		ahead, _, err := ws.AheadBehind(r.Name)
		if err != nil {
			return res, err
		}
		if remote, _ := ws.RemoteHead(r.Name); remote != "" && ahead == 0 {
			return res, nil // nothing of ours to push
		}
		err = ws.Push(ctx, r.Name)
		if err == nil {
			res.Pushed = true
			return res, nil
		}
		if !errors.Is(err, store.ErrPushRejected) {
			return res, err
		}
		if err := ws.Fetch(ctx, r.Name); err != nil {
			return res, err
		}
		n := len(res.Dropped)
		if err := rebase(ws, r, opts, res); err != nil {
			return res, err
		}
		// each dropped plan's outcome is written before the push that decides the rest: a crash
		// in between leaves it rejected (or, rebased again, rejected again), never lost
		l.rejectDropped(res.Dropped[n:])
	}
	return res, fmt.Errorf("push %s: still rejected after %d tries: %w", r.Name, maxPushTries, store.ErrPushRejected)
}

// rebase makes the local apply commits again on top of the remote's branch, then moves the
// branch there.
func rebase(ws *store.Workspace, r Remote, opts plans.Options, res *SyncResult) error {
	head, err := ws.Head()
	if err != nil {
		return err
	}
	remote, err := ws.RemoteHead(r.Name)
	if err != nil || remote == "" {
		return err
	}
	base, err := ws.MergeBase(head, remote)
	if err != nil {
		return err
	}
	local, err := ws.CommitsBetween(base, head)
	if err != nil {
		return err
	}
	for _, c := range local {
		if c.Trailers[store.TrailerPlanID] == "" && c.Trailers[store.TrailerRevertsPlan] == "" {
			return fmt.Errorf("commit %s (%s) is not archiplan's: %w", store.Short(c.Hash), c.Subject, store.ErrDiverged)
		}
	}
	theirs, err := ws.CommitsBetween(base, remote)
	if err != nil {
		return err
	}
	newest := make([]store.CommitInfo, len(theirs)) // newest first, as conflicting wants
	for i, c := range theirs {
		newest[len(theirs)-1-i] = c
	}
	baseInfo, err := ws.Info(base)
	if err != nil {
		return err
	}
	top := remote
	for _, c := range local {
		if c.Trailers[store.TrailerRevertsPlan] != "" {
			next, dropped, err := rerevert(ws, top, c, newest, baseInfo)
			if err != nil {
				return err
			}
			if dropped != nil {
				res.Dropped = append(res.Dropped, *dropped)
				continue
			}
			top = next
			res.Rebased++
			continue
		}
		id := c.Trailers[store.TrailerPlanID]
		a, err := ReadArchive(ws, c.Hash, id)
		if err != nil {
			return err
		}
		raw := a.Plan
		if conflict, err := conflicting(ws, newest, baseInfo, a.Inverse.Touched); err != nil {
			return err
		} else if conflict != nil {
			res.Dropped = append(res.Dropped, Dropped{PlanID: id, Raw: raw,
				Reason: fmt.Sprintf("stale: remote commit %s (%s) changed what this plan changes", store.Short(conflict.Hash), conflict.Subject)})
			continue
		}
		next, why, err := reapply(ws, top, c, a, opts)
		if err != nil {
			return err
		}
		if next == "" {
			res.Dropped = append(res.Dropped, Dropped{PlanID: id, Raw: raw,
				Reason: fmt.Sprintf("stale: no longer valid on remote commit %s: %s", store.Short(remote), why)})
			continue
		}
		top = next
		res.Rebased++
	}
	return ws.MoveBranch(head, top)
}

// rerevert makes a local revert commit again on top of a commit, unless the remote changed what
// the reverted plan changed.
func rerevert(ws *store.Workspace, on string, c store.CommitInfo, theirs []store.CommitInfo, base store.CommitInfo) (string, *Dropped, error) {
	id, applied := c.Trailers[store.TrailerRevertsPlan], c.Trailers[store.TrailerRevertsCommit]
	a, err := ReadArchive(ws, applied, id)
	if err != nil {
		return "", nil, err
	}
	if conflict, err := conflicting(ws, theirs, base, a.Inverse.Touched); err != nil {
		return "", nil, err
	} else if conflict != nil {
		return "", &Dropped{PlanID: id, Reason: fmt.Sprintf("the revert of %s is stale: remote commit %s (%s) changed what it changed",
			id, store.Short(conflict.Hash), conflict.Subject)}, nil
	}
	data, _, err := ws.ModelAt(on)
	if err != nil {
		return "", nil, err
	}
	m, err := archixml.Load(data)
	if err != nil {
		return "", nil, err
	}
	if err := plans.Revert(m, a.Inverse); err != nil {
		return "", &Dropped{PlanID: id, Reason: "the revert no longer fits the remote's model: " + err.Error()}, nil
	}
	out, err := m.Save()
	if err != nil {
		return "", nil, err
	}
	if _, err := archixml.Load(out); err != nil {
		return "", &Dropped{PlanID: id, Reason: "the revert would write a model that cannot be read: " + err.Error()}, nil
	}
	files := map[string][]byte{ws.Model: out}
	for _, f := range a.Files {
		files[f] = nil
	}
	hash, err := ws.WriteCommit(store.Change{Base: on, Files: files, Message: c.Message, Author: signatureOf(c.Author), When: time.Now()})
	return hash, nil, err
}

// reapply makes an applied plan's commit again on top of a commit, with the preview and report
// the person approved; "" and why when the plan is not valid there.
func reapply(ws *store.Workspace, on string, c store.CommitInfo, a *Archived, opts plans.Options) (string, string, error) {
	data, ok, err := ws.ModelAt(on)
	if err != nil || !ok {
		return "", "", fmt.Errorf("the model at %s: %v", store.Short(on), err)
	}
	m, err := archixml.Load(data)
	if err != nil {
		return "", "", err
	}
	o, inv, err := plans.Apply(a.Plan, m, opts)
	if err != nil {
		return "", err.Error(), nil
	}
	out, err := m.Save()
	if err != nil {
		return "", "", err
	}
	files := archiveFiles(a.ID, a.Plan, a.Preview, a.Report, nil, inv)
	for _, f := range a.Files { // pictures, as approved
		if _, ok := files[f]; !ok {
			if data, ok, _ := ws.FileAt(a.Commit, f); ok {
				files[f] = data
			}
		}
	}
	files[ws.Model] = out
	by := signatureOf(c.Trailers[store.TrailerApprovedBy])
	hash, err := ws.WriteCommit(store.Change{Base: on, Files: files, Message: applyMessage(o, a.ID, plans.SHA256(a.Plan), on, by, "", nil),
		Author: by, When: time.Now()})
	return hash, "", err
}

// signatureOf reads "Name <email>".
func signatureOf(s string) store.Signature {
	name, email, ok := strings.Cut(s, " <")
	if !ok {
		return store.Signature{Name: s, Email: "unknown"}
	}
	return store.Signature{Name: name, Email: strings.TrimSuffix(email, ">")}
}

// rejectDropped writes NAME.rejected, with the reason, for each plan a remote made stale.
func (l *Ledger) rejectDropped(dropped []Dropped) {
	b := l.cfg.Inbox
	if b == nil {
		return
	}
	for _, dr := range dropped {
		if dr.Raw == nil { // a revert made stale: nothing in the inbox to reject
			l.log.Warn("a revert was made stale by the remote", "plan", dr.PlanID, "reason", dr.Reason)
			continue
		}
		name := PlanName(dr.PlanID)
		if inbox.CheckName(name) != nil {
			continue
		}
		err := b.Submit(name, dr.Raw)
		if errors.Is(err, inbox.ErrExists) { // a new plan took the name since: the old one goes beside it
			if name, err = b.FreeName(name); err == nil {
				err = b.Submit(name, dr.Raw)
			}
		}
		if err != nil {
			l.log.Error("write the rejected plan", "plan", name, "err", err)
			continue
		}
		e := inbox.Entry{Name: name, File: inbox.PlanFile(name), State: inbox.Pending}
		if _, err := l.rejectEntry(e, l.outcomeOf(dr.Raw), VerdictStale, dr.Reason); err != nil && !errors.Is(err, ErrRefused) {
			l.log.Error("reject a plan the remote made stale", "plan", name, "err", err)
		}
	}
}

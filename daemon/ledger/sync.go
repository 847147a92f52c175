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
	// OnRemote are plans applied locally that the remote had applied already (the same plan
	// bytes, approved in another workspace): their local commits are gone, they stay applied once.
	OnRemote []string
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
		if err := ws.MoveBranch(head, remote); err != nil {
			return err
		}
		ws.NoteInSync(r.Name)
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
	// the audit travels beside the branch, outside the lock: a failure waits for the next sync
	if r := l.cfg.Remote; r.Name != "" {
		if aerr := l.cfg.Workspace.SyncAudit(ctx, r.Name); aerr != nil {
			l.log.Warn("audit not synced", "remote", r.Name, "err", aerr)
		}
	}
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
			ws.NoteInSync(r.Name) // nothing of ours to push: no earlier failure stands
			return res, nil
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
		from, top, err := rebase(ws, r, opts, res)
		if err != nil {
			return res, err
		}
		// each dropped plan's outcome is written before its commit leaves the branch, and so
		// before the push that decides the rest: a crash anywhere in between leaves it rejected
		// (and, while its commit is still here, dropped and rejected again by the next sync),
		// never lost
		l.rejectDropped(res.Dropped[n:])
		if err := ws.MoveBranch(from, top); err != nil {
			return res, err
		}
	}
	return res, fmt.Errorf("push %s: still rejected after %d tries: %w", r.Name, maxPushTries, store.ErrPushRejected)
}

// rebase makes the local apply commits again on top of the remote's branch, and returns the
// branch's commit and the commit it is to move to; the caller records the outcome of each
// dropped plan, then moves the branch.
func rebase(ws *store.Workspace, r Remote, opts plans.Options, res *SyncResult) (from, top string, err error) {
	head, err := ws.Head()
	if err != nil {
		return "", "", err
	}
	remote, err := ws.RemoteHead(r.Name)
	if err != nil || remote == "" {
		return head, head, err
	}
	base, err := ws.MergeBase(head, remote)
	if err != nil {
		return "", "", err
	}
	local, err := ws.CommitsBetween(base, head)
	if err != nil {
		return "", "", err
	}
	for _, c := range local {
		if c.Trailers[store.TrailerPlanID] == "" && c.Trailers[store.TrailerRevertsPlan] == "" {
			return "", "", fmt.Errorf("commit %s (%s) is not archiplan's: %w", store.Short(c.Hash), c.Subject, store.ErrDiverged)
		}
	}
	theirs, err := spanOf(ws, base, remote)
	if err != nil {
		return "", "", err
	}
	top = remote
	for _, c := range local {
		if c.Trailers[store.TrailerRevertsPlan] != "" {
			next, dropped, err := rerevert(ws, top, c, theirs)
			if err != nil {
				return "", "", err
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
			return "", "", err
		}
		raw := a.Plan
		if on, err := theirs.applied(id, plans.SHA256(raw)); err != nil {
			return "", "", err
		} else if on != "" {
			// approved in another workspace too, and applied there first: applied once is enough
			res.OnRemote = append(res.OnRemote, id)
			continue
		}
		if conflict, err := theirs.touching(a.Inverse.Touched); err != nil {
			return "", "", err
		} else if conflict != nil {
			res.Dropped = append(res.Dropped, Dropped{PlanID: id, Raw: raw,
				Reason: fmt.Sprintf("stale: remote commit %s (%s) changed what this plan changes", store.Short(conflict.Hash), conflict.Subject)})
			continue
		}
		next, why, err := reapply(ws, top, c, a, opts)
		if err != nil {
			return "", "", err
		}
		if next == "" {
			res.Dropped = append(res.Dropped, Dropped{PlanID: id, Raw: raw,
				Reason: fmt.Sprintf("stale: no longer valid on remote commit %s: %s", store.Short(remote), why)})
			continue
		}
		top = next
		res.Rebased++
	}
	return head, top, nil
}

// commitSpan is the commits one history holds after a base (git rev-list base..head, the sides
// of merges included), with what they changed: the one place sync and batch approvals ask
// "did anything since then touch these objects?".
type commitSpan struct {
	ws      *store.Workspace
	head    string
	commits []store.CommitInfo // oldest first, each after its parents
	blobs   map[string]string  // commit -> the model's blob there
	models  map[string]*archixml.Model
}

func spanOf(ws *store.Workspace, base, head string) (*commitSpan, error) {
	commits, err := ws.CommitsBetween(base, head)
	if err != nil {
		return nil, err
	}
	ch := &commitSpan{ws: ws, head: head, commits: commits, blobs: map[string]string{}, models: map[string]*archixml.Model{}}
	for _, c := range commits {
		ch.blobs[c.Hash] = c.ModelBlob
	}
	return ch, nil
}

// applied finds the commit that applied a plan (by its id, or the same bytes under another
// name) among the new commits or in the archive at head; "" when none did.
func (ch *commitSpan) applied(id, digest string) (string, error) {
	for _, c := range ch.commits {
		if c.Trailers[store.TrailerPlanID] == id || c.Trailers[store.TrailerPlanSHA256] == digest {
			return c.Hash, nil
		}
	}
	names, err := ch.ws.DirAt(ch.head, ArchiveDir)
	if err != nil {
		return "", err
	}
	for _, n := range names {
		if n == id || strings.HasSuffix(n, "-"+digest[:12]) {
			return ch.head, nil
		}
	}
	return "", nil
}

// touching finds the oldest new commit that changed one of the objects: archiplan's commits by
// the objects they record; any other by comparing the objects' XML with its parent's, and a merge
// only where it differs from every parent (a change it took from one side is that side's
// commit's, found on its own, or the base's).
func (ch *commitSpan) touching(ids []string) (*store.CommitInfo, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	touched := map[string]bool{}
	for _, id := range ids {
		touched[id] = true
	}
	for i, c := range ch.commits {
		if c.Trailers[store.TrailerPlanID] != "" || c.Trailers[store.TrailerRevertsPlan] != "" {
			rec, err := recordedTouched(ch.ws, c)
			if err != nil {
				return nil, err
			}
			for _, id := range rec {
				if touched[id] {
					return &ch.commits[i], nil
				}
			}
			continue
		}
		parents, err := ch.ws.Parents(c.Hash)
		if err != nil {
			return nil, err
		}
		after, err := ch.model(c.Hash, c.ModelBlob)
		if err != nil {
			return nil, err
		}
		var befores []*archixml.Model
		same := false
		for _, p := range parents {
			blob, err := ch.blob(p)
			if err != nil {
				return nil, err
			}
			if blob == c.ModelBlob {
				same = true // the model of one parent, unchanged
				break
			}
			before, err := ch.model(p, blob)
			if err != nil {
				return nil, err
			}
			befores = append(befores, before)
		}
		if same {
			continue
		}
		for id := range touched {
			y, okY := objectXML(after, id)
			changed := true
			for _, before := range befores {
				if x, okX := objectXML(before, id); okX == okY && x == y {
					changed = false
					break
				}
			}
			if changed {
				return &ch.commits[i], nil
			}
		}
	}
	return nil, nil
}

func (ch *commitSpan) blob(commit string) (string, error) {
	if b, ok := ch.blobs[commit]; ok {
		return b, nil
	}
	info, err := ch.ws.Info(commit)
	if err != nil {
		return "", err
	}
	ch.blobs[commit] = info.ModelBlob
	return info.ModelBlob, nil
}

// model is the model at a commit, parsed once per blob; nil where there is none.
func (ch *commitSpan) model(commit, blob string) (*archixml.Model, error) {
	if blob == "" {
		return nil, nil
	}
	if m, ok := ch.models[blob]; ok {
		return m, nil
	}
	m, err := modelAt(ch.ws, commit)
	if err != nil {
		return nil, err
	}
	ch.models[blob] = m
	return m, nil
}

// rerevert makes a local revert commit again on top of a commit, unless the remote changed what
// the reverted plan changed.
func rerevert(ws *store.Workspace, on string, c store.CommitInfo, theirs *commitSpan) (string, *Dropped, error) {
	id, applied := c.Trailers[store.TrailerRevertsPlan], c.Trailers[store.TrailerRevertsCommit]
	a, err := ReadArchive(ws, applied, id)
	if err != nil {
		return "", nil, err
	}
	info, err := ws.Info(applied)
	if err != nil {
		return "", nil, err
	}
	if err := proveArchived(ws, info, a); err != nil {
		return "", &Dropped{PlanID: id, Reason: "the revert is not made again: " + err.Error()}, nil
	}
	if conflict, err := theirs.touching(a.Inverse.Touched); err != nil {
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
	if err := proveInverse(a.Plan, inv, data, out); err != nil { // as an apply does before it commits
		return "", "its inverse would not undo it exactly: " + err.Error(), nil
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

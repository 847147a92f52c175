package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/spf13/viper"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/hooks"
	"github.com/archiplan/archiplan/internal/settings"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/policy"
	"github.com/archiplan/archiplan/store"
)

// Remote says how a workspace shares a git remote with a team.
type Remote struct {
	Name string // a remote of the repository's git config ("origin")
	Pull bool   // fetch and fast-forward on a timer and before each apply
	Push bool   // push each apply commit at once
	// Net bounds every fetch and push (zero fields: store.DefaultNet's)
	Net store.NetOptions
	// Inbox is the inbox folder as the configuration names it, relative to the work tree
	// ("plans" when empty): a pulled commit may not make it a link
	Inbox string
}

// Dropped is an applied plan that could not go to the remote: the remote changed what it changed,
// or it is no longer valid there. Its local commit is gone; the plan is rejected as stale.
type Dropped struct {
	PlanID string
	Raw    []byte
	Reason string
	// Preview and Report are the plan's as archived with its apply: what the person read and
	// approved, which the rejection shows (not a report made against the commit it is dropped from)
	Preview, Report []byte
	// Remote is the remote's commit that made it stale
	Remote string
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

// SetBetween makes the ledger's writes after a fetch (the fast-forward, a rebase and the
// rejections it writes into the inbox) run through fn: the daemon runs them between its passes,
// as it runs its own. Network I/O never does: it holds neither the lock nor the pass.
func (l *Ledger) SetBetween(fn func(func() error) error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.between = fn
}

// lockedBetween takes the workspace's lock, between the daemon's passes when there is a daemon.
func (l *Ledger) lockedBetween(fn func() error) error {
	l.mu.Lock()
	between := l.between
	l.mu.Unlock()
	if between == nil {
		return l.locked(fn)
	}
	return between(func() error { return l.locked(fn) })
}

// Pull fetches the remote and fast-forwards the branch when it is only behind: never a merge,
// never a reset that drops local commits. The fetch holds no lock (a hung remote holds up no
// approval, preview or status); the lock is taken only to move the branch and the work tree, and
// only to a commit that passed CheckTree. An unreachable remote is reported (ErrUnreachable) and
// work goes on locally.
func (l *Ledger) Pull(ctx context.Context) error {
	r := l.cfg.Remote
	if r.Name == "" || !r.Pull {
		return nil
	}
	ws := l.cfg.Workspace
	if err := ws.Fetch(ctx, r.Name); err != nil {
		return err
	}
	// the lock (and the turn between passes) only when there is something to move
	if head, err := ws.Head(); err == nil {
		if remote, err := ws.RemoteHead(r.Name); err == nil && (remote == "" || remote == head) {
			if remote == head && remote != "" {
				ws.NoteRefused("", "")
			}
			return nil
		}
	}
	return l.lockedBetween(l.fastForward)
}

// FastForward moves the branch to the remote's head as last fetched, when it is only behind: a
// pull without the network, for the daemon's pass before an apply (the syncer fetches apart).
// The caller runs it between passes (the daemon's pass itself).
func (l *Ledger) FastForward() error {
	if r := l.cfg.Remote; r.Name == "" || !r.Pull {
		return nil
	}
	return l.locked(l.fastForward)
}

func (l *Ledger) fastForward() error {
	ws, r := l.cfg.Workspace, l.cfg.Remote
	head, err := ws.Head()
	if err != nil {
		return err
	}
	remote, err := ws.RemoteHead(r.Name)
	if err != nil || remote == "" || remote == head {
		if err == nil && remote == head {
			ws.NoteRefused("", "")
		}
		return err
	}
	base, err := ws.MergeBase(head, remote)
	if err != nil {
		return err
	}
	if base == remote {
		return nil // ahead: Sync pushes
	}
	if base != head {
		return l.mergeHandMade(head, remote, base)
	}
	if st := ws.RemoteState(); st.RefusedCommit == remote {
		return fmt.Errorf("%s: %w", st.Refused, store.ErrCommitRefused) // checked already: not again on every pass
	}
	if err := l.admit(head, remote); err != nil {
		return err
	}
	if err := ws.MoveBranch(head, remote); err != nil {
		return err
	}
	ws.NoteInSync(r.Name)
	return nil
}

// mergeHandMade is a pull onto a branch that diverged from the remote by commits a person made
// (edits saved in Archi, committed by hand): each is made again on top of the remote's head as
// the sync does before a push (remerge: the models merged object by object and field by field,
// its author, message and date kept), so that a workspace that only pulls, or has no plan to
// push, does not stay diverged. A conflict stops it before the branch moves, status naming each
// object and field. Local plans and reverts (made again by replaying their ops, or dropped as
// stale) and merges made by hand are left to Sync and to the person, as before.
func (l *Ledger) mergeHandMade(head, remote, base string) error {
	ws := l.cfg.Workspace
	local, err := ws.CommitsBetween(base, head)
	if err != nil {
		return err
	}
	for _, c := range local {
		if c.Merge || c.Trailers[store.TrailerPlanID] != "" || c.Trailers[store.TrailerRevertsPlan] != "" {
			return nil
		}
	}
	if err := l.admit(head, remote); err != nil {
		return err
	}
	top := remote
	for _, c := range local {
		if top, err = remerge(ws, top, c); err != nil {
			if errors.Is(err, ErrMergeConflict) {
				ws.NoteRefused(remote, err.Error()) // status says it, naming each object and field
				l.log.Error("a commit made by hand conflicts with the remote; the branch stays", "commit", store.Short(c.Hash), "err", err)
			}
			return err
		}
	}
	return ws.MoveBranch(head, top)
}

// admit checks the remote's commit before the work tree moves to it (CheckTree, and the
// configuration it carries), recording for status why it was refused; a loosened policy is
// let through, and shown.
func (l *Ledger) admit(head, remote string) error {
	ws := l.cfg.Workspace
	if err := l.checkPulled(head, remote); err != nil {
		ws.NoteRefused(remote, err.Error())
		l.log.Error("a commit from the remote was refused; the workspace stays at its head", "commit", store.Short(remote), "err", err)
		return err
	}
	if err := l.holdHooks(head, remote); err != nil {
		return err
	}
	ws.NoteRefused("", "")
	if note := policyLoosened(ws, head, remote); note != "" {
		ws.NotePolicy(fmt.Sprintf("commit %s: %s", store.Short(remote), note))
		l.log.Warn("the remote's configuration loosens the policy", "commit", store.Short(remote), "change", note)
	}
	return nil
}

// Sync pushes the branch's local commits. When the remote moved, it fetches and makes each local
// apply commit again on top of the remote (the same approved plan, validated again there) unless
// the remote changed what the plan changed or the plan is no longer valid; those are dropped and
// reported stale. Then it pushes again. Never a force-push; a commit that cannot be pushed because
// the remote is unreachable stays, and the next sync tries again. The push and the fetch hold no
// lock; the rebase does.
func (l *Ledger) Sync(ctx context.Context) (*SyncResult, error) {
	res, err := l.sync(ctx)
	// the audit travels beside the branch, outside the lock: a failure waits for the next sync
	if r := l.cfg.Remote; r.Name != "" && ctx.Err() == nil && !errors.Is(err, store.ErrBackoff) {
		if aerr := l.cfg.Workspace.SyncAudit(ctx, r.Name); aerr != nil {
			l.log.Warn("audit not synced", "remote", r.Name, "err", aerr)
		}
	}
	return res, err
}

func (l *Ledger) sync(ctx context.Context) (*SyncResult, error) {
	ws, r := l.cfg.Workspace, l.cfg.Remote
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
		err = l.lockedBetween(func() error {
			n := len(res.Dropped)
			if remote, err := ws.RemoteHead(r.Name); err == nil && remote != "" {
				head, err := ws.Head()
				if err != nil {
					return err
				}
				if err := l.admit(head, remote); err != nil {
					return err
				}
			}
			from, top, err := rebase(ws, r, l.Options(), res)
			if errors.Is(err, ErrMergeConflict) {
				remote, _ := ws.RemoteHead(r.Name)
				ws.NoteRefused(remote, err.Error()) // status says it, naming each object and field
			}
			if err != nil {
				return err
			}
			// each dropped plan's outcome is written before its commit leaves the branch, and so
			// before the push that decides the rest: a crash anywhere in between leaves it rejected
			// (and, while its commit is still here, dropped and rejected again by the next sync),
			// never lost
			l.rejectDropped(res.Dropped[n:])
			return ws.MoveBranch(from, top)
		})
		if err != nil {
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
	theirs, err := spanOf(ws, base, remote)
	if err != nil {
		return "", "", err
	}
	top = remote
	for _, c := range local {
		if c.Trailers[store.TrailerPlanID] == "" && c.Trailers[store.TrailerRevertsPlan] == "" {
			// a person's commit (an edit saved in Archi): merged as models, as the driver merges
			if top, err = remerge(ws, top, c); err != nil {
				return "", "", err
			}
			res.Rebased++
			continue
		}
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
		if on, err := theirs.applied(id, raw); err != nil {
			return "", "", err
		} else if on != "" {
			// approved in another workspace too, and applied there first: applied once is enough
			res.OnRemote = append(res.OnRemote, id)
			continue
		}
		if conflict, err := theirs.touching(a.Inverse.Touched); err != nil {
			return "", "", err
		} else if conflict != nil {
			res.Dropped = append(res.Dropped, Dropped{PlanID: id, Raw: raw, Preview: a.Preview, Report: a.Report, Remote: conflict.Hash,
				Reason: fmt.Sprintf("stale: remote commit %s (%s) changed what this plan changes", store.Short(conflict.Hash), conflict.Subject)})
			continue
		}
		next, why, err := reapply(ws, top, c, a, opts)
		if err != nil {
			return "", "", err
		}
		if next == "" {
			res.Dropped = append(res.Dropped, Dropped{PlanID: id, Raw: raw, Preview: a.Preview, Report: a.Report, Remote: remote,
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
	// made are the commits the ledger made itself, with what they changed (Ledger.made): known
	// without a diff
	made map[string][]string
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

// applied finds the commit among the new ones that applied a plan; "" when none did. A commit's
// trailers (the plan's id or its bytes' digest) only say where to look: the commit counts only
// when its model is the plan applied to its parent's model.
func (ch *commitSpan) applied(id string, raw []byte) (string, error) {
	digest := plans.SHA256(raw)
	for _, c := range ch.commits {
		if c.Trailers[store.TrailerPlanID] != id && c.Trailers[store.TrailerPlanSHA256] != digest {
			continue
		}
		if ok, err := appliedIn(ch.ws, c, raw); err != nil || ok {
			return c.Hash, err
		}
	}
	return "", nil
}

// appliedIn says whether a commit's model is exactly a plan applied to its parent's model (as
// archiplan applies it, the created ids following from the plan and that model): the one proof
// that the commit applied the plan, whatever it says about itself.
func appliedIn(ws *store.Workspace, c store.CommitInfo, raw []byte) (bool, error) {
	inv, err := inverseIn(ws, c, raw)
	return inv != nil, err
}

// inverseIn is the inverse of the plan applied in commit c, as the plan applied to c's parent
// makes it (never read from the archive); nil when c's model is not that apply's (appliedIn).
func inverseIn(ws *store.Workspace, c store.CommitInfo, raw []byte) (*plans.Inverse, error) {
	if c.Parent == "" || c.ModelBlob == "" {
		return nil, nil
	}
	data, ok, err := ws.ModelAt(c.Parent)
	if err != nil || !ok {
		return nil, err
	}
	m, err := archixml.Load(data)
	if err != nil {
		return nil, nil
	}
	_, inv, err := plans.Apply(raw, m, plans.Options{})
	if err != nil || inv == nil {
		return nil, nil // the plan does not apply there: not what the commit did
	}
	out, err := m.Save()
	if err != nil {
		return nil, err
	}
	if held, err := holdsSaved(ws, c, m, out); err != nil || !held {
		return nil, err
	}
	return inv, nil
}

// holdsSaved says whether commit c's model is m, whose Save gave out: the same blob, or, for
// Archi's zipped form, the same entries holding the same model in other bytes (an apply made by
// an archiplan built with another Go, whose deflater compresses model.xml otherwise: SavesAs).
func holdsSaved(ws *store.Workspace, c store.CommitInfo, m *archixml.Model, out []byte) (bool, error) {
	if store.BlobID(out) == c.ModelBlob {
		return true, nil
	}
	if !m.Archived() {
		return false, nil
	}
	data, ok, err := ws.ModelAt(c.Hash)
	if err != nil || !ok {
		return false, err
	}
	return m.SavesAs(data), nil
}

// touching finds the oldest new commit that changed one of the objects, by comparing the
// objects' XML with its parent's, whoever made it (a commit's trailers and archive are what it
// says about itself, and a colleague can write them), and a merge only where it differs from
// every parent (a change it took from one side is that side's commit's, found on its own, or the
// base's).
func (ch *commitSpan) touching(ids []string) (*store.CommitInfo, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	touched := map[string]bool{}
	for _, id := range ids {
		touched[id] = true
	}
	for i, c := range ch.commits {
		if ids, ok := ch.made[c.Hash]; ok {
			for _, id := range ids {
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
	if _, err := proveArchived(ws, info, a, nil); err != nil {
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
	// the changes the person approved are those the plan made on the apply commit's parent: made
	// again on the remote, it must make the same (plans.Bound.Same), cascades included
	was, err := approvedBound(ws, c.Parent, a.Plan, opts)
	if err != nil {
		return "", "", err
	}
	o, inv, err := plans.Apply(a.Plan, m, opts)
	if err != nil {
		return "", err.Error(), nil
	}
	if !o.Bound().Same(was) {
		return "", fmt.Sprintf("on it the plan would make other changes than its approved preview shows (%s)", plans.PlanWordsChanged), nil
	}
	out, err := m.Save()
	if err != nil {
		return "", "", err
	}
	invJSON := inverseJSON(inv)
	archived, err := decodeInverse(invJSON, a.ID)
	if err == nil { // as an apply does before it commits
		_, err = proveInHand(a.Plan, archived, m, data, out)
	}
	if err != nil {
		return "", "its inverse would not undo it exactly: " + err.Error(), nil
	}
	files := archiveFiles(a.ID, a.Plan, a.Preview, a.Report, nil, invJSON)
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

// approvedBound is what a plan applied on parent made: what its approved preview showed.
func approvedBound(ws *store.Workspace, parent string, plan []byte, opts plans.Options) (plans.Bound, error) {
	data, ok, err := ws.ModelAt(parent)
	if err != nil || !ok {
		return plans.Bound{}, fmt.Errorf("the model at %s: %v", store.Short(parent), err)
	}
	m, err := archixml.Load(data)
	if err != nil {
		return plans.Bound{}, err
	}
	return plans.Check(plan, m, opts).Bound(), nil
}

// signatureOf reads "Name <email>".
func signatureOf(s string) store.Signature {
	name, email, ok := strings.Cut(s, " <")
	if !ok {
		return store.Signature{Name: s, Email: "unknown"}
	}
	return store.Signature{Name: name, Email: strings.TrimSuffix(email, ">")}
}

// rejectDropped writes NAME.rejected, with the reason, for each plan a remote made stale: its
// preview and report as archived with its apply (what the person approved), under the reason
// naming the remote commit.
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
		stale := dr // rejected with the step that follows, judged on the model the remote brought
		stale.Reason = withStep(dr.Reason, NextStep(name, l.outcomeOf(dr.Raw)))
		if out, rec, ok := staleOutputs(e, stale); ok {
			if err := b.Reject(e, out, rec); err != nil {
				l.log.Error("reject a plan the remote made stale", "plan", name, "err", err)
			} else {
				l.log.Info("rejected", "plan", e.File, "verdict", VerdictStale, "reason", stale.Reason)
				l.audit(Event{Event: EventRejected, Name: e.Name, PlanID: dr.PlanID, Reason: dr.Reason, Verdict: VerdictStale,
					SHA256: plans.SHA256(dr.Raw), Summary: rec.Summary})
			}
			continue
		}
		if _, err := l.rejectEntry(e, l.outcomeOf(dr.Raw), VerdictStale, dr.Reason); err != nil {
			l.log.Error("reject a plan the remote made stale", "plan", name, "err", err)
		}
	}
}

// staleOutputs is the rejection of a plan the remote made stale, from its archived preview and
// report: the plan as the person previewed and approved it, the model it was checked against,
// with the verdict stale and the reason naming the remote's commit.
func staleOutputs(e inbox.Entry, dr Dropped) (inbox.Outputs, *inbox.Record, bool) {
	if len(dr.Preview) == 0 || len(dr.Report) == 0 {
		return inbox.Outputs{}, nil, false
	}
	var report map[string]any
	if err := json.Unmarshal(dr.Report, &report); err != nil {
		return inbox.Outputs{}, nil, false
	}
	report["verdict"], report["reason"] = VerdictStale, dr.Reason
	if dr.Remote != "" {
		report["stale_by"] = dr.Remote
	}
	data, err := json.MarshalIndent(report, "", "  ")
	if err != nil {
		return inbox.Outputs{}, nil, false
	}
	preview := append([]byte("> **Not applied** ("+VerdictStale+"): "+plans.MDEscape(dr.Reason)+"\n\n"), dr.Preview...)
	rec := &inbox.Record{Verdict: VerdictStale, Reason: dr.Reason, PlanSHA256: plans.SHA256(dr.Raw)}
	if p, ok := report["plan"].(map[string]any); ok {
		rec.Summary, _ = p["summary"].(string)
	}
	return inbox.Outputs{Preview: preview, Report: append(data, '\n')}, rec, true
}

// checkPulled checks the remote's commit before the work tree moves to it: archiplan's folders
// (the inbox it has and the one the commit's configuration names) and files as CheckTree wants
// them, and a configuration that keeps the inbox and the model inside the work tree.
func (l *Ledger) checkPulled(head, commit string) error {
	ws := l.cfg.Workspace
	box := l.cfg.Remote.Inbox
	if box == "" {
		box = "plans"
	}
	cfg, cfgErr := configAt(ws, commit)
	folders := []string{box, ".archiplan", "hooks"}
	if cfgErr == nil {
		if v, ok := cfg.Get("inbox").(string); ok && v != "" && store.InsideWorkspace(v) {
			// a link the commit puts where its inbox will be (box -> hooks) would make it the hooks
			folders = append(folders, path.Clean(v))
		}
	}
	g := store.Guarded{Folders: folders, Files: []string{ws.Model, configFile}}
	if err := ws.CheckTree(commit, g); err != nil {
		return err
	}
	if cfgErr != nil {
		return refusedConfig(commit, cfgErr.Error())
	}
	for _, key := range []string{"inbox", "model"} {
		if v, ok := cfg.Get(key).(string); ok && !store.InsideWorkspace(v) {
			return refusedConfig(commit, fmt.Sprintf("%s sets %s: %q, outside the workspace", configFile, key, v))
		}
		if v := cfg.Get(key); v != nil {
			if _, isString := v.(string); !isString {
				return refusedConfig(commit, fmt.Sprintf("%s sets %s to something not a path", configFile, key))
			}
		}
	}
	box, model := settings.Default("inbox"), ws.Model
	if v, ok := cfg.Get("inbox").(string); ok && v != "" {
		box = v
	}
	if v, ok := cfg.Get("model").(string); ok && v != "" {
		model = v
	}
	if why := store.InboxApart(box, model); why != "" {
		return refusedConfig(commit, fmt.Sprintf("%s sets %s", configFile, why))
	}
	if why := store.ModelApart(model); why != "" {
		return refusedConfig(commit, fmt.Sprintf("%s sets %s", configFile, why))
	}
	before, err := configAt(ws, head)
	if err != nil {
		before = settings.New() // ours unreadable: every held key the remote sets is a change
	}
	// read as the commands read them (viper: keys in any case), so a key spelled otherwise is held too
	if keys := heldChanges(before.AllSettings(), cfg.AllSettings()); len(keys) > 0 {
		return &store.RemoteError{Op: "pull", Remote: "commit " + store.Short(commit), Code: store.CodeCommitRefused,
			Reason: fmt.Sprintf("%s changes %s: settings that can write outside the workspace, open the review page, send a token elsewhere or change who runs or approves what are never taken from a pull; the workspace stays at its own head",
				configFile, strings.Join(keys, ", ")),
			Fix: fmt.Sprintf("read the change (git diff HEAD %s -- %s) and take it yourself (git merge --ff-only %s), or revert it on the remote",
				store.Short(commit), configFile, store.Short(commit)),
			Err: store.ErrCommitRefused}
	}
	return nil
}

// heldTop are the configuration's settings a pull never changes: where the site is written, the
// review page's address and whether it is served beyond loopback, the forge (forge.*: where its
// token goes, which repository's pull requests and whose approvals apply plans) and whether plans
// go there (deliver). heldPlanner are a planner's (planner.X, planners.NAME.X): what runs, and
// where its key goes.
var (
	heldTop     = []string{"publish", "http", "http_remote", "forge", "deliver"}
	heldPlanner = []string{"kind", "command", "base_url", "api_key_env", "api_key_header"}
)

// heldChanges lists the held settings that differ between two configurations, sorted.
func heldChanges(before, after map[string]any) []string {
	var out []string
	differ := func(a, b any) bool { return fmt.Sprintf("%#v", a) != fmt.Sprintf("%#v", b) }
	for _, k := range heldTop {
		if differ(before[k], after[k]) {
			out = append(out, k)
		}
	}
	sections := func(cfg map[string]any) map[string]map[string]any {
		out := map[string]map[string]any{}
		if p, ok := cfg["planner"].(map[string]any); ok {
			out["planner"] = p
		} else if cfg["planner"] != nil {
			out["planner"] = map[string]any{"": cfg["planner"]}
		}
		ps, _ := cfg["planners"].(map[string]any)
		for name, v := range ps {
			if p, ok := v.(map[string]any); ok {
				out["planners."+name] = p
			} else {
				out["planners."+name] = map[string]any{"": v}
			}
		}
		return out
	}
	b, a := sections(before), sections(after)
	for name := range a {
		if _, ok := b[name]; !ok {
			b[name] = map[string]any{}
		}
	}
	for name := range b {
		for _, k := range append([]string{""}, heldPlanner...) {
			if differ(b[name][k], a[name][k]) {
				out = append(out, strings.TrimSuffix(name+"."+k, "."))
			}
		}
	}
	sort.Strings(out)
	return out
}

// holdHooks records each hook the remote's commit adds or changes as waiting for the person's
// trust (hooks.Hold): it runs only once they trust it on this machine.
func (l *Ledger) holdHooks(head, remote string) error {
	ws := l.cfg.Workspace
	names, err := ws.DirAt(remote, hooksDir)
	if err != nil {
		return err
	}
	for _, n := range names {
		after, ok, err := ws.FileAt(remote, hooksDir+"/"+n)
		if err != nil || !ok {
			continue // a folder, or gone: nothing that runs
		}
		if before, had, _ := ws.FileAt(head, hooksDir+"/"+n); had && string(before) == string(after) {
			continue
		}
		held, err := hooks.Hold(ws.GitPath(hooks.TrustFile), n, after)
		if err != nil {
			return err
		}
		if held {
			l.log.Warn("a hook came with the remote's commit: it waits for `archiplan hooks trust`", "hook", hooksDir+"/"+n, "commit", store.Short(remote))
		}
	}
	return nil
}

const hooksDir = "hooks"

const configFile = settings.File

func refusedConfig(commit, why string) error {
	return &store.RemoteError{Op: "pull", Remote: "commit " + store.Short(commit), Code: store.CodeCommitRefused,
		Reason: why + "; the workspace stays at its own head",
		Fix:    "revert that change on the remote (git revert), then archiplan pulls again", Err: store.ErrCommitRefused}
}

// configAt reads the workspace's configuration as a commit holds it, as the commands read it
// (the defaults when none).
func configAt(ws *store.Workspace, commit string) (*viper.Viper, error) {
	data, ok, err := ws.FileAt(commit, configFile)
	if err != nil || !ok {
		return settings.New(), err
	}
	cfg, err := settings.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s cannot be read: %v", configFile, err)
	}
	return cfg, nil
}

// policyLoosened says how the configuration at to allows more than at from: ops or types
// allowed that were not, folders no longer protected, strict mode or planner adoption turned off.
// "" when it does not.
func policyLoosened(ws *store.Workspace, from, to string) string {
	before, err1 := configAt(ws, from)
	after, err2 := configAt(ws, to)
	if err1 != nil || err2 != nil {
		return ""
	}
	list := func(cfg *viper.Viper, key string) ([]string, bool) {
		out := cfg.GetStringSlice("policy." + key) // as the policy is read from it
		return out, len(out) > 0
	}
	var notes []string
	for _, key := range []string{"allowed_ops", "allowed_element_types", "allowed_relationship_types"} {
		b, bSet := list(before, key)
		a, aSet := list(after, key)
		if !bSet {
			continue // everything was allowed already
		}
		if !aSet {
			notes = append(notes, "policy."+key+" removed (everything allowed)")
			continue
		}
		if added := missingFrom(a, b); len(added) > 0 {
			notes = append(notes, "policy."+key+" adds "+strings.Join(added, ", "))
		}
	}
	b, _ := list(before, "protected_folders")
	a, _ := list(after, "protected_folders")
	if gone := missingFrom(b, a); len(gone) > 0 {
		notes = append(notes, "policy.protected_folders no longer protects "+strings.Join(gone, ", "))
	}
	if before.GetBool("strict") && !after.GetBool("strict") {
		notes = append(notes, "strict turned off")
	}
	if g := before.GetString("planner_group"); g != "" && after.GetString("planner_group") != g {
		notes = append(notes, "planner_group changed (adoption of planners' plans)")
	}
	if changed := rulesChanged(ws, from, to); len(changed) > 0 {
		notes = append(notes, strings.Join(changed, ", ")+fmt.Sprintf(" (may loosen the rules or who approves: git diff %s %s -- %s)",
			store.Short(from), store.Short(to), policy.Dir))
	}
	return strings.Join(notes, "; ")
}

// rulesChanged lists the rule files (policy/*.rego, their tests aside) and owners.yaml that differ
// between two commits, each with how. Which change loosens is not for archiplan to tell (a file
// added to a rule's package can redefine what the rule asks; an owner removed asks one approval
// less), so each is said.
func rulesChanged(ws *store.Workspace, from, to string) []string {
	governs := func(n string) bool {
		return n == policy.OwnersFile || (strings.HasSuffix(n, ".rego") && !strings.HasSuffix(n, "_test.rego"))
	}
	before, _ := ws.DirAt(from, policy.Dir)
	after, _ := ws.DirAt(to, policy.Dir)
	var out []string
	for _, n := range after {
		if !governs(n) {
			continue
		}
		b, had, _ := ws.FileAt(from, policy.Dir+"/"+n)
		a, _, _ := ws.FileAt(to, policy.Dir+"/"+n)
		switch {
		case !had:
			out = append(out, policy.Dir+"/"+n+" added")
		case string(a) != string(b):
			out = append(out, policy.Dir+"/"+n+" changed")
		}
	}
	for _, n := range before {
		if _, has, _ := ws.FileAt(to, policy.Dir+"/"+n); governs(n) && !has {
			out = append(out, policy.Dir+"/"+n+" removed")
		}
	}
	return out
}

// missingFrom lists what xs holds and ys does not.
func missingFrom(xs, ys []string) []string {
	have := map[string]bool{}
	for _, y := range ys {
		have[y] = true
	}
	var out []string
	for _, x := range xs {
		if !have[x] {
			out = append(out, x)
		}
	}
	return out
}

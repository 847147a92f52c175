package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/archiplan/archiplan/archixml"
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
func Pull(ctx context.Context, ws *store.Workspace, r Remote) error {
	lock, err := ws.Lock()
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if _, err := ws.Recover(); err != nil {
		return err
	}
	return pullLocked(ctx, ws, r)
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
func Sync(ctx context.Context, ws *store.Workspace, r Remote, opts plans.Options) (*SyncResult, error) {
	lock, err := ws.Lock()
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	if _, err := ws.Recover(); err != nil {
		return nil, err
	}
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
		if err := rebase(ws, r, opts, res); err != nil {
			return res, err
		}
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
		raw, _, err := ws.FileAt(c.Hash, ArchiveDir+"/"+id+"/plan.json")
		if err != nil {
			return err
		}
		invRaw, _, err := ws.FileAt(c.Hash, ArchiveDir+"/"+id+"/inverse.json")
		if err != nil {
			return err
		}
		var inv plans.Inverse
		if err := json.Unmarshal(invRaw, &inv); err != nil {
			return fmt.Errorf("read the inverse of %s: %w", id, err)
		}
		if conflict, err := conflicting(ws, newest, baseInfo, &inv); err != nil {
			return err
		} else if conflict != nil {
			res.Dropped = append(res.Dropped, Dropped{PlanID: id, Raw: raw,
				Reason: fmt.Sprintf("stale: remote commit %s (%s) changed what this plan changes", store.Short(conflict.Hash), conflict.Subject)})
			continue
		}
		next, why, err := reapply(ws, top, c, id, raw, opts)
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
	raw, _, err := ws.FileAt(applied, ArchiveDir+"/"+id+"/inverse.json")
	if err != nil {
		return "", nil, err
	}
	var inv plans.Inverse
	if err := json.Unmarshal(raw, &inv); err != nil {
		return "", nil, fmt.Errorf("read the inverse of %s: %w", id, err)
	}
	if conflict, err := conflicting(ws, theirs, base, &inv); err != nil {
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
	if err := plans.Revert(m, &inv); err != nil {
		return "", &Dropped{PlanID: id, Reason: "the revert no longer fits the remote's model: " + err.Error()}, nil
	}
	out, err := m.Save()
	if err != nil {
		return "", nil, err
	}
	hash, err := ws.WriteCommit(store.Change{Base: on, Files: map[string][]byte{ws.Model: out, ArchiveDir + "/" + id: nil},
		Message: c.Message, Author: signatureOf(c.Author), When: time.Now()})
	return hash, nil, err
}

// reapply makes an applied plan's commit again on top of a commit; "" and why when the plan is
// not valid there.
func reapply(ws *store.Workspace, on string, c store.CommitInfo, id string, raw []byte, opts plans.Options) (string, string, error) {
	data, ok, err := ws.ModelAt(on)
	if err != nil || !ok {
		return "", "", fmt.Errorf("the model at %s: %v", store.Short(on), err)
	}
	m, err := archixml.Load(data)
	if err != nil {
		return "", "", err
	}
	blob := store.BlobID(data)
	opts.Seed = plans.SHA256(raw) + blob
	o, inv, err := plans.Apply(raw, m, opts)
	if err != nil {
		return "", err.Error(), nil
	}
	info := plans.ModelInfo{Path: ws.Model, Commit: on, Blob: blob}
	files, _, _, err := applyFiles(ws, m, o, inv, raw, id, path.Base(id)+".json", info)
	if err != nil {
		return "", "", err
	}
	by := signatureOf(c.Trailers[store.TrailerApprovedBy])
	hash, err := ws.WriteCommit(store.Change{Base: on, Files: files, Message: applyMessage(o, id, plans.SHA256(raw), on, by),
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

// PlanName is the NAME of a plan id (NAME-<12 hex>).
func PlanName(id string) string {
	if i := strings.LastIndexByte(id, '-'); i > 0 {
		return id[:i]
	}
	return id
}

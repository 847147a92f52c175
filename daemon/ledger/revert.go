package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

var (
	// ErrNoSuchPlan means no apply commit has the id or hash given.
	ErrNoSuchPlan = errors.New("no applied plan")
	// ErrConflict means a later commit changed what the plan's inverse restores, so it cannot
	// apply to the model at HEAD; revert names the object and the field.
	ErrConflict = errors.New("a later commit changed the same objects")
	// ErrBadInverse means an archived inverse is not one an apply writes: never used.
	ErrBadInverse = errors.New("the archived inverse is not one archiplan wrote")
	// ErrAlreadyReverted means the plan was reverted before.
	ErrAlreadyReverted = errors.New("plan already reverted")
)

// RevertResult is what a revert did.
type RevertResult struct {
	PlanID        string
	RevertsCommit string
	Commit        string
}

// Revert undoes one applied plan, named by its id or its apply commit, in a new commit, using the
// inverse archived with it, proved first: on the apply commit's model it must give back the
// parent's (proveInverse), else it is refused as not archiplan's (ErrBadInverse). Later plans and commits are kept; when
// one of them changed a field the inverse restores (and it is not as the apply left it), the
// revert is refused, naming the object and the field (undoAtHead).
// The model it makes is read again before it is committed, and it removes from the archive only
// the files the apply added.
func (l *Ledger) Revert(ctx context.Context, target string) (*RevertResult, error) {
	var res *RevertResult
	err := l.locked(func() error {
		var err error
		res, err = l.revert(target)
		return err
	})
	if err == nil && res != nil {
		l.audit(Event{Event: EventReverted, Name: PlanName(res.PlanID), PlanID: res.PlanID, Commit: res.Commit,
			Reason: "reverts commit " + res.RevertsCommit})
	}
	return res, err
}

func (l *Ledger) revert(target string) (*RevertResult, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ws := l.cfg.Workspace
	full, _ := ws.ResolveCommit(target)
	var apply *store.CommitInfo
	hist, err := ws.History(func(c store.CommitInfo) bool {
		return c.Trailers[store.TrailerPlanID] != "" && (c.Trailers[store.TrailerPlanID] == target || c.Hash == full)
	})
	if err != nil {
		return nil, err
	}
	if len(hist) > 0 {
		last := hist[len(hist)-1]
		if last.Trailers[store.TrailerPlanID] != "" && (last.Trailers[store.TrailerPlanID] == target || last.Hash == full) {
			apply = &last
		}
	}
	if apply == nil {
		return nil, fmt.Errorf("%w %q on this branch", ErrNoSuchPlan, target)
	}
	id := apply.Trailers[store.TrailerPlanID]
	later := hist[:len(hist)-1] // newest first, all after the apply
	// which later commit reverted it is words for a refusal the models make (below), not a reason
	reverted := func() *store.CommitInfo {
		for i, c := range later {
			if c.Trailers[store.TrailerRevertsPlan] == id || c.GitReverts == apply.Hash {
				return &later[i]
			}
		}
		return nil
	}
	a, err := ReadArchive(ws, apply.Hash, id)
	if err != nil {
		return nil, err
	}
	head, err := l.head()
	if err != nil {
		return nil, err
	}
	// a revert of the plan HEAD's model came from (the usual one: right after its apply) proves
	// the inverse on the model in hand, which is that model, instead of parsing it again
	var inHand *archixml.Model
	if head.Blob == apply.ModelBlob {
		inHand = head.Model
	}
	restored, err := proveArchived(ws, *apply, a, inHand)
	if inHand != nil && (!restored || !inHand.SavesAs(head.Data)) {
		// not put back as HEAD's model (50 ms at 100,000 elements to compare): read it again
		l.forget()
		if err == nil {
			head, err = l.head()
		}
	}
	if err != nil {
		return nil, err
	}
	if dirty, err := l.dirty(head.Blob); err != nil {
		return nil, err
	} else if dirty {
		return nil, fmt.Errorf("%w: commit or discard them first", store.ErrDirty)
	}
	m := head.Model
	problem := l.problem // a model Archi could not open before is not the revert's fault
	if err := undoAtHead(ws, *apply, head.Blob, m, a.Inverse); err != nil {
		l.forget()
		var changed *archixml.ChangedError
		if errors.As(err, &changed) {
			if c := reverted(); c != nil {
				return nil, fmt.Errorf("%w: %s by commit %s", ErrAlreadyReverted, id, short(c.Hash))
			}
			return nil, fmt.Errorf("%w: %s changed since %s applied it: %s; revert what changed it first, or undo it by hand",
				ErrConflict, changed.Object, id, changed.How)
		}
		if errors.Is(err, archixml.ErrBadStep) {
			return nil, fmt.Errorf("%w: %v: nothing was committed", ErrBadInverse, err)
		}
		return nil, fmt.Errorf("%w: %v", ErrConflict, err)
	}
	data, err := m.Save()
	if err != nil {
		l.forget()
		return nil, err
	}
	l.forget() // the model was changed; whatever happens next, HEAD is read again
	// what is committed must be a model archiplan (and Archi) can read: data read back must be
	// m's tree (Rebase compares them without building another; Load when it cannot tell)
	back := m
	if !m.Rebase(data) {
		if back, err = archixml.Load(data); err != nil {
			return nil, fmt.Errorf("the revert of %s would write a model that cannot be read (%v): nothing was committed", id, err)
		}
	}
	cerr := archixml.Check(back)
	if cerr != nil && problem == nil {
		return nil, fmt.Errorf("the revert of %s would write a model Archi cannot open (%v): nothing was committed", id, cerr)
	}
	files := map[string][]byte{ws.Model: data}
	for _, f := range a.Files {
		files[f] = nil
	}
	by := l.cfg.ApprovedBy
	subject := strings.TrimPrefix(oneLine(apply.Subject), "plan: ")
	msg := fmt.Sprintf("revert: %s\n\nUndoes plan %s, applied in %s.\n\n%s: %s\n%s: %s\n%s: %s\n", subject, id, short(apply.Hash),
		store.TrailerRevertsPlan, id, store.TrailerRevertsCommit, apply.Hash, store.TrailerApprovedBy, signature(by))
	commit, err := ws.Publish(store.Change{Base: head.Commit, Files: files, Message: msg, Author: by, When: l.cfg.Now()})
	if err != nil && commit == "" {
		return nil, err
	}
	if cerr == nil {
		ws.MarkClean(store.BlobID(data))
	}
	return &RevertResult{PlanID: id, RevertsCommit: apply.Hash, Commit: commit}, err
}

// undoAtHead undoes the proved inverse of the plan applied in apply on m, the model at HEAD (its
// blob headBlob). When HEAD's model is the one the apply made, the steps are undone as they are;
// otherwise alongside that model (archixml.Model.UndoAlong): each step must find at HEAD what the
// apply left there, so later commits that changed other objects or other fields, or that were
// reverted themselves, keep their changes and do not stand in the way; one that changed what the
// revert restores stops it (archixml.ErrChangedSince, naming the object and the field).
func undoAtHead(ws *store.Workspace, apply store.CommitInfo, headBlob string, m *archixml.Model, inv *plans.Inverse) error {
	if headBlob == apply.ModelBlob {
		return plans.Revert(m, inv)
	}
	data, ok, err := ws.ModelAt(apply.Hash)
	if err != nil || !ok {
		return fmt.Errorf("the model at %s: %v", short(apply.Hash), err)
	}
	made, err := archixml.Load(data)
	if err != nil {
		return fmt.Errorf("the model at %s: %v", short(apply.Hash), err)
	}
	return m.UndoAlong(made, inv.Steps)
}

func objectXML(m *archixml.Model, id string) (string, bool) {
	if m == nil {
		return "", false
	}
	o, ok := m.Object(id)
	if !ok {
		return "", false
	}
	return o.XML(), true
}

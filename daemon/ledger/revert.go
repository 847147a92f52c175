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
	// ErrConflict means a later commit changed what the plan changed; revert names it.
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
// one of them changed an object the plan changed, the revert is refused and that commit named.
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
	for _, c := range later {
		if c.Trailers[store.TrailerRevertsPlan] == id || c.GitReverts == apply.Hash {
			return nil, fmt.Errorf("%w: %s by commit %s", ErrAlreadyReverted, id, short(c.Hash))
		}
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
	if c, err := conflicting(ws, later, *apply, a.Inverse.Touched); err != nil {
		return nil, err
	} else if c != nil {
		return nil, fmt.Errorf("%w: commit %s (%s) changed what %s changed; revert it first, or undo by hand",
			ErrConflict, short(c.Hash), oneLine(c.Subject), id)
	}
	if dirty, err := l.dirty(head.Blob); err != nil {
		return nil, err
	} else if dirty {
		return nil, fmt.Errorf("%w: commit or discard them first", store.ErrDirty)
	}
	m := head.Model
	problem := l.problem // a model Archi could not open before is not the revert's fault
	if err := plans.Revert(m, a.Inverse); err != nil {
		l.forget()
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

// conflicting finds the oldest later commit that changed an object the plan changed, by
// comparing those objects' XML before and after it, whoever made it: archiplan's commits too, as
// a commit's trailers and archive are only what it says about itself.
func conflicting(ws *store.Workspace, later []store.CommitInfo, apply store.CommitInfo, ids []string) (*store.CommitInfo, error) {
	touched := map[string]bool{}
	for _, id := range ids {
		touched[id] = true
	}
	models := map[string]*archixml.Model{} // by blob
	load := func(commit, blob string) (*archixml.Model, error) {
		if m, ok := models[blob]; ok {
			return m, nil
		}
		data, ok, err := ws.ModelAt(commit)
		if err != nil || !ok {
			return nil, err
		}
		m, err := archixml.Load(data)
		if err != nil {
			return nil, err
		}
		models[blob] = m
		return m, nil
	}
	blobOf := map[string]string{apply.Hash: apply.ModelBlob}
	for _, c := range later {
		blobOf[c.Hash] = c.ModelBlob
	}
	for i := len(later) - 1; i >= 0; i-- { // oldest first
		c := later[i]
		parentBlob := blobOf[c.Parent]
		if c.ModelBlob == parentBlob {
			continue
		}
		before, err := load(c.Parent, parentBlob)
		if err != nil {
			return nil, err
		}
		after, err := load(c.Hash, c.ModelBlob)
		if err != nil {
			return nil, err
		}
		for id := range touched {
			a, okA := objectXML(before, id)
			b, okB := objectXML(after, id)
			if okA != okB || a != b {
				return &later[i], nil
			}
		}
	}
	return nil, nil
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

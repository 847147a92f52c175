package pullreq

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/internal/lazyre"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// A revert is a pull request too: the revert of an applied plan, made by the ledger on the base
// without moving it, is reviewed as a commit range is (archiplan review: the changes in words,
// pictures of the changed views, Archi's findings it adds), and applied as a plan's pull request
// is, when approved on the head previewed with the base unmoved: the ledger's revert, bound to
// the model the person saw, one commit with the approver's account in Approved-By.

const (
	// RevertBranchPrefix starts the branch of a revert's pull request; the rest is the plan id.
	RevertBranchPrefix = "archiplan/revert/"
	// revertName names a revert's preview and pictures in its folder on the branch.
	revertName = "revert"
)

// revertPreview is the preview's file in a revert's folder.
var revertPreview = inbox.PreviewFile(revertName)

// planID is the pattern of an applied plan's id (NAME-<12 hex>) that reaches a branch, a path
// and a description: a Plan-Id trailer of any other shape is not archiplan's to propose.
var planID = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9_-]{0,99}-[0-9a-f]{12}$`)

// RevertBranch is the branch of the pull request that reverts plan ID.
func RevertBranch(id string) string { return RevertBranchPrefix + id }

// RevertDir is, on that branch, the folder of the revert's preview and pictures.
func RevertDir(id string) string { return ProposedDir + "/revert-" + id }

func (f *Flow) revertPath(id string) string {
	return f.ws().GitPath(filepath.Join("archiplan", "pr", "revert", id+".json"))
}

// OpenRevert proposes the revert of an applied plan (its id or its apply commit, as archiplan
// revert takes them) as a pull request: the ledger makes the revert on HEAD without moving any
// branch (refused, as archiplan revert refuses, when it cannot undo it), the review of that
// commit is the description, and its preview and pictures are committed on the base, on the
// branch archiplan/revert/ID. Run again with nothing moved, it pushes nothing; after the base
// moved, a new head, and the description says what changed.
func (f *Flow) OpenRevert(ctx context.Context, target string) (*State, error) {
	var res *ledger.RevertResult
	err := f.between(func() (err error) {
		res, err = f.Ledger.RevertWith(ctx, target, ledger.RevertOptions{Preview: true})
		return err
	})
	if err != nil {
		return nil, err
	}
	id := res.PlanID
	if !planID.MatchString(id) {
		return nil, fmt.Errorf("the plan id %q of commit %s is not one archiplan writes: revert it with archiplan revert", plans.ShowHidden(oneLine(id, 120)), store.Short(res.RevertsCommit))
	}
	// the commit the review names is the revert as the ledger makes it, on no branch: approved,
	// it is made again on the same base, with the approver's account, and must write this model
	rv, err := ledger.ReviewRange(f.ws(), store.Short(res.Base)+".."+store.Short(res.Commit), revertName)
	if err != nil {
		return nil, err
	}
	prev, err := f.LoadRevert(id)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{revertPreview: rv.Markdown}
	tree := map[string][]byte{RevertDir(id) + "/" + revertPreview: rv.Markdown}
	for file, data := range rv.Pictures {
		files[file] = data
		tree[RevertDir(id)+"/"+file] = data
	}
	sum := sha256.Sum256(rv.Markdown)
	st := &State{Name: id, Branch: RevertBranch(id), Base: res.Base, Preview: hex.EncodeToString(sum[:]), Verdict: plans.VerdictValid,
		Reverts: id, RevertsCommit: res.RevertsCommit, Blob: res.Blob}
	if rv.Diff != nil {
		for _, ch := range rv.Diff.Changes {
			st.Changes = append(st.Changes, ch.Text)
		}
	}
	summary := oneLine(res.Summary, 120)
	msg := "proposed revert: " + summary + "\n\nThe revert of plan " + id + " (applied in " + res.RevertsCommit + "), previewed on " + res.Base +
		". archiplan reverts it when this pull request is approved; merging this branch by hand reverts nothing.\n"
	return f.propose(ctx, st, prev, tree, files, "revert plan "+id+": "+summary, msg)
}

// LoadRevert is the state of the pull request that reverts plan ID (nil, nil when none).
func (f *Flow) LoadRevert(id string) (*State, error) {
	if !planID.MatchString(id) {
		return nil, fmt.Errorf("%q is not a plan id (NAME-<12 hex digits>)", oneLine(id, 120))
	}
	st, err := loadState(f.revertPath(id))
	if err == nil && st != nil && st.Reverts != id {
		return nil, fmt.Errorf("%s names the revert of %q", f.revertPath(id), st.Reverts)
	}
	return st, err
}

// revertNames are the plan ids with a revert's pull request archiplan opened, sorted.
func (f *Flow) revertNames() ([]string, error) {
	return listStates(filepath.Dir(f.revertPath("x")), planID.MatchString)
}

// ApplyRevert applies the revert whose pull request archiplan opened for target (the plan's id or
// its apply commit) when it is approved as Apply says: the ledger's revert, bound to the base and
// the model previewed, one commit with the approver's account in Approved-By; then merged.
func (f *Flow) ApplyRevert(ctx context.Context, target string) (*Outcome, error) {
	st, err := f.findRevert(target)
	if err != nil {
		return nil, err
	}
	return f.apply(ctx, st)
}

// findRevert is the revert's state for a plan id, or for the apply commit it reverts (in full or
// abbreviated as git abbreviates it).
func (f *Flow) findRevert(target string) (*State, error) {
	if planID.MatchString(target) {
		if st, err := f.LoadRevert(target); st != nil || err != nil {
			return st, err
		}
	}
	full, _ := f.ws().ResolveCommit(target)
	ids, err := f.revertNames()
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		st, err := f.LoadRevert(id)
		if err == nil && st != nil && full != "" && st.RevertsCommit == full {
			return st, nil
		}
	}
	return nil, fmt.Errorf("revert of %s: %w", oneLine(target, 120), ErrNoRevertPR)
}

// ErrNoRevertPR means archiplan opened no pull request that reverts the plan.
var ErrNoRevertPR = errors.New("no pull request: archiplan pr --revert PLAN-ID opens one")

// applyRevert makes the revert st previewed, approved by the accounts by on the forge at host:
// the ledger's, refused unless HEAD is still the base previewed and the model it writes is the one
// previewed (the pull request is then marked stale).
func (f *Flow) applyRevert(ctx context.Context, st *State, o *Outcome, by []string, host string) (*Outcome, error) {
	who := inbox.ForgeAccount(by[0])
	sig := store.Signature{Name: who, Email: who + "@" + host}
	var res *ledger.RevertResult
	err := f.between(func() (err error) {
		// held to the owners and approval rules by the accounts whose reviews count, as a plan's
		// pull request is
		res, err = f.Ledger.RevertWith(ctx, st.RevertsCommit, ledger.RevertOptions{ApprovedBy: &sig, Approvers: by, Base: st.Base, Blob: st.Blob})
		return err
	})
	switch {
	case errors.Is(err, ledger.ErrRevertApprovals):
		o.State, o.Reason = Waiting, "approvals missing by the owners rules: "+err.Error()
		return o, nil
	case errors.Is(err, ledger.ErrRevertMoved), errors.Is(err, ledger.ErrConflict), errors.Is(err, ledger.ErrAlreadyReverted), errors.Is(err, ledger.ErrRevertDenied):
		return f.stale(ctx, st, o, "not reverted: "+err.Error())
	case err != nil:
		return nil, err
	}
	return f.merge(ctx, st, o, res.Commit, by, fmt.Sprintf("revert plan %s (archiplan, approved by %s)", st.Reverts, strings.Join(by, ", ")))
}

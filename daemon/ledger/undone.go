package ledger

import (
	"fmt"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// recordRemoved is the apply of these plan bytes that stands on the branch though no record of
// it is archived at HEAD: the last commit that applied them (proved by the models: appliedIn),
// and the commit that removed its record under ArchiveDir, when neither it nor any commit after
// it undid the plan. A revert, archiplan's or git's, removes the record too; the models tell
// them apart: a commit undid the plan when its model is its parent's with the plan's inverse
// undone (the inverse the plan makes on the apply's parent, never the archived one), as revert
// makes it. Both are nil when the bytes were never applied on the branch, or were undone so.
//
// Bytes the repository does not hold as a blob were never archived by any commit: the history
// is walked only for bytes it holds (a plan applied, or committed by hand).
func (l *Ledger) recordRemoved(raw []byte) (apply, removal *store.CommitInfo, err error) {
	ws := l.cfg.Workspace
	if !ws.HasBlob(raw) {
		return nil, nil, nil
	}
	suffix := "-" + plans.SHA256(raw)[:12]
	var proved *store.CommitInfo
	var inv *plans.Inverse
	var perr error
	hist, err := onBranch(ws, func(c store.CommitInfo) bool {
		if perr != nil || !strings.HasSuffix(c.Trailers[store.TrailerPlanID], suffix) {
			return false
		}
		if proved != nil && c.Hash == proved.Hash { // onBranch asks the last one twice
			return true
		}
		inv, perr = inverseIn(ws, c, raw)
		if inv != nil {
			proved = &c
		}
		return inv != nil
	})
	if err == nil {
		err = perr
	}
	if err != nil || proved == nil || len(hist) == 0 || hist[len(hist)-1].Hash != proved.Hash {
		return nil, nil, err
	}
	// the commits without the record, walking back from HEAD to the newest that has it (the
	// apply itself, or a merge that brought it): the oldest of them removed it. An apply a merge
	// brought is walked to on its side: the line down to that merge, then the side's own commits
	// after the apply (a revert there undid it before the merge)
	id := proved.Trailers[store.TrailerPlanID]
	if proved.Via != "" {
		if hist, err = sideWalk(ws, hist[:len(hist)-1], *proved); err != nil {
			return nil, nil, err
		}
	}
	var without []store.CommitInfo
	for _, c := range hist {
		_, has, err := ws.FileAt(c.Hash, archivePath(id, archivePlan))
		if err != nil {
			return nil, nil, err
		}
		if has {
			break
		}
		without = append(without, c)
	}
	if len(without) == 0 || without[len(without)-1].Hash == proved.Hash {
		return nil, nil, nil // the record is there after all (appliedBefore's to judge)
	}
	// undone when one of them undid the plan (the removal itself, or a revert after a removal
	// that did not): those that say they revert it are asked first (words say where to look),
	// then every other that changed the model
	hinted := func(c store.CommitInfo) bool {
		return c.Trailers[store.TrailerRevertsPlan] == id || c.GitReverts == proved.Hash
	}
	for _, first := range []bool{true, false} {
		for _, c := range without {
			if hinted(c) == first && undid(ws, *proved, c, inv) {
				return nil, nil, nil
			}
		}
	}
	return proved, &without[len(without)-1], nil
}

// sideWalk is the history from HEAD to apply, a commit a merge of line brought from its side:
// line down to that merge, the side's first-parent commits after apply, apply; line and apply
// when apply is not on its side's first-parent line.
func sideWalk(ws *store.Workspace, line []store.CommitInfo, apply store.CommitInfo) ([]store.CommitInfo, error) {
	side, err := ws.SideCommits(line)
	if err != nil {
		return nil, err
	}
	info := make(map[string]store.CommitInfo, len(side))
	for _, c := range side {
		info[c.Hash] = c
	}
	for k, c := range line {
		if c.Hash == apply.Via {
			if after := sideAfter(side, info, apply); after != nil {
				line = append(line[:k+1:k+1], after...)
			}
			break
		}
	}
	return append(line[:len(line):len(line)], apply), nil
}

// undid says whether commit removal undid the plan applied in apply (its inverse inv): its model
// is its first parent's with inv undone, as archiplan's revert makes it there.
func undid(ws *store.Workspace, apply, removal store.CommitInfo, inv *plans.Inverse) bool {
	if removal.Parent == "" {
		return false
	}
	data, ok, err := ws.ModelAt(removal.Parent)
	if err != nil || !ok {
		return false
	}
	m, err := archixml.Load(data)
	if err != nil || undoAtHead(ws, apply, store.BlobID(data), m, inv) != nil {
		return false
	}
	out, err := m.Save()
	if err != nil || removal.ModelBlob == store.BlobID(data) {
		return false
	}
	held, err := holdsSaved(ws, removal, m, out)
	return err == nil && held
}

// removedWords is the refusal of plan bytes applied in apply whose record removal removed
// without undoing the plan (recordRemoved).
func removedWords(apply, removal *store.CommitInfo) string {
	id := apply.Trailers[store.TrailerPlanID]
	return fmt.Sprintf("%s: %s was applied in commit %s, and commit %s (%s) removed its record %s/ without undoing its changes, "+
		"as a revert would: it is not applied twice; archiplan log lists the apply, archiplan revert %s undoes it",
		plans.PlanAlreadyApplied, id, short(apply.Hash), short(removal.Hash), oneLine(removal.Subject), ArchiveDir+"/"+id, id)
}

// removedStep is the step after that refusal of plan NAME: its changes stand, so nothing waits
// to be applied; the same bytes under another name are the same plan, refused again (resubmit
// alone does not fit). The plan is submitted again under the NAME the inbox holds it as, which
// may not be the one it was applied as.
func removedStep(name string, apply *store.CommitInfo) string {
	id := apply.Trailers[store.TrailerPlanID]
	return "nothing to apply: its changes are in the model already. To apply it again, revert it first (archiplan revert " + id +
		"), then submit it again (archiplan resubmit " + name + ")"
}

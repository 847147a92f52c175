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
	// apply itself, or a merge that brought it): the oldest of them removed it
	id := proved.Trailers[store.TrailerPlanID]
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
	return err == nil && store.BlobID(out) == removal.ModelBlob && removal.ModelBlob != store.BlobID(data)
}

// removedWords is the refusal of plan bytes applied in apply whose record removal removed
// without undoing the plan (recordRemoved).
func removedWords(apply, removal *store.CommitInfo) string {
	id := apply.Trailers[store.TrailerPlanID]
	return fmt.Sprintf("%s: %s was applied in commit %s, and commit %s (%s) removed its record %s/ without undoing its changes, "+
		"as a revert would: it is not applied twice; archiplan log lists the apply, archiplan revert %s undoes it",
		plans.PlanAlreadyApplied, id, short(apply.Hash), short(removal.Hash), oneLine(removal.Subject), ArchiveDir+"/"+id, id)
}

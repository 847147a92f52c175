package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// ErrMergeConflict means a local commit archiplan did not make (a person's, saved in Archi) and
// the remote's commits changed the same thing differently: the sync stops, nothing moves, and
// status names each object and field. A person merges (git pull, with the merge driver, and
// archiplan resolve).
var ErrMergeConflict = errors.New("a local commit made by hand conflicts with the remote")

// remerge makes a local commit archiplan did not make (a person's edit in Archi, committed by
// hand) again on top of on, as git's cherry-pick would with the merge driver: what it changed in
// the model against its parent is merged into on's model object by object and field by field
// (archixml.Merge, the driver's code), its other files are taken where the remote left them as
// they were. What both changed differently is a conflict (ErrMergeConflict): no commit is made.
func remerge(ws *store.Workspace, on string, c store.CommitInfo) (string, error) {
	if c.Merge {
		return "", fmt.Errorf("commit %s (%s) is a merge made by hand: %w", store.Short(c.Hash), c.Subject, store.ErrDiverged)
	}
	mine, err := ws.ChangedFiles(c.Parent, c.Hash)
	if err != nil {
		return "", err
	}
	theirs, err := ws.ChangedFiles(c.Parent, on)
	if err != nil {
		return "", err
	}
	files := map[string][]byte{}
	var conflicts []string
	for path, data := range mine {
		if path == ws.Model {
			continue
		}
		if t, ok := theirs[path]; ok && !bytes.Equal(t, data) {
			conflicts = append(conflicts, fmt.Sprintf("%s: changed on both sides", plans.ShowHidden(path)))
			continue
		}
		files[path] = data
	}
	if model, ok := mine[ws.Model]; ok {
		merged, why, err := mergeModelOnto(ws, on, c, model)
		if err != nil {
			return "", err
		}
		conflicts = append(conflicts, why...)
		files[ws.Model] = merged
	}
	if len(conflicts) > 0 {
		return "", fmt.Errorf("commit %s (%s) and the remote's %s: %s: %w", store.Short(c.Hash), plans.ShowHidden(c.Subject),
			store.Short(on), boundedList(conflicts, 5), ErrMergeConflict)
	}
	return ws.WriteCommit(store.Change{Base: on, Files: files, Message: c.Message, Author: signatureOf(c.Author), When: c.When})
}

// mergeModelOnto is the model a hand commit left (model, nil when it removed it) merged into
// the model at on, on the commit's parent's; the conflicts in words (object, field, the remote's
// value and the commit's).
func mergeModelOnto(ws *store.Workspace, on string, c store.CommitInfo, model []byte) ([]byte, []string, error) {
	base, okBase, err := ws.ModelAt(c.Parent)
	if err != nil {
		return nil, nil, err
	}
	ours, okOurs, err := ws.ModelAt(on)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case okBase && okOurs && bytes.Equal(base, ours):
		return model, nil, nil // the remote left the model as it was: the commit's, byte for byte
	case !okBase || !okOurs || model == nil:
		return nil, []string{plans.ShowHidden(ws.Model) + ": added or removed on one side"}, nil
	}
	var ms [3]*archixml.Model
	for i, data := range [][]byte{base, ours, model} {
		if ms[i], err = archixml.LoadOwned(data); err != nil {
			return nil, nil, fmt.Errorf("merge commit %s: %w", store.Short(c.Hash), err)
		}
	}
	if cs := archixml.Merge(ms[0], ms[1], ms[2], nil); len(cs) > 0 {
		var why []string
		for _, k := range cs {
			why = append(why, fmt.Sprintf("%s (%s) %s: remote %s, here %s", plans.ShowHidden(k.Label), plans.ShowHidden(k.ID),
				plans.ShowHidden(k.Field), conflictValue(k.Ours), conflictValue(k.Theirs)))
		}
		return nil, why, nil
	}
	out, err := ms[1].Save()
	if err != nil {
		return nil, nil, err
	}
	return out, nil, nil
}

// conflictValue shows one side of a conflict on a status line: quoted, hidden characters as codes, short.
func conflictValue(v string) string {
	if v == "(none)" {
		return v
	}
	return bound(hidden.Quote(v), 120)
}

// boundedList joins the first n items and says how many more there are.
func boundedList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return strings.Join(items[:n], "; ") + fmt.Sprintf("; and %d more", len(items)-n)
}

package store

import (
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
)

// Branches lists the repository's local branches, by name, and the one HEAD is on ("" when HEAD
// is detached or the repository has no commit yet).
func (w *Workspace) Branches() (current string, names []string, err error) {
	if ref, err := w.git().Head(); err == nil && ref.Name().IsBranch() {
		current = ref.Name().Short()
	}
	iter, err := w.git().Branches()
	if err != nil {
		return "", nil, err
	}
	err = iter.ForEach(func(r *plumbing.Reference) error {
		names = append(names, r.Name().Short())
		return nil
	})
	sort.Strings(names)
	return current, names, err
}

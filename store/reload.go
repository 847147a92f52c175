package store

import (
	"errors"
	"io/fs"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// reloadingStorage is go-git's storage of a repository on disk, made to survive git gc. go-git
// lists the packs (and loads their indexes) once; `git gc`, `gc --auto` (which git runs by itself
// after commits), `repack -ad` and `prune` pack the loose objects it knew, delete the packs it
// indexed, and write new ones it has never seen. An object that cannot be found is therefore
// looked for once more after the packs are listed again, before it is reported missing.
type reloadingStorage struct {
	*filesystem.Storage
	mu sync.Mutex // one reindex at a time
}

func (s *reloadingStorage) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	o, err := s.Storage.EncodedObject(t, h)
	if err != nil && missing(err) {
		s.reindex()
		o, err = s.Storage.EncodedObject(t, h)
	}
	return o, err
}

func (s *reloadingStorage) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	n, err := s.Storage.EncodedObjectSize(h)
	if err != nil && missing(err) {
		s.reindex()
		n, err = s.Storage.EncodedObjectSize(h)
	}
	return n, err
}

func (s *reloadingStorage) HasEncodedObject(h plumbing.Hash) error {
	err := s.Storage.HasEncodedObject(h)
	if err != nil && missing(err) {
		s.reindex()
		err = s.Storage.HasEncodedObject(h)
	}
	return err
}

func (s *reloadingStorage) reindex() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Storage.Reindex()
}

// missing is an object not found, or a pack file gone from under its index.
func missing(err error) bool {
	return errors.Is(err, plumbing.ErrObjectNotFound) || errors.Is(err, fs.ErrNotExist)
}

// openRepository opens the repository whose .git folder is gitDir, with the work tree at root,
// on the reloading storage.
func openRepository(gitDir, root string) (*git.Repository, error) {
	st := &reloadingStorage{Storage: filesystem.NewStorage(osfs.New(gitDir), cache.NewObjectLRUDefault())}
	return git.Open(st, osfs.New(root))
}

// git is the repository, as last (re)opened.
func (w *Workspace) git() *git.Repository { return w.repo.Load() }

// reloading runs fn, and once more on a repository opened afresh when an object was missing: the
// storage already looks again in the packs, and a fresh open also drops every cache go-git keeps
// (packed refs, open pack files).
func (w *Workspace) reloading(fn func() error) error {
	err := fn()
	if err == nil || !missing(err) {
		return err
	}
	repo, oerr := openRepository(w.gitDir, w.Root)
	if oerr != nil {
		return err
	}
	w.repo.Store(repo)
	return fn()
}

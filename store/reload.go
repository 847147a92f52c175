package store

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// reloadingStorage is go-git's storage of a repository on disk, made to survive git gc. go-git
// lists the packs (and loads their indexes) once; `git gc`, `gc --auto` (which git runs by itself
// after commits), `repack -ad` and `prune` pack the loose objects it knew, delete the packs it
// indexed, and write new ones it has never seen. A commit, tree or blob that cannot be found is
// therefore looked for once more in a storage opened afresh (its packs listed now), before it is
// reported missing.
//
// The shared storage is never re-listed in place: go-git builds its pack index lazily and without a
// lock, and a fetch adds to it as it writes a pack, so resetting it under running readers would race.
// The fresh storage is kept (with a small cache) until objects/pack changes again, and used by one
// lookup at a time. Lookups of any type (a fetch asking which objects it lacks) and existence checks
// miss as a matter of course and are not retried.
type reloadingStorage struct {
	*filesystem.Storage
	gitDir string
	// cache is the shared storage's object cache, asked first: go-git opens a loose object's file
	// (a stat of each folder on its path, then the open) before it looks in its cache, and an
	// approval read some 80 commits and trees that way, most of them ones it had just written
	// (setObject puts its trees and commits here). An object is its hash's content forever.
	cache cache.Object

	// lookups takes turns on the shared storage: go-git fills its pack index maps lazily, without a
	// lock, and a daemon's pass, the review page and a test may read one workspace at once
	// (a "concurrent map iteration and map write" in findObjectInPackfile crashed the team test)
	lookups sync.Mutex

	mu     sync.Mutex // the fallback: one lookup at a time
	fresh  *filesystem.Storage
	stamp  time.Time // objects/pack's modification time when fresh was opened
	opened time.Time
}

func newReloadingStorage(gitDir string) *reloadingStorage {
	c := cache.NewObjectLRUDefault()
	return &reloadingStorage{Storage: filesystem.NewStorage(osfs.New(gitDir), c), gitDir: gitDir, cache: c}
}

// again runs a lookup on the fresh storage, opening it anew when the packs may have changed since
// (objects/pack's time differs, or a second has passed: a change within its resolution).
func (s *reloadingStorage) again(read func(st *filesystem.Storage) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var stamp time.Time
	if fi, err := os.Stat(filepath.Join(s.gitDir, "objects", "pack")); err == nil {
		stamp = fi.ModTime()
	}
	if s.fresh == nil || !stamp.Equal(s.stamp) || time.Since(s.opened) > time.Second {
		s.fresh = filesystem.NewStorage(osfs.New(s.gitDir), cache.NewObjectLRU(4*cache.MiByte))
		s.stamp, s.opened = stamp, time.Now()
	}
	return read(s.fresh)
}

func (s *reloadingStorage) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if o, ok := s.cache.Get(h); ok && (t == plumbing.AnyObject || o.Type() == t) {
		return o, nil
	}
	s.lookups.Lock()
	o, err := s.Storage.EncodedObject(t, h)
	s.lookups.Unlock()
	if err == nil || !missing(err) || t == plumbing.AnyObject {
		return o, err
	}
	if aerr := s.again(func(st *filesystem.Storage) error {
		var err error
		o, err = st.EncodedObject(t, h)
		return err
	}); aerr != nil {
		return nil, err
	}
	return o, nil
}

func (s *reloadingStorage) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	s.lookups.Lock()
	n, err := s.Storage.EncodedObjectSize(h)
	s.lookups.Unlock()
	if err == nil || !missing(err) {
		return n, err
	}
	if aerr := s.again(func(st *filesystem.Storage) error {
		var err error
		n, err = st.EncodedObjectSize(h)
		return err
	}); aerr != nil {
		return 0, err
	}
	return n, nil
}

// HasEncodedObject asks the shared storage, taking turns as every lookup does.
func (s *reloadingStorage) HasEncodedObject(h plumbing.Hash) error {
	s.lookups.Lock()
	defer s.lookups.Unlock()
	return s.Storage.HasEncodedObject(h)
}

// PackfileWriter is go-git's writer of a fetched pack, whose Close adds the new pack's index to the
// shared index map: that write takes turns with the lookups, or a fetch running beside a daemon's
// pass or the review page's read crashes the process ("concurrent map iteration and map write" in
// findObjectInPackfile). Only Close takes the turn; the pack's bytes arrive from the network
// without holding up any reader.
func (s *reloadingStorage) PackfileWriter() (io.WriteCloser, error) {
	s.lookups.Lock()
	w, err := s.Storage.PackfileWriter() // loads the index map when it was not yet
	s.lookups.Unlock()
	if err != nil {
		return nil, err
	}
	return &turnClose{WriteCloser: w, mu: &s.lookups}, nil
}

type turnClose struct {
	io.WriteCloser
	mu *sync.Mutex
}

func (t *turnClose) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.WriteCloser.Close()
}

// SetEncodedObject writes a loose object (a tree, a commit, a small blob) through go-git, whose
// writer resets its cached list of loose objects without a lock: writes take turns with the lookups,
// or the daemon's pass appending to the audit while its syncer joins the remote's audit races (the
// race detector caught it under load).
func (s *reloadingStorage) SetEncodedObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	s.lookups.Lock()
	defer s.lookups.Unlock()
	return s.Storage.SetEncodedObject(o)
}

// HashesWithPrefix walks the shared index map, taking turns as every lookup does.
func (s *reloadingStorage) HashesWithPrefix(prefix []byte) ([]plumbing.Hash, error) {
	s.lookups.Lock()
	defer s.lookups.Unlock()
	return s.Storage.HashesWithPrefix(prefix)
}

// missing is an object not found, or a pack file gone from under its index.
func missing(err error) bool {
	return errors.Is(err, plumbing.ErrObjectNotFound) || errors.Is(err, fs.ErrNotExist) ||
		errors.Is(err, dotgit.ErrPackfileNotFound) || errors.Is(err, dotgit.ErrIdxNotFound)
}

// openRepository opens the repository whose .git folder is gitDir, with the work tree at root,
// on the reloading storage.
func openRepository(gitDir, root string) (*git.Repository, error) {
	return git.Open(newReloadingStorage(gitDir), osfs.New(root))
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

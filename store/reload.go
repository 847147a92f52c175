package store

import (
	"errors"
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
)

// reloadingStorage is go-git's storage of a repository on disk, made to survive git gc. go-git
// lists the packs (and loads their indexes) once; `git gc`, `gc --auto` (which git runs by itself
// after commits), `repack -ad` and `prune` pack the loose objects it knew, delete the packs it
// indexed, and write new ones it has never seen. An object that cannot be found is therefore
// looked for once more after the packs are listed again, before it is reported missing.
//
// Misses are also normal (a fetch asks for the objects it lacks), so the packs are listed again
// only when objects/pack changed since they last were, or a second has passed (a change within
// the file system's timestamp resolution). go-git builds its pack index lazily on the first read,
// so reads share a lock that the re-listing, and the read that rebuilds the index, hold alone.
type reloadingStorage struct {
	*filesystem.Storage
	packDir string

	mu      sync.RWMutex
	stampMu sync.Mutex
	stamp   time.Time // objects/pack's modification time when the packs were last listed
	listed  time.Time // when they were
}

func newReloadingStorage(gitDir string) *reloadingStorage {
	s := &reloadingStorage{Storage: filesystem.NewStorage(osfs.New(gitDir), cache.NewObjectLRUDefault()),
		packDir: filepath.Join(gitDir, "objects", "pack")}
	s.stamp, s.listed = s.packStamp(), time.Now()
	return s
}

func (s *reloadingStorage) packStamp() time.Time {
	fi, err := os.Stat(s.packDir)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// stale reports whether the packs may have changed since they were listed, and if so marks them
// listed now.
func (s *reloadingStorage) stale() bool {
	s.stampMu.Lock()
	defer s.stampMu.Unlock()
	now, stamp := time.Now(), s.packStamp()
	if stamp.Equal(s.stamp) && now.Sub(s.listed) < time.Second {
		return false
	}
	s.stamp, s.listed = stamp, now
	return true
}

// retry runs a read under the shared lock, and when it misses an object while the packs may have
// changed, lists them again and runs it once more under the exclusive lock.
func (s *reloadingStorage) retry(read func() error) error {
	s.mu.RLock()
	err := read()
	s.mu.RUnlock()
	if err == nil || !missing(err) || !s.stale() {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Storage.Reindex()
	return read()
}

func (s *reloadingStorage) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (o plumbing.EncodedObject, err error) {
	err = s.retry(func() error {
		var err error
		o, err = s.Storage.EncodedObject(t, h)
		return err
	})
	return o, err
}

func (s *reloadingStorage) EncodedObjectSize(h plumbing.Hash) (n int64, err error) {
	err = s.retry(func() error {
		var err error
		n, err = s.Storage.EncodedObjectSize(h)
		return err
	})
	return n, err
}

func (s *reloadingStorage) HasEncodedObject(h plumbing.Hash) error {
	return s.retry(func() error { return s.Storage.HasEncodedObject(h) })
}

// missing is an object not found, or a pack file gone from under its index.
func missing(err error) bool {
	return errors.Is(err, plumbing.ErrObjectNotFound) || errors.Is(err, fs.ErrNotExist)
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

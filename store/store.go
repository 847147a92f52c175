package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

var (
	// ErrNoRepository means no git repository holds the folder.
	ErrNoRepository = errors.New("not in a git repository")
	// ErrNoCommit means the repository has no commit yet.
	ErrNoCommit = errors.New("the repository has no commit")
	// ErrModelNotCommitted means HEAD holds no model at the configured path.
	ErrModelNotCommitted = errors.New("the model is not committed")
)

// Workspace is a git repository holding a model.
type Workspace struct {
	Root   string                         // the repository's work tree
	Model  string                         // the model's path, relative to Root, with forward slashes
	repo   atomic.Pointer[git.Repository] // swapped by reopen after git gc; read through git()
	gitDir string
	net    NetOptions // the bounds of fetches and pushes (SetNet)

	idsMu sync.Mutex
	ids   [4]blobMemo // the blob ids of the last few byte slices written as blobs (BlobOf)

	piecesMu   sync.Mutex
	lastPieces *pieces // the last large blob written, as compressed (writeBlob)

	syncs atomic.Int32 // 1 when git's config asks for commits to be synced, -1 when not, 0 unread (durable)

	// failedSetup is the credential set-up (credentialSetup) of the last failure that backs off,
	// in this process: the backoff holds only while the set-up is the same
	failedSetup atomic.Pointer[string]
}

// Open finds the repository around dir (dir itself or a parent) and the model at modelPath
// (relative to the repository's root).
func Open(dir, modelPath string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	root, err := FindRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	gitDir := filepath.Join(root, ".git")
	repo, err := openRepository(gitDir, root)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	w := &Workspace{Root: root, Model: filepath.ToSlash(modelPath), gitDir: gitDir}
	w.repo.Store(repo)
	return w, nil
}

// FindRoot is the work tree of the repository that holds dir: dir or the nearest folder above it
// with a .git, as git finds it. A .git that is not a folder (a worktree's or a submodule's), one
// without a HEAD, or a bare repository found first is ErrNoRepository. It reads a few names and
// no repository, so that a command finds its configuration without opening git twice.
func FindRoot(dir string) (string, error) {
	for d := dir; ; {
		dotGit := filepath.Join(d, ".git")
		if fi, err := os.Lstat(dotGit); err == nil {
			if !fi.IsDir() {
				return "", fmt.Errorf("%s is not a folder (worktrees and submodules are not supported): %w", dotGit, ErrNoRepository)
			}
			if _, err := os.Stat(filepath.Join(dotGit, "HEAD")); err != nil {
				return "", fmt.Errorf("%s holds no HEAD: %w", dotGit, ErrNoRepository)
			}
			return d, nil
		}
		if bare(d) {
			return "", fmt.Errorf("%s is a bare repository, with no work tree: %w", d, ErrNoRepository)
		}
		up := filepath.Dir(d)
		if up == d {
			return "", ErrNoRepository
		}
		d = up
	}
}

// bare reports whether dir looks like a bare repository: HEAD, objects and refs of its own.
func bare(dir string) bool {
	for _, n := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			return false
		}
	}
	return true
}

// ModelAtHead is the model as committed at HEAD.
type ModelAtHead struct {
	Data   []byte
	Blob   string // the model file's git blob id
	Commit string // HEAD's commit id
	Dirty  bool   // the model file in the work tree differs from Blob (or is missing)
}

// HeadBlob returns HEAD's commit and the model's blob id there, reading neither the model nor the
// work tree: the cheap question "did the model at HEAD change?". Like ReadModel, it reopens the
// repository once when an object is missing.
func (w *Workspace) HeadBlob() (commit, blob string, err error) {
	err = w.reloading(func() error {
		var err error
		commit, blob, err = w.headBlob()
		return err
	})
	return commit, blob, err
}

// headBlob is HeadBlob without the reopen.
func (w *Workspace) headBlob() (commit, blob string, err error) {
	ref, err := w.git().Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", "", ErrNoCommit
	}
	if err != nil {
		return "", "", fmt.Errorf("read HEAD: %w", err)
	}
	c, err := w.git().CommitObject(ref.Hash())
	if err != nil {
		return "", "", fmt.Errorf("read commit %s: %w", ref.Hash(), err)
	}
	tree, err := c.Tree()
	if err != nil {
		return "", "", err
	}
	entry, err := tree.FindEntry(w.Model)
	if err != nil {
		return "", "", w.notCommitted(tree, ref.Hash())
	}
	return ref.Hash().String(), entry.Hash.String(), nil
}

// notCommitted is the error of a HEAD (its tree) without the model at the configured path: with
// the models it holds elsewhere, when it holds some (the model moved: git mv), and the setting
// that names the model.
func (w *Workspace) notCommitted(tree *object.Tree, head plumbing.Hash) error {
	var found []string
	_ = tree.Files().ForEach(func(f *object.File) error {
		if strings.EqualFold(path.Ext(f.Name), ".archimate") {
			name := f.Name
			if strings.ContainsFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) {
				name = strconv.Quote(name) // a committed name is shown on one line, as it is
			}
			found = append(found, name)
		}
		if len(found) > 3 {
			return storer.ErrStop
		}
		return nil
	})
	err := fmt.Errorf("%s at %s: %w", w.Model, head.String()[:12], ErrModelNotCommitted)
	if len(found) > 0 {
		err = fmt.Errorf("%w; HEAD holds %s: if the model moved there (git mv), name it in the workspace's configuration (model: PATH in .archiplan.yaml)",
			err, strings.Join(found, ", "))
	}
	return err
}

// WorkTreeModel reads the model file of the work tree, and gives with its bytes same, which hashes
// them and reports whether they are the given blob (HEAD's): hashing a model of tens of megabytes
// takes tens of milliseconds, which a caller spends beside its own work on the bytes, and throws
// that work away when same says no (then ReadModel reads the blob from git). When git's index
// proves the file is that blob (CleanByIndex), same says so without hashing.
func (w *Workspace) WorkTreeModel(blob string) (data []byte, same func() bool, err error) {
	if data, ok := w.readProven(blob); ok {
		return data, func() bool { return true }, nil
	}
	data, err = os.ReadFile(w.ModelPath())
	if err != nil {
		return nil, nil, err
	}
	return data, func() bool { return BlobID(data) == blob }, nil
}

// ReadModel reads the model committed at HEAD (see readModel), reopening the repository once when
// an object is missing.
func (w *Workspace) ReadModel() (m *ModelAtHead, err error) {
	err = w.reloading(func() error {
		var err error
		m, err = w.readModel()
		return err
	})
	return m, err
}

// readModel reads the model committed at HEAD, by blob: never the work tree's edits. When the
// work tree's file is that very blob (its id says so), its bytes are used, sparing the
// decompression of a large object; otherwise the blob is read from git, and Dirty is set.
func (w *Workspace) readModel() (*ModelAtHead, error) {
	ref, err := w.git().Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, ErrNoCommit
	}
	if err != nil {
		return nil, fmt.Errorf("read HEAD: %w", err)
	}
	commit, err := w.git().CommitObject(ref.Hash())
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", ref.Hash(), err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("read the tree of %s: %w", ref.Hash(), err)
	}
	entry, err := tree.FindEntry(w.Model)
	if err != nil {
		return nil, w.notCommitted(tree, ref.Hash())
	}
	head := &ModelAtHead{Blob: entry.Hash.String(), Commit: ref.Hash().String()}
	if data, ok := w.readProven(head.Blob); ok {
		head.Data = data
		return head, nil
	}
	if data, err := os.ReadFile(w.ModelPath()); err == nil && BlobID(data) == head.Blob {
		head.Data = data
		return head, nil
	}
	head.Dirty = true
	blob, err := w.git().BlobObject(entry.Hash)
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", w.Model, ref.Hash().String()[:12], err)
	}
	r, err := blob.Reader()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", w.Model, err)
	}
	defer r.Close()
	if head.Data, err = io.ReadAll(r); err != nil {
		return nil, fmt.Errorf("read %s: %w", w.Model, err)
	}
	return head, nil
}

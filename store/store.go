package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
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
	Root   string // the repository's work tree
	Model  string // the model's path, relative to Root, with forward slashes
	repo   *git.Repository
	gitDir string
}

// Open finds the repository around dir (dir itself or a parent) and the model at modelPath
// (relative to the repository's root).
func Open(dir, modelPath string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	repo, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, ErrNoRepository)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	root := wt.Filesystem.Root()
	gitDir := filepath.Join(root, ".git")
	if fi, err := os.Stat(gitDir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("open workspace %s: .git is not a folder (worktrees and submodules are not supported): %w", dir, ErrNoRepository)
	}
	return &Workspace{Root: root, Model: filepath.ToSlash(modelPath), repo: repo, gitDir: gitDir}, nil
}

// ModelAtHead is the model as committed at HEAD.
type ModelAtHead struct {
	Data   []byte
	Blob   string // the model file's git blob id
	Commit string // HEAD's commit id
}

// ReadModel reads the model from HEAD's tree, by blob: never from the work tree, which Archi may
// have changed since.
func (w *Workspace) ReadModel() (*ModelAtHead, error) {
	ref, err := w.repo.Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, ErrNoCommit
	}
	if err != nil {
		return nil, fmt.Errorf("read HEAD: %w", err)
	}
	commit, err := w.repo.CommitObject(ref.Hash())
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", ref.Hash(), err)
	}
	f, err := commit.File(w.Model)
	if errors.Is(err, object.ErrFileNotFound) {
		return nil, fmt.Errorf("%s at %s: %w", w.Model, ref.Hash().String()[:12], ErrModelNotCommitted)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", w.Model, ref.Hash(), err)
	}
	r, err := f.Reader()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", w.Model, err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", w.Model, err)
	}
	return &ModelAtHead{Data: data, Blob: f.Hash.String(), Commit: ref.Hash().String()}, nil
}

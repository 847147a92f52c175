package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FindRoot finds the work tree as git does, from any folder inside it, and refuses what Open
// cannot work in: a .git file (a worktree or submodule), a .git without HEAD, a bare repository,
// no repository at all.
func TestFindRoot(t *testing.T) {
	w, dir := newRepo(t)
	deep := filepath.Join(dir, "docs", "a", "b")
	os.MkdirAll(deep, 0o755)
	for _, from := range []string{dir, filepath.Join(dir, "docs"), deep} {
		if root, err := FindRoot(from); err != nil || root != w.Root {
			t.Errorf("from %s: %q, %v", from, root, err)
		}
	}
	other := t.TempDir()
	file := filepath.Join(other, "wt")
	os.MkdirAll(file, 0o755)
	os.WriteFile(filepath.Join(file, ".git"), []byte("gitdir: /elsewhere\n"), 0o644)
	empty := filepath.Join(other, "empty")
	os.MkdirAll(filepath.Join(empty, ".git"), 0o755)
	bareDir := filepath.Join(other, "bare.git")
	run(t, other, "init", "-q", "--bare", bareDir)
	os.MkdirAll(filepath.Join(bareDir, "sub"), 0o755)
	for what, from := range map[string]string{"a .git file": file, "a .git without HEAD": empty, "a bare repository": filepath.Join(bareDir, "sub")} {
		if root, err := FindRoot(from); !errors.Is(err, ErrNoRepository) {
			t.Errorf("%s: %q, %v", what, root, err)
		}
		if _, err := Open(from, "model.archimate"); !errors.Is(err, ErrNoRepository) {
			t.Errorf("%s: Open: %v", what, err)
		}
	}
}

package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// inflight is written before the branch moves and removed once the work tree shows the new
// commit: after a crash, Recover finishes what it names or drops it.
type inflight struct {
	Base   string   `json:"base"`
	Commit string   `json:"commit"`
	Paths  []string `json:"paths"`
}

func (w *Workspace) inflightPath() string { return filepath.Join(w.gitDir, "archiplan-inflight.json") }

func (w *Workspace) beginInflight(base, commit string, files map[string][]byte) error {
	in := inflight{Base: base, Commit: commit}
	for p := range files {
		in.Paths = append(in.Paths, p)
	}
	data, _ := json.Marshal(in)
	return w.writeFile(w.inflightPath(), data, 0o644)
}

func (w *Workspace) endInflight() { os.Remove(w.inflightPath()) }

// Publish commits a change and brings the work tree to it, crash-safely: the intent is recorded,
// the branch moves (compare-and-swap on Base), the files are written, the intent is dropped. A
// crash at any point leaves HEAD at Base with the work tree untouched, or HEAD at the new commit
// with Recover able to finish the work tree. Hold the lock.
func (w *Workspace) Publish(c Change) (string, error) {
	// every path is checked before the branch moves: a link planted in the work tree (by a hook,
	// say) refuses the change whole, instead of a commit the work tree cannot follow
	for p := range c.Files {
		if _, err := w.safePath(p); err != nil {
			return "", err
		}
	}
	commit, err := w.prepare(c)
	if err != nil {
		return "", err
	}
	if err := w.beginInflight(c.Base, commit.hash, c.Files); err != nil {
		return "", err
	}
	branch, err := w.branch()
	if err != nil {
		w.endInflight()
		return "", err
	}
	if err := w.moveRef(branch, c.Base, commit.hash); err != nil {
		w.endInflight()
		return "", err
	}
	if err := w.Checkout(commit.hash, c.Files); errors.Is(err, ErrIndexStale) {
		w.endInflight() // the work tree is done; the marker has the index repaired
		return commit.hash, fmt.Errorf("committed %s: %w", short(commit.hash), err)
	} else if err != nil {
		return commit.hash, fmt.Errorf("committed %s, but the work tree is behind (archiplan finishes it on its next run): %w", short(commit.hash), err)
	}
	w.endInflight()
	return commit.hash, nil
}

// Recover finishes or drops a change a crashed process left: when HEAD is the commit it was
// making, the work tree is brought to it; otherwise the branch never moved and nothing is left to
// do. Before that it clears the git locks (index.lock, a ref's .lock) a dead archiplan process
// left, and never one another process took, live or dead (see gitLock), and repairs git's index
// where an earlier change could not update it (ErrIndexStale while a git still holds it). Hold
// the lock. It reports whether it finished a change.
func (w *Workspace) Recover() (bool, error) {
	w.clearDeadLocks() // first: their temporary files pin the inodes that prove them ours
	w.cleanTemps()
	if err := w.repairIndex(); err != nil {
		return false, err
	}
	data, err := os.ReadFile(w.inflightPath())
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var in inflight
	if err := json.Unmarshal(data, &in); err != nil {
		w.endInflight() // written atomically, so a bad one is not ours to finish
		return false, nil
	}
	head, err := w.Head()
	if err != nil {
		return false, err
	}
	if head != in.Commit {
		w.endInflight()
		return false, nil
	}
	files := map[string][]byte{}
	for _, p := range in.Paths {
		content, ok, err := w.FileAt(in.Commit, p)
		if err != nil {
			return false, err
		}
		if ok {
			files[p] = content
		} else {
			files[p] = nil
		}
	}
	// a removed folder: FileAt finds no file there, so nil removes it, as the change did
	if err := w.Checkout(in.Commit, files); err != nil && !errors.Is(err, ErrIndexStale) {
		return false, err
	} else if err != nil {
		w.endInflight() // the work tree is done; the marker has the index repaired
		return true, err
	}
	w.endInflight()
	return true, nil
}

// cleanTemps removes the temporary files a killed writer left (WriteFileAtomic's ".NAME.tmp-*"),
// where archiplan writes: beside the model, in .git and git's objects folder (where a blob is
// written before it is renamed into its own folder), and in the folders of the
// files an unfinished change was writing (the paths its inflight record names: the work tree is
// written only under one, so the archive's folders, one per applied plan, are not all read on
// every run). Only a holder of the lock calls it, so no live writer owns them.
func (w *Workspace) cleanTemps() {
	dirs := []string{filepath.Dir(w.ModelPath()), w.gitDir}
	if data, err := os.ReadFile(w.inflightPath()); err == nil {
		var in inflight
		if json.Unmarshal(data, &in) == nil {
			seen := map[string]bool{}
			for _, p := range in.Paths {
				if abs, err := w.safePath(p); err == nil && !seen[filepath.Dir(abs)] {
					seen[filepath.Dir(abs)] = true
					dirs = append(dirs, filepath.Dir(abs))
				}
			}
		}
	}
	dirs = append(dirs, filepath.Join(w.gitDir, "objects")) // writeBlob's temporary files
	for _, d := range dirs {
		tmps, _ := filepath.Glob(filepath.Join(d, ".*.tmp-*"))
		for _, t := range tmps {
			os.Remove(t)
		}
	}
}

package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// ErrNoConflict means git's index holds no conflict on the path: no merge (or rebase, or
// cherry-pick) stopped on it, or it was resolved already.
var ErrNoConflict = errors.New("no merge conflict on it")

// MergeDriver is the git merge driver init and setup-git register for .archimate files.
const MergeDriver = "archimate"

// mergeDriverCmd is the driver's command line: git gives the base (%O), ours (%A, where the
// result goes), theirs (%B) and the path in the work tree (%P). Where archiplan is not on the
// PATH (a program that runs git without it, a colleague's shell), git's own line merge runs
// instead, as without the driver, rather than a conflict on every merge of the model.
const mergeDriverCmd = `sh -c 'if command -v archiplan >/dev/null 2>&1; then exec archiplan merge-driver "$0" "$1" "$2" "$3"; else exec git merge-file -L ours -L base -L theirs "$1" "$0" "$2"; fi' %O %A %B %P`

// GitAttributes are the lines .gitattributes needs for .archimate files: diffs in words and
// merges of models.
func GitAttributes(attrs []byte) ([]byte, bool) {
	s := string(attrs)
	add := ""
	if !strings.Contains(s, "diff="+DiffDriver) {
		add += "# git log -p shows changes to the model in words (archiplan textconv)\n*.archimate diff=" + DiffDriver + "\n"
	}
	if !strings.Contains(s, "merge="+MergeDriver) {
		add += "# git merge, rebase, pull and cherry-pick merge models, not lines (archiplan merge-driver)\n*.archimate merge=" + MergeDriver + "\n"
	}
	if add == "" {
		return attrs, false
	}
	if len(s) > 0 && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return []byte(s + add), true
}

// SetGitDrivers registers the diff text conversion and the merge driver in the repository's
// own git configuration (each clone needs it: git does not carry configuration).
func (w *Workspace) SetGitDrivers() error {
	if err := w.setDiffDriver(); err != nil {
		return err
	}
	cfg, err := w.git().Config()
	if err != nil {
		return err
	}
	sec := cfg.Raw.Section("merge").Subsection(MergeDriver)
	if sec.Option("driver") == mergeDriverCmd {
		return nil
	}
	sec.SetOption("name", "archiplan: a three-way merge of ArchiMate models")
	sec.SetOption("driver", mergeDriverCmd)
	return w.git().SetConfig(cfg)
}

// MergeStages reads what git's index holds for a path that a merge left in conflict: the base
// (stage 1), ours (2) and theirs (3), and their blob ids. A side without the file is nil.
func (w *Workspace) MergeStages(path string) (files [3][]byte, ids [3]string, err error) {
	idx, err := w.git().Storer.Index()
	if err != nil {
		return files, ids, fmt.Errorf("read git's index: %w", err)
	}
	found := false
	for _, e := range idx.Entries {
		if e.Name != path || e.Stage < index.AncestorMode || e.Stage > index.TheirMode {
			continue
		}
		found = true
		i := int(e.Stage) - 1
		ids[i] = e.Hash.String()
		b, err := w.git().BlobObject(e.Hash)
		if err != nil {
			return files, ids, fmt.Errorf("read %s of %s: %w", e.Hash, path, err)
		}
		r, err := b.Reader()
		if err != nil {
			return files, ids, err
		}
		files[i], err = io.ReadAll(io.LimitReader(r, int64(MaxModelFile)+1))
		r.Close()
		if err != nil {
			return files, ids, err
		}
		if len(files[i]) > MaxModelFile {
			return files, ids, fmt.Errorf("%s of %s is over %d bytes", e.Hash, path, MaxModelFile)
		}
	}
	if !found {
		return files, ids, fmt.Errorf("%s: %w", path, ErrNoConflict)
	}
	return files, ids, nil
}

// MaxModelFile bounds what MergeStages reads of one stage.
var MaxModelFile = 256 << 20

// StageResolved writes a path's merged content to the work tree and stages it in git's index in
// place of the conflict's stages, as git add does: the merge (or rebase) can then go on.
func (w *Workspace) StageResolved(path string, data []byte) error {
	full := filepath.Join(w.Root, filepath.FromSlash(path))
	if err := WriteFileAtomic(full, data, 0o644); err != nil {
		return err
	}
	seen := map[string]os.FileInfo{} // the file as written: an edit since is not recorded as data
	if fi, err := os.Lstat(full); err == nil {
		seen[path] = fi
	}
	if _, err := w.writeBlob(data); err != nil {
		return err
	}
	head, err := w.Head()
	if err != nil {
		return err
	}
	return w.updateIndexSeen(head, map[string][]byte{path: data}, false, seen, nil)
}

// MergeStateFile is where resolve keeps the person's choices while a merge is in conflict.
func (w *Workspace) MergeStateFile() string { return w.GitPath("archiplan-merge.json") }

package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

var (
	// ErrHeadMoved means the branch no longer points where the change started: someone committed
	// meanwhile. Nothing was changed.
	ErrHeadMoved = errors.New("HEAD moved while the change was being made")
	// ErrDetached means HEAD is not on a branch.
	ErrDetached = errors.New("HEAD is detached; check out a branch")
)

// Signature names who made a change.
type Signature struct {
	Name, Email string
}

// Change is one commit to make: files set (content) or removed (nil, a file or a whole folder),
// on top of Base.
type Change struct {
	Base    string            // the commit the change was computed on; "" for the first commit
	Files   map[string][]byte // slash path -> content, or nil to remove
	Message string
	Author  Signature
	When    time.Time
}

type prepared struct{ hash string }

// WriteCommit writes a change's commit without moving any branch (see MoveBranch): for building
// commits on top of a remote's before the branch goes there.
func (w *Workspace) WriteCommit(c Change) (string, error) {
	p, err := w.prepare(c)
	return p.hash, err
}

// prepare writes the blobs, trees and commit object of a change, moving nothing: until the
// branch points at it, the commit is unreachable and harmless.
func (w *Workspace) prepare(c Change) (prepared, error) {
	var err error
	var baseTree plumbing.Hash
	var parents []plumbing.Hash
	if c.Base != "" {
		base, err := w.git().CommitObject(plumbing.NewHash(c.Base))
		if err != nil {
			return prepared{}, fmt.Errorf("read base commit %s: %w", c.Base, err)
		}
		baseTree = base.TreeHash
		parents = []plumbing.Hash{base.Hash}
	}
	paths := make([]string, 0, len(c.Files))
	for p := range c.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	changes := make(map[string]*plumbing.Hash, len(paths))
	for _, p := range paths {
		var blob *plumbing.Hash
		if data := c.Files[p]; data != nil {
			h, err := w.writeBlob(data)
			if err != nil {
				return prepared{}, err
			}
			blob = &h
		}
		changes[p] = blob
	}
	tree, err := w.setPaths(baseTree, changes)
	if err != nil {
		return prepared{}, fmt.Errorf("build the tree of %s: %w", strings.Join(paths, ", "), err)
	}
	if tree.IsZero() {
		tree, err = w.writeTree(nil)
		if err != nil {
			return prepared{}, err
		}
	}
	sig := object.Signature{Name: c.Author.Name, Email: c.Author.Email, When: c.When}
	commit := &object.Commit{Author: sig, Committer: object.Signature{Name: "archiplan", Email: "archiplan@localhost", When: c.When},
		Message: c.Message, TreeHash: tree, ParentHashes: parents}
	obj := w.git().Storer.NewEncodedObject()
	if err := commit.Encode(obj); err != nil {
		return prepared{}, fmt.Errorf("encode commit: %w", err)
	}
	h, err := w.setObject(obj)
	if err != nil {
		return prepared{}, fmt.Errorf("write commit: %w", err)
	}
	return prepared{hash: h.String()}, nil
}

// WriteBlob writes data as a blob ahead of the commit that will name it (Publish then finds it
// written): until then it is an object nothing reaches, as git's own objects are before a commit,
// and git gc removes it if no commit ever does.
func (w *Workspace) WriteBlob(data []byte) error {
	_, err := w.writeBlob(data)
	return err
}

// writeBlob writes a loose blob object as git does (zlib of "blob <size>\\0" and the bytes, to a
// temporary file renamed into objects/), at zlib's fastest level (looseObject): a model is tens of
// megabytes, git reads any level, and git gc packs the objects again anyway.
//
// A large slice written ahead (WriteBlob, while the apply proves its inverse) is not hashed again
// when its commit is prepared: its id is the one remembered (BlobOf), 40 ms at 100,000 elements.
func (w *Workspace) writeBlob(data []byte) (plumbing.Hash, error) {
	id := w.BlobOf(data)
	w.rememberBlob(data, id)
	dir := filepath.Join(w.gitDir, "objects", id[:2])
	path := filepath.Join(dir, id[2:])
	if _, err := os.Stat(path); err == nil {
		return plumbing.NewHash(id), nil
	}
	if err := writeFileAtomicVia(filepath.Join(w.gitDir, "objects"), path, 0o444, w.durable(), w.compressBlob(data)...); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write blob %s: %w", id[:12], err)
	}
	return plumbing.NewHash(id), nil
}

// compressBlob is looseObject of a blob. A large one (a model: from rememberFrom bytes) takes
// the pieces of the last large blob written that it holds unchanged instead of compressing them
// again, and is kept as the last in turn: an apply changes a model in a few places, and at 10,000
// elements compressing it whole was a third of an approval's CPU.
func (w *Workspace) compressBlob(data []byte) [][]byte {
	header := fmt.Sprintf("blob %d\x00", len(data))
	if len(data) < rememberFrom {
		return looseObject(header, data)
	}
	w.piecesMu.Lock()
	prev := w.lastPieces
	w.piecesMu.Unlock()
	z, p := compressed(header, data, prev)
	w.piecesMu.Lock()
	w.lastPieces = p
	w.piecesMu.Unlock()
	return z
}

// setPaths returns a tree like the one given with each file of changes (a path with forward
// slashes) set to its blob, or removed for a nil blob, writing each tree that changes once (an
// apply sets the model and four archive files: four trees, not one set per file). A zero result
// means the tree became empty.
func (w *Workspace) setPaths(treeHash plumbing.Hash, changes map[string]*plumbing.Hash) (plumbing.Hash, error) {
	var entries []object.TreeEntry
	if !treeHash.IsZero() {
		t, err := w.git().TreeObject(treeHash)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, t.Entries...)
	}
	find := func(name string) int {
		idx := -1
		for i, e := range entries {
			if e.Name == name {
				idx = i
			}
		}
		return idx
	}
	// set each entry: a file's here first, then each folder's, as the paths sort
	set := func(name string, mode filemode.FileMode, h *plumbing.Hash) {
		idx := find(name)
		switch {
		case h == nil && idx >= 0:
			entries = append(entries[:idx], entries[idx+1:]...)
		case h == nil:
		case idx >= 0:
			entries[idx] = object.TreeEntry{Name: name, Mode: mode, Hash: *h}
		default:
			entries = append(entries, object.TreeEntry{Name: name, Mode: mode, Hash: *h})
		}
	}
	var files, folders []string
	inside := map[string]map[string]*plumbing.Hash{}
	for p, blob := range changes {
		name, rest, deeper := strings.Cut(p, "/")
		if !deeper {
			files = append(files, name)
			continue
		}
		if inside[name] == nil {
			inside[name] = map[string]*plumbing.Hash{}
			folders = append(folders, name)
		}
		inside[name][rest] = blob
	}
	sort.Strings(files)
	sort.Strings(folders)
	for _, name := range files {
		set(name, filemode.Regular, changes[name])
	}
	for _, name := range folders {
		sub := plumbing.ZeroHash
		if idx := find(name); idx >= 0 && entries[idx].Mode == filemode.Dir {
			sub = entries[idx].Hash
		}
		nh, err := w.setPaths(sub, inside[name])
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if nh.IsZero() {
			set(name, filemode.Dir, nil)
		} else {
			set(name, filemode.Dir, &nh)
		}
	}
	if len(entries) == 0 {
		return plumbing.ZeroHash, nil
	}
	return w.writeTree(entries)
}

// writeTree writes a tree with its entries in git's order (folders sort as if named "name/").
func (w *Workspace) writeTree(entries []object.TreeEntry) (plumbing.Hash, error) {
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	t := &object.Tree{Entries: entries}
	obj := w.git().Storer.NewEncodedObject()
	if err := t.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode tree: %w", err)
	}
	h, err := w.setObject(obj)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write tree: %w", err)
	}
	return h, nil
}

// branch is the branch HEAD is on.
func (w *Workspace) branch() (plumbing.ReferenceName, error) {
	head, err := w.git().Storer.Reference(plumbing.HEAD)
	if err != nil {
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	if head.Type() != plumbing.SymbolicReference {
		return "", ErrDetached
	}
	return head.Target(), nil
}

// moveRef moves the branch from old to new the way git does: under the ref's .lock file (which
// git itself respects), checking the ref still holds old, writing, syncing and renaming. A crash
// leaves the ref at old or at new, never empty.
func (w *Workspace) moveRef(name plumbing.ReferenceName, old, new string) error {
	path := filepath.Join(w.gitDir, filepath.FromSlash(name.String()))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	lk, err := w.takeGitLock(path)
	if err != nil {
		return fmt.Errorf("lock %s: %w", name, err)
	}
	done := false
	defer func() {
		if !done {
			lk.release()
		}
	}()
	cur, err := w.git().Storer.Reference(name)
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		if old != "" {
			return fmt.Errorf("%w: %s is gone", ErrHeadMoved, name)
		}
	case err != nil:
		return fmt.Errorf("read %s: %w", name, err)
	case cur.Hash().String() != old:
		return fmt.Errorf("%w: %s is at %s, not %s", ErrHeadMoved, name.Short(), cur.Hash().String()[:12], short(old))
	}
	if err := lk.commit([]byte(new + "\n")); err != nil {
		return fmt.Errorf("move %s: %w", name, err)
	}
	done = true
	return nil
}

// Short is a commit or blob id cut to 12 hex digits, as people read them; "(none)" for none.
func Short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	if h == "" {
		return "(none)"
	}
	return h
}

func short(h string) string { return Short(h) }

// Checkout writes the given files into the work tree (atomically each; nil removes a file or a
// folder) and records them in git's index, so that `git status` stays clean. The index is
// rewritten under git's own index.lock protocol, waiting (bounded) for a git that holds it; when
// it stays held, the files are written, the index is marked stale for Recover to repair, and the
// error wraps ErrIndexStale.
func (w *Workspace) Checkout(commit string, files map[string][]byte) error {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	// the model first: whoever sees the archive of an apply in the work tree finds its model there
	sort.Slice(paths, func(i, j int) bool {
		if (paths[i] == w.Model) != (paths[j] == w.Model) {
			return paths[i] == w.Model
		}
		return paths[i] < paths[j]
	})
	modes := w.modesAt(commit, files)
	seen := map[string]os.FileInfo{} // each file as it was right after it was written
	for _, p := range paths {
		full, err := w.safePath(p)
		if err != nil {
			return err
		}
		if files[p] == nil {
			if err := os.RemoveAll(full); err != nil {
				return fmt.Errorf("remove %s: %w", p, err)
			}
			w.removeEmptyParents(p)
			continue
		}
		perm := os.FileMode(0o644)
		if modes[p] == filemode.Executable {
			perm = 0o755 // as git writes an executable (a hook): its bit is part of the commit
		}
		if err := w.writeFile(full, files[p], perm); err != nil {
			return err
		}
		if fi, err := os.Lstat(full); err == nil {
			seen[p] = fi
		}
	}
	return w.updateIndexSeen(commit, files, false, seen, modes)
}

// modesAt are the modes the commit's tree gives the files (regular where it names none).
func (w *Workspace) modesAt(commit string, files map[string][]byte) map[string]filemode.FileMode {
	modes := map[string]filemode.FileMode{}
	c, err := w.git().CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return modes
	}
	tree, err := c.Tree()
	if err != nil {
		return modes
	}
	for p, data := range files {
		if data == nil {
			continue
		}
		if e, err := tree.FindEntry(p); err == nil && e.Mode == filemode.Executable {
			modes[p] = filemode.Executable
		}
	}
	return modes
}

func (w *Workspace) indexStalePath() string {
	return filepath.Join(w.gitDir, "archiplan-index-stale.json")
}

// markIndexStale records the paths whose index entries may not match HEAD, adding to those
// recorded before.
func (w *Workspace) markIndexStale(files map[string][]byte) {
	var rec struct {
		Paths []string `json:"paths"`
	}
	if data, err := os.ReadFile(w.indexStalePath()); err == nil {
		_ = json.Unmarshal(data, &rec)
	}
	seen := map[string]bool{}
	for _, p := range rec.Paths {
		seen[p] = true
	}
	for p := range files {
		if !seen[p] {
			rec.Paths = append(rec.Paths, p)
		}
	}
	sort.Strings(rec.Paths)
	data, _ := json.Marshal(rec)
	_ = w.writeFile(w.indexStalePath(), data, 0o644)
}

// repairIndex brings the index entries a stale marker names back to HEAD (the files there, or no
// entry where HEAD has none), then drops the marker. ErrIndexStale while git still holds the lock.
func (w *Workspace) repairIndex() error {
	data, err := os.ReadFile(w.indexStalePath())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", w.indexStalePath(), err)
	}
	var rec struct {
		Paths []string `json:"paths"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		rec.Paths = nil // written atomically: not ours; repair at least the model
	}
	rec.Paths = append(rec.Paths, w.Model)
	head, err := w.Head()
	if err != nil || head == "" {
		return err
	}
	files := map[string][]byte{}
	for _, p := range rec.Paths {
		if p == "" || strings.HasPrefix(p, "/") || strings.Contains("/"+p+"/", "/../") {
			continue
		}
		files[p] = nil
		at, err := w.filesAt(head, p)
		if err != nil {
			return err
		}
		for name, content := range at {
			files[name] = content
		}
	}
	if err := w.updateIndex(head, files, true); err != nil {
		return err
	}
	os.Remove(w.indexStalePath())
	return nil
}

// filesAt is the file at path in a commit, or every file under it when it is a folder (none when
// the commit has nothing there), by slash path.
func (w *Workspace) filesAt(commit, path string) (map[string][]byte, error) {
	c, err := w.git().CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", short(commit), err)
	}
	root, err := c.Tree()
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	if f, err := root.File(path); err == nil {
		s, err := f.Contents()
		if err != nil {
			return nil, err
		}
		out[path] = []byte(s)
		return out, nil
	}
	sub, err := root.Tree(path)
	if err != nil {
		return out, nil // nothing there
	}
	err = sub.Files().ForEach(func(f *object.File) error {
		s, err := f.Contents()
		if err != nil {
			return err
		}
		out[path+"/"+f.Name] = []byte(s)
		return nil
	})
	return out, err
}

// updateIndex sets the index entries of files (nil: no entry at or under that path) under
// index.lock. With verify, a file's stat data is recorded only when the work tree's file holds
// exactly that content (otherwise git is left to hash it and see the difference); without, the
// caller has just written the files.
func (w *Workspace) updateIndex(commit string, files map[string][]byte, verify bool) error {
	return w.updateIndexSeen(commit, files, verify, nil, nil)
}

// updateIndexSeen is updateIndex where the caller saw files right after writing them (seen): a
// file's stat data is recorded only when the file is still as seen then, so that an edit made
// since (by Archi, say) is never recorded as the content just written. modes are the commit's
// (modesAt) when the caller read them already (the commit and its trees are not read twice), or nil.
func (w *Workspace) updateIndexSeen(commit string, files map[string][]byte, verify bool, seen map[string]os.FileInfo, modes map[string]filemode.FileMode) error {
	lk, err := w.takeGitLock(filepath.Join(w.gitDir, "index"))
	if errors.Is(err, ErrGitBusy) {
		w.markIndexStale(files)
		return fmt.Errorf("update git's index to %s: %v: %w", short(commit), err, ErrIndexStale)
	}
	if err != nil {
		return err
	}
	defer lk.release() // after commit, a no-op
	// read only now, under the lock: what another git wrote before is kept
	var idx *index.Index
	if _, err := os.Stat(filepath.Join(w.gitDir, "index")); err != nil {
		// no index yet (a repository go-git made, or one removed): one for the whole commit, as
		// git reset would make; git refreshes the stat data of files it did not see written
		if idx, err = w.indexOf(commit); err != nil {
			return err
		}
	} else if idx, err = w.git().Storer.Index(); err != nil {
		// one go-git cannot read (a split or v4 index): rather than leave it naming the old model,
		// make it again from the commit, as git read-tree would
		if idx, err = w.indexOf(commit); err != nil {
			return err
		}
	}
	kept := idx.Entries[:0]
	for _, e := range idx.Entries {
		drop := false
		for p := range files {
			if e.Name == p || strings.HasPrefix(e.Name, p+"/") {
				drop = true
				break
			}
		}
		if !drop {
			kept = append(kept, e)
		}
	}
	idx.Entries = kept
	if modes == nil {
		modes = w.modesAt(commit, files)
	}
	for p, data := range files {
		if data == nil {
			continue
		}
		e := &index.Entry{Name: p, Hash: plumbing.NewHash(w.BlobOf(data)), Mode: filemode.Regular, Size: uint32(len(data))}
		if modes[p] == filemode.Executable {
			e.Mode = filemode.Executable
		}
		full := filepath.Join(w.Root, filepath.FromSlash(p))
		if fi, err := os.Lstat(full); err == nil && fi.Mode().IsRegular() {
			if at, ok := seen[p]; ok && !sameFile(at, fi) {
				// changed since it was written: no stat data, git hashes it
			} else if !verify {
				setStat(e, fi)
			} else if disk, err := os.ReadFile(full); err == nil && bytes.Equal(disk, data) {
				setStat(e, fi)
			}
		} else if !verify && err != nil {
			return err
		}
		idx.Entries = append(idx.Entries, e)
	}
	sort.Slice(idx.Entries, func(i, j int) bool { return idx.Entries[i].Name < idx.Entries[j].Name })
	idx.Cache = nil // the cache tree no longer matches; git rebuilds it
	var b bytes.Buffer
	if err := index.NewEncoder(&b).Encode(idx); err != nil {
		return fmt.Errorf("encode index: %w", err)
	}
	return lk.commit(b.Bytes())
}

// indexOf makes an index listing every file of a commit's tree.
func (w *Workspace) indexOf(commit string) (*index.Index, error) {
	c, err := w.git().CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return nil, err
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, err
	}
	idx := &index.Index{Version: 2}
	err = tree.Files().ForEach(func(f *object.File) error {
		e := &index.Entry{Name: f.Name, Hash: f.Hash, Mode: f.Mode, Size: uint32(f.Size)}
		if fi, err := os.Stat(filepath.Join(w.Root, filepath.FromSlash(f.Name))); err == nil {
			e.ModifiedAt, e.CreatedAt = fi.ModTime(), fi.ModTime()
		}
		idx.Entries = append(idx.Entries, e)
		return nil
	})
	return idx, err
}

// Head returns the commit HEAD points at ("" when there is none yet).
func (w *Workspace) Head() (string, error) {
	ref, err := w.git().Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read HEAD: %w", err)
	}
	return ref.Hash().String(), nil
}

// FileAt reads a file from a commit's tree; ok is false when it is not there.
func (w *Workspace) FileAt(commit, path string) ([]byte, bool, error) {
	c, err := w.git().CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return nil, false, fmt.Errorf("read commit %s: %w", short(commit), err)
	}
	// a file's blob is read loose by looseBlob when it can be: the tree's entry names it without
	// reading it (go-git's File reads the whole blob, slowly, before Contents copies it again)
	if t, err := c.Tree(); err == nil {
		if e, err := t.FindEntry(path); err == nil && e.Mode.IsFile() {
			if data, loose, err := w.looseBlob(e.Hash); loose || err != nil {
				return data, err == nil, err
			}
			// packed: read once into a buffer of the blob's size (File.Contents grows a
			// buffer from nothing, then copies it to a string and the caller to bytes again)
			if b, err := w.git().BlobObject(e.Hash); err == nil {
				data, err := readBlob(b)
				return data, err == nil, err
			}
		}
	}
	f, err := c.File(path)
	if errors.Is(err, object.ErrFileNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	s, err := f.Contents()
	if err != nil {
		return nil, false, err
	}
	return []byte(s), true, nil
}

// DirAt lists the names in a folder of a commit's tree (nil when there is no such folder).
func (w *Workspace) DirAt(commit, path string) ([]string, error) {
	c, err := w.git().CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", short(commit), err)
	}
	t, err := c.Tree()
	if err != nil {
		return nil, err
	}
	sub, err := t.Tree(path)
	if errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, object.ErrEntryNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range sub.Entries {
		names = append(names, e.Name)
	}
	return names, nil
}

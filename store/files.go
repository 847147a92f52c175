package store

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
)

// ErrDirty means the model file differs from the model at HEAD: edits not committed (saved from
// Archi, say), which an apply must never overwrite.
var ErrDirty = errors.New("the model file has uncommitted changes")

// BlobID is the git blob id of content.
func BlobID(data []byte) string {
	hashed.Add(int64(len(data)))
	h := sha1.New()
	io.WriteString(h, "blob "+strconv.Itoa(len(data))+"\x00")
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// rememberFrom is the size from which a slice's blob id is remembered (BlobOf): a model of 1,000
// elements (400 KB) is, as a larger one is, and hashed once by an apply instead of four times.
const rememberFrom = 256 << 10

// hashed counts the bytes BlobID hashed, for the tests that hold the apply to hashing a model once.
var hashed atomic.Int64

// blobMemo is the blob id of one byte slice, known by where its bytes are and how many.
type blobMemo struct {
	at *byte
	n  int
	id string
}

// BlobOf is BlobID(data), without hashing again the very slice (the same bytes in memory, as a
// change hands its files on) whose id writeBlob computed: a model is tens of megabytes, and an
// apply needs its id for the blob, the index and the model it keeps. The slice must not have
// changed since it was written, as none of a change's files do.
func (w *Workspace) BlobOf(data []byte) string {
	if len(data) > 0 {
		w.idsMu.Lock()
		for _, m := range w.ids {
			if m.at == &data[0] && m.n == len(data) {
				w.idsMu.Unlock()
				return m.id
			}
		}
		w.idsMu.Unlock()
	}
	return BlobID(data)
}

// HasBlob says whether the repository holds data as a blob (in a commit, or in none): bytes it
// does not hold were never committed, which spares a walk of the history looking for them.
func (w *Workspace) HasBlob(data []byte) bool {
	h := plumbing.NewHash(BlobID(data))
	return w.reloading(func() error { return w.git().Storer.HasEncodedObject(h) }) == nil
}

// rememberBlob notes the id writeBlob computed for data.
//
// Only large slices are remembered (from rememberFrom bytes): they are the ones worth not hashing
// again, and an apply's small archive files, written in between, would push the model out.
func (w *Workspace) rememberBlob(data []byte, id string) {
	if len(data) < rememberFrom {
		return
	}
	w.idsMu.Lock()
	if w.ids[0].at != &data[0] || w.ids[0].n != len(data) {
		copy(w.ids[1:], w.ids[:len(w.ids)-1])
	}
	w.ids[0] = blobMemo{at: &data[0], n: len(data), id: id}
	w.idsMu.Unlock()
}

// GitPath is the path of a file of archiplan's own in the repository's .git folder.
func (w *Workspace) GitPath(name string) string { return filepath.Join(w.gitDir, name) }

// WriteGitFile writes a file of archiplan's own in the repository's .git folder (at GitPath(name))
// atomically, synced as a commit's files are (see Syncing): a note an apply writes before its
// commit survives whatever the commit survives.
func (w *Workspace) WriteGitFile(name string, data []byte) error {
	return w.writeFile(w.GitPath(name), data, 0o644)
}

// ModelPath is the model file's path on disk.
func (w *Workspace) ModelPath() string { return filepath.Join(w.Root, filepath.FromSlash(w.Model)) }

// Dirty reports whether the model file differs from the blob committed at HEAD (a missing file
// counts as different): from git's index when it proves the file clean (CleanByIndex), else by
// hashing it.
func (w *Workspace) Dirty(headBlob string) (bool, error) {
	if w.CleanByIndex(headBlob) {
		return false, nil
	}
	data, err := os.ReadFile(w.ModelPath())
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", w.Model, err)
	}
	return BlobID(data) != headBlob, nil
}

// WriteFileAtomic writes a file as readers must see it: whole or not at all. The bytes go to a
// temporary file in the same folder, are synced, and the file is renamed into place; the folder
// is synced so that the rename survives a crash.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return writeFileAtomicVia(filepath.Dir(path), path, perm, true, data)
}

// writeFile is WriteFileAtomic for the files of a commit: synced when git's config asks for
// commits to be (durable).
func (w *Workspace) writeFile(path string, data []byte, perm os.FileMode) error {
	return writeFileAtomicVia(filepath.Dir(path), path, perm, w.durable(), data)
}

// writeFileAtomicVia is WriteFileAtomic with the temporary file in tmpDir, a folder on the same
// file system (git's objects: one folder to clean after a crash instead of 256), synced (the file,
// then its folder after the rename) when sync is set; the content is the pieces of data, one after
// the other.
func writeFileAtomicVia(tmpDir, path string, perm os.FileMode, sync bool, data ...[]byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(tmpDir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	bufs := net.Buffers(data) // one writev for the pieces
	if _, err := bufs.WriteTo(tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if sync {
		if err := syncFile(tmp); err != nil {
			return fmt.Errorf("sync %s: %w", path, err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("rename into %s: %w", path, err)
	}
	ok = true
	if sync {
		syncFolder(dir)
	}
	return nil
}

// ErrSymlink means a path in the work tree passes through a symbolic link: archiplan never writes
// or deletes through one (it could lead anywhere).
var ErrSymlink = errors.New("passes through a symbolic link")

// safePath is the absolute path of a work tree path, after checking that no part of it that
// exists is a symbolic link (the last part may be one: it is replaced or removed, never
// followed) and that it stays inside the work tree.
func (w *Workspace) safePath(rel string) (string, error) {
	clean := filepath.Clean(filepath.FromSlash(rel))
	if clean == "." || filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s: not a path inside the work tree", rel)
	}
	parts := strings.Split(clean, string(filepath.Separator))
	cur := w.Root
	for _, part := range parts[:len(parts)-1] {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if errors.Is(err, os.ErrNotExist) {
			break // made new by the write, as a folder
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return "", fmt.Errorf("%s: %s %w", rel, cur, ErrSymlink)
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("%s: %s is not a folder", rel, cur)
		}
	}
	return filepath.Join(w.Root, clean), nil
}

// removeEmptyParents removes the folders of a removed path that are left empty, up to the root.
func (w *Workspace) removeEmptyParents(rel string) {
	for dir := filepath.Dir(filepath.FromSlash(rel)); dir != "." && dir != string(filepath.Separator); dir = filepath.Dir(dir) {
		if os.Remove(filepath.Join(w.Root, dir)) != nil {
			return
		}
	}
}

package store

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// fileStat is the part of a file's stat data that os.FileInfo does not give in common.
type fileStat struct {
	ctime    time.Time
	dev, ino uint32
	uid, gid uint32
}

// setStat records a file's stat data in its index entry, as git does when it has seen the file
// hold the entry's blob: git status then need not read it again, nor archiplan's next command
// (CleanByIndex).
func setStat(e *index.Entry, fi os.FileInfo) {
	e.ModifiedAt, e.CreatedAt = fi.ModTime(), fi.ModTime()
	if s, ok := statOf(fi); ok {
		e.CreatedAt, e.Dev, e.Inode, e.UID, e.GID = s.ctime, s.dev, s.ino, s.uid, s.gid
	}
}

// CleanByIndex reports whether git's index proves, without reading the model file, that it holds
// headBlob (HEAD's): the model's entry names that blob, the file's stat data is the entry's
// (size, mtime, ctime, device, inode, owner), and the entry is not racily clean. That is git's
// rule (Documentation/technical/racy-git.txt): stat data proves nothing of a file whose mtime is
// not strictly older than the index file's, since a write in the same tick as the one recorded
// keeps the mtime. False says only that the file must be hashed to know.
func (w *Workspace) CleanByIndex(headBlob string) bool {
	_, ok := w.cleanByIndex(headBlob)
	return ok
}

// cleanByIndex is CleanByIndex with the file's information as the index proved it.
func (w *Workspace) cleanByIndex(headBlob string) (os.FileInfo, bool) {
	f, err := os.Open(filepath.Join(w.gitDir, "index"))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	ifi, err := f.Stat() // the index's mtime, of the very bytes read
	if err != nil || ifi.ModTime().IsZero() {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, 64<<20))
	if err != nil {
		return nil, false
	}
	var idx index.Index
	if index.NewDecoder(bytes.NewReader(data)).Decode(&idx) != nil {
		return nil, false
	}
	var e *index.Entry
	for _, c := range idx.Entries {
		if c.Name == w.Model {
			if e != nil || c.Stage != 0 { // 0, not go-git's index.Merged (1, a conflict's base)
				return nil, false // a conflict's stages
			}
			e = c
		}
	}
	if e == nil || e.Hash.String() != headBlob || e.SkipWorktree || e.IntentToAdd ||
		(e.Mode != filemode.Regular && e.Mode != filemode.Executable) {
		return nil, false
	}
	fi, err := os.Lstat(w.ModelPath())
	if err != nil || !fi.Mode().IsRegular() || !sameStat(e, fi) {
		return nil, false
	}
	// racily clean: the file may have been written again in the tick its mtime names
	if !e.ModifiedAt.Before(ifi.ModTime()) {
		return nil, false
	}
	return fi, true
}

// sameStat says whether a file's stat data is the index entry's.
func sameStat(e *index.Entry, fi os.FileInfo) bool {
	s, ok := statOf(fi)
	return ok && fi.Size() >= 0 && e.Size == uint32(fi.Size()) && uint64(fi.Size()) < 1<<32 &&
		e.ModifiedAt.Equal(fi.ModTime()) && e.CreatedAt.Equal(s.ctime) &&
		e.Dev == s.dev && e.Inode == s.ino && e.UID == s.uid && e.GID == s.gid && s.ino != 0
}

// readProven reads the model file when git's index proves it holds headBlob (cleanByIndex): the
// file opened must be the one proved, and unchanged while it is read (an edit meanwhile moves its
// mtime past the index's). ok is false when it cannot be proved so; the file is then hashed.
func (w *Workspace) readProven(headBlob string) (data []byte, ok bool) {
	proved, ok := w.cleanByIndex(headBlob)
	if !ok {
		return nil, false
	}
	f, err := os.Open(w.ModelPath())
	if err != nil {
		return nil, false
	}
	defer f.Close()
	unchanged := func() bool {
		fi, err := f.Stat()
		return err == nil && sameFile(fi, proved)
	}
	if !unchanged() {
		return nil, false
	}
	data = make([]byte, proved.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, false
	}
	if n, _ := f.Read(make([]byte, 1)); n != 0 || !unchanged() {
		return nil, false
	}
	return data, true
}

// sameFile says whether two looks at a file saw it unchanged: the same inode, size, mtime and
// ctime.
func sameFile(a, b os.FileInfo) bool {
	if a.Size() != b.Size() || !a.ModTime().Equal(b.ModTime()) {
		return false
	}
	sa, ok1 := statOf(a)
	sb, ok2 := statOf(b)
	return ok1 && ok2 && sa == sb
}

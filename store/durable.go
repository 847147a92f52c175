package store

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	format "github.com/go-git/go-git/v5/plumbing/format/config"
)

// Syncing. Every file archiplan writes in an apply (the model's blob, its journal, the branch, the
// index, the work tree, the archive) is written to a temporary file and renamed into place, so a
// process killed at any moment leaves each file whole, old or new, and the journal lets the next
// command finish or undo the commit. Surviving a power loss or a kernel crash as well takes an
// fsync of each file and folder, which git does not do by default either (its default syncs packs,
// not the loose objects, refs and index a commit writes) and which costs more than the rest of an
// apply on a small model (an fsync is milliseconds on a busy disk; an apply made 39).
//
// So archiplan syncs as the repository's git is configured to: when git's config (the system's,
// the user's, then the repository's; the last core.fsync wins, as in git) hardens loose objects or
// references (core.fsync naming loose-object, reference, objects, committed, added or all, or the
// older core.fsyncObjectFiles = true), every write of an apply is synced, its folder too. A team
// that wants commits to survive a power loss sets `git config core.fsync committed`, and git and
// archiplan both honour it.

// durable reports whether this repository's git config asks for commits to be synced, read once
// per Workspace.
func (w *Workspace) durable() bool {
	if v := w.syncs.Load(); v != 0 {
		return v > 0
	}
	var layers []*format.Config
	for _, scope := range []config.Scope{config.SystemScope, config.GlobalScope} {
		if c, err := config.LoadConfig(scope); err == nil && c.Raw != nil {
			layers = append(layers, c.Raw)
		}
	}
	if c, err := w.git().Storer.Config(); err == nil && c.Raw != nil {
		layers = append(layers, c.Raw)
	}
	on := fsyncWanted(layers...)
	if on {
		w.syncs.Store(1)
	} else {
		w.syncs.Store(-1)
	}
	return on
}

// fsyncWanted reads core.fsync and core.fsyncObjectFiles from config layers, lowest first, as git
// does: each core.fsync starts again from git's default (packs and their metadata, the commit
// graph), "none" empties the set, "-NAME" removes a component and "NAME" adds one. It reports
// whether the set holds loose objects or references, which are what a commit writes.
func fsyncWanted(layers ...*format.Config) bool {
	var fsync string
	set, objectFiles := false, false
	for _, l := range layers {
		core := l.Section("core")
		if all := core.OptionAll("fsync"); len(all) > 0 {
			fsync, set = all[len(all)-1], true
		}
		if all := core.OptionAll("fsyncObjectFiles"); len(all) > 0 {
			objectFiles = gitBool(all[len(all)-1])
		}
	}
	if objectFiles {
		return true
	}
	if !set {
		return false
	}
	components := map[string]bool{} // of git's default, none a commit writes
	groups := map[string][]string{
		"objects":   {"loose-object", "pack"},
		"committed": {"loose-object", "pack", "reference"},
		"added":     {"loose-object", "pack", "reference", "index"},
		"all":       {"loose-object", "pack", "reference", "index"},
	}
	for _, tok := range strings.Split(fsync, ",") {
		tok = strings.ToLower(strings.TrimSpace(tok))
		on := true
		if strings.HasPrefix(tok, "-") {
			tok, on = tok[1:], false
		}
		if tok == "none" {
			components = map[string]bool{}
			continue
		}
		names := groups[tok]
		if names == nil {
			names = []string{tok}
		}
		for _, n := range names {
			components[n] = on
		}
	}
	return components["loose-object"] || components["reference"]
}

// gitBool is git's reading of a boolean value.
func gitBool(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1", "":
		return true
	}
	return false
}

// fsyncs counts the syncs archiplan's writers made, for the tests that hold the policy above.
var fsyncs atomic.Int64

// Syncs is how many syncs archiplan's writers made in this process, for the tests of other
// packages that hold an apply to the policy above.
func Syncs() int64 { return fsyncs.Load() }

// syncFile syncs an open file.
func syncFile(f *os.File) error {
	fsyncs.Add(1)
	return f.Sync()
}

// syncFolder syncs a folder, so that a rename in it survives a crash; errors are ignored (some
// file systems cannot sync a folder).
func syncFolder(dir string) {
	if d, err := os.Open(dir); err == nil {
		fsyncs.Add(1)
		_ = d.Sync()
		d.Close()
	}
}

// setObject writes a tree or a commit as writeBlob writes a blob (looseObject's zlib, a temporary
// file renamed into objects/, synced with its folder when git's config asks for commits to be:
// durable), not through go-git, whose writer took a fresh zlib compressor and a file through its
// own layers per object (5% of a 1,000-element cold apply's CPU for its four trees and a commit).
// An object already there is not written again.
func (w *Workspace) setObject(obj plumbing.EncodedObject) (plumbing.Hash, error) {
	r, err := obj.Reader()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	data, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	h := obj.Hash()
	id := h.String()
	path := filepath.Join(w.gitDir, "objects", id[:2], id[2:])
	if _, err := os.Stat(path); err != nil {
		if err := writeFileAtomicVia(filepath.Join(w.gitDir, "objects"), path, 0o444, w.durable(), looseObject(fmt.Sprintf("%s %d\x00", obj.Type(), len(data)), data)...); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("write object %s: %w", id[:12], err)
		}
	}
	if s, ok := w.git().Storer.(*reloadingStorage); ok {
		s.cache.Put(obj) // read again at once: the next apply's base, the walks since a preview
	}
	return h, nil
}

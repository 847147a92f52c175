package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/archiplan/archiplan/internal/osfile"
	"github.com/archiplan/archiplan/internal/proc"
)

var (
	// ErrGitBusy means a git lock file (index.lock, a ref's .lock) stayed held by another process
	// for longer than archiplan waits. archiplan never removes a lock it did not take.
	ErrGitBusy = errors.New("another git process holds the lock")
	// ErrIndexStale means the commit was made but git's index could not be updated to it (another
	// git process held index.lock throughout): until it is repaired, `git status` shows the change
	// as undone and a plain `git commit` would revert it. The next archiplan command repairs it
	// first (Recover); do not commit with git before.
	ErrIndexStale = errors.New("git's index is behind HEAD: run any archiplan command (status) before committing with git")
)

// gitLockWait is how long archiplan waits for a live holder of a git lock: git holds the index's
// for milliseconds (a `git status` refresh) and the refs' for less; a longer hold is a person's
// `git commit` with its editor open, which archiplan does not wait out.
var gitLockWait = 2 * time.Second

// heldHere are the locks this process holds now (lock path -> true): a Recover in the same
// process never takes them for a dead holder's.
var heldHere sync.Map

// gitLock is a git lock file taken under git's own protocol: the lock (TARGET.lock) is created
// exclusively, the new content written to it, synced, and renamed over TARGET; git and archiplan
// each wait or fail while the other holds it.
//
// How archiplan knows a lock is its own. A lock file says nothing of its holder, so before
// taking one archiplan writes an owner record (.git/archiplan-owner-KEY.json: pid, and the
// device and inode of a temporary file in .git), then makes the lock a hard link to that
// temporary file (link(2) fails when the lock exists: git's O_EXCL, atomically). A lock is
// archiplan's exactly when its inode is the recorded one while the temporary file still pins that
// inode (so it cannot have been reused by another file). Only such a lock, whose recorded process
// no longer runs (its pid gone, a zombie, or reused by a process that started at another time; or
// this process, not holding it), is ever removed: a lock held by git,
// live or dead, is never removed by archiplan, only reported (git's own advice then applies:
// remove it when no git process runs).
type gitLock struct {
	target, lock, tmp, owner string
	f                        *os.File
	sync                     bool // sync the lock's content and the rename (Workspace.durable)
}

type lockOwner struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start,omitempty"` // the process's start time (/proc/PID/stat), which a reused pid does not share
	Tmp   string `json:"tmp"`
	Dev   uint64 `json:"dev"`
	Inode uint64 `json:"inode"`
}

func (w *Workspace) ownerPath(target string) string {
	rel, err := filepath.Rel(w.gitDir, target)
	if err != nil {
		rel = filepath.Base(target)
	}
	return filepath.Join(w.gitDir, "archiplan-owner-"+strings.ReplaceAll(filepath.ToSlash(rel), "/", "%")+".json")
}

// takeGitLock takes TARGET.lock, waiting up to gitLockWait (with backoff) for a live holder, after
// clearing one a dead archiplan left. ErrGitBusy when it stays held.
func (w *Workspace) takeGitLock(target string) (*gitLock, error) {
	w.clearDeadLock(target)
	l := &gitLock{target: target, lock: target + ".lock", owner: w.ownerPath(target), sync: w.durable()}
	f, err := osfile.CreateTemp(w.gitDir, ".archiplan-lock.tmp-*")
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", filepath.Base(target), err)
	}
	l.f, l.tmp = f, f.Name()
	dev, ino, err := osfile.ID(f)
	if err != nil {
		l.cleanup()
		return nil, fmt.Errorf("lock %s: %w", filepath.Base(target), err)
	}
	rec, _ := json.Marshal(lockOwner{PID: os.Getpid(), Start: selfStart(), Tmp: filepath.Base(l.tmp), Dev: dev, Inode: ino})
	if err := w.writeFile(l.owner, rec, 0o644); err != nil {
		l.cleanup()
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(l.lock), 0o755); err != nil {
		l.cleanup()
		return nil, err
	}
	deadline := time.Now().Add(gitLockWait)
	pause := 5 * time.Millisecond
	for {
		err = os.Link(l.tmp, l.lock)
		if err != nil && !errors.Is(err, os.ErrExist) {
			// a file system without hard links: git's plain O_EXCL, whose lock a crash leaves for
			// a person to remove, as git's own does
			var f2 *os.File
			if f2, err = os.OpenFile(l.lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
				l.cleanup()
				l.f, l.tmp, l.owner = f2, "", ""
			}
		}
		if err == nil {
			heldHere.Store(l.lock, true)
			return l, nil
		}
		if !errors.Is(err, os.ErrExist) || time.Now().After(deadline) {
			l.cleanup()
			if errors.Is(err, os.ErrExist) {
				return nil, fmt.Errorf("%s: %w (waited %s; if no git process runs, remove it)", l.lock, ErrGitBusy, gitLockWait)
			}
			return nil, fmt.Errorf("lock %s: %w", filepath.Base(target), err)
		}
		time.Sleep(pause)
		if pause < 200*time.Millisecond {
			pause *= 2
		}
	}
}

// commit writes data as the target's new content: into the lock, synced, renamed over the target.
func (l *gitLock) commit(data []byte) error {
	if _, err := l.f.Write(data); err != nil {
		l.release()
		return fmt.Errorf("write %s: %w", l.lock, err)
	}
	if l.sync {
		if err := syncFile(l.f); err != nil {
			l.release()
			return fmt.Errorf("sync %s: %w", l.lock, err)
		}
	}
	if err := os.Rename(l.lock, l.target); err != nil {
		l.release()
		return fmt.Errorf("rename %s: %w", l.lock, err)
	}
	heldHere.Delete(l.lock)
	l.cleanup()
	if l.sync {
		syncFolder(filepath.Dir(l.target))
	}
	return nil
}

// release gives the lock up without changing the target.
func (l *gitLock) release() {
	if l.ours() {
		os.Remove(l.lock)
	}
	heldHere.Delete(l.lock)
	l.cleanup()
}

func (l *gitLock) ours() bool {
	if l.f == nil {
		return false
	}
	ad, ai, err := osfile.ID(l.f)
	if err != nil {
		return false
	}
	bd, bi, err := osfile.LstatID(l.lock)
	return err == nil && ad == bd && ai == bi
}

// cleanup drops the owner record, then the temporary file that pinned the inode.
func (l *gitLock) cleanup() {
	if l.owner != "" {
		os.Remove(l.owner)
	}
	if l.f != nil {
		l.f.Close()
	}
	if l.tmp != "" {
		os.Remove(l.tmp)
	}
}

// clearDeadLock removes TARGET.lock when it is one a dead archiplan process took (see gitLock),
// and the owner record and temporary file such a process left. It reports whether it removed a
// lock. Any other lock is left alone.
func (w *Workspace) clearDeadLock(target string) bool {
	owner := w.ownerPath(target)
	data, err := os.ReadFile(owner)
	if err != nil {
		return false
	}
	var rec lockOwner
	if json.Unmarshal(data, &rec) != nil || rec.Tmp == "" || strings.ContainsAny(rec.Tmp, `/\`) {
		os.Remove(owner)
		return false
	}
	lock := target + ".lock"
	if _, held := heldHere.Load(lock); held || (rec.PID != os.Getpid() && running(rec.PID, rec.Start)) {
		return false
	}
	tmp := filepath.Join(w.gitDir, rec.Tmp)
	removed := false
	if td, ti, err := osfile.LstatID(tmp); err == nil && td == rec.Dev && ti == rec.Inode {
		if ld, li, err := osfile.LstatID(lock); err == nil && ld == td && li == ti {
			removed = os.Remove(lock) == nil
		}
	}
	os.Remove(owner)
	os.Remove(tmp)
	return removed
}

// running reports whether the process that wrote an owner record still runs: a process with
// that pid exists, is not a zombie, and (where /proc says) started when the record says. Without
// /proc a live pid counts as running: the safe side, a lock then reported rather than removed.
func running(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	if !proc.Exists(pid) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	fields := statFields(stat)
	if len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X") {
		return false
	}
	if start != 0 && len(fields) > 19 {
		if st, err := strconv.ParseUint(fields[19], 10, 64); err == nil && st != start {
			return false // the pid was reused by another process
		}
	}
	return true
}

// statFields are the fields of /proc/PID/stat after the command's closing parenthesis: the
// state first, the start time (field 22 of proc(5)) at index 19.
func statFields(stat []byte) []string {
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(stat[i+1:]))
}

// selfStart is this process's start time, read once (an approval takes three git locks, each
// read /proc for it).
var selfStart = sync.OnceValue(func() uint64 { return startTime(os.Getpid()) })

// startTime is a process's start time in clock ticks since boot, 0 when /proc does not say.
func startTime(pid int) uint64 {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	if f := statFields(stat); len(f) > 19 {
		st, _ := strconv.ParseUint(f[19], 10, 64)
		return st
	}
	return 0
}

// clearDeadLocks clears every lock a dead archiplan process left (see clearDeadLock).
func (w *Workspace) clearDeadLocks() {
	owners, _ := filepath.Glob(filepath.Join(w.gitDir, "archiplan-owner-*.json"))
	for _, o := range owners {
		rel := strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(o), "archiplan-owner-"), ".json"), "%", "/")
		if rel == "" || strings.Contains(rel, "..") {
			os.Remove(o)
			continue
		}
		w.clearDeadLock(filepath.Join(w.gitDir, filepath.FromSlash(rel)))
	}
}

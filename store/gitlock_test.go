package store

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/archiplan/archiplan/internal/osfile"
)

// plantLock makes TARGET.lock the way an archiplan process takes it (a hard link to a temporary
// file in .git whose inode its owner record names), for the process pid: the lock of another
// archiplan, alive or dead. inode, when not zero, is the inode the record names instead.
func plantLock(t *testing.T, w *Workspace, target string, pid int, inode uint64) (lock string) {
	t.Helper()
	tmp, err := os.CreateTemp(w.gitDir, ".archiplan-lock.tmp-*")
	if err != nil {
		t.Fatal(err)
	}
	tmp.Close()
	dev, ino, err := osfile.LstatID(tmp.Name())
	if err != nil {
		t.Fatal(err)
	}
	if inode == 0 {
		inode = ino
	}
	rec, _ := json.Marshal(lockOwner{PID: pid, Start: startTime(pid), Tmp: filepath.Base(tmp.Name()), Dev: dev, Inode: inode})
	if err := os.WriteFile(w.ownerPath(target), rec, 0o644); err != nil {
		t.Fatal(err)
	}
	lock = target + ".lock"
	if err := os.Link(tmp.Name(), lock); err != nil {
		t.Fatal(err)
	}
	return lock
}

// process is a running process of the test's own (sleep), and a way to end it.
func process(t *testing.T) (pid int, end func()) {
	t.Helper()
	cmd := exec.Command("sleep", "1000")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := false
	end = func() {
		if !ended {
			ended = true
			cmd.Process.Kill()
			cmd.Wait()
		}
	}
	t.Cleanup(end)
	return cmd.Process.Pid, end
}

// clearDeadLock removes a lock only when it is archiplan's own (its inode the one the owner
// record names, pinned by the record's temporary file) and its owner no longer runs. A live
// archiplan's lock, a lock git made in its place, and a record naming another inode are left.
func TestClearDeadLock(t *testing.T) {
	for _, c := range []struct {
		name    string
		alive   bool
		replace bool   // git's own lock file took the lock's place
		inode   uint64 // the record names this inode instead of the temporary file's
		removed bool
	}{
		{name: "dead owner", removed: true},
		{name: "live owner", alive: true},
		{name: "git's lock in its place", replace: true},
		{name: "record names another inode", inode: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, dir := newRepo(t)
			target := filepath.Join(dir, ".git", "index")
			pid, end := process(t)
			lock := plantLock(t, ws, target, pid, c.inode)
			if c.replace {
				os.Remove(lock)
				if err := os.WriteFile(lock, []byte("git's\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if !c.alive {
				end()
			}
			got := ws.clearDeadLock(target)
			_, err := os.Lstat(lock)
			if got != c.removed || (err == nil) == c.removed {
				t.Fatalf("clearDeadLock = %v, lock there: %v; want removed = %v", got, err == nil, c.removed)
			}
		})
	}
}

package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startGit starts a git command in a process group of its own, killed at the test's end.
func startGit(t *testing.T, dir string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		signalGroup(cmd, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return cmd
}

// groupGone waits until no process of process group pgid is left alive (a zombie has finished
// all it will ever do). It reads /proc; without it, it returns at once.
func groupGone(t *testing.T, pgid int) {
	t.Helper()
	for {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		alive := false
		for _, e := range entries {
			stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if err != nil {
				continue // not a process, or gone since the listing
			}
			// pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses
			f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
			if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
				alive = true
				break
			}
		}
		if !alive {
			return
		}
		runtime.Gosched()
	}
}

// holdIndexLock starts a real `git commit` whose editor never returns: git holds index.lock
// until it is stopped, as a person's commit with its editor open does.
func holdIndexLock(t *testing.T, dir string) (stop func()) {
	t.Helper()
	os.WriteFile(filepath.Join(dir, "README"), []byte("a person's edit\n"), 0o644)
	cmd := startGit(t, dir, []string{"GIT_EDITOR=sleep 1000; true"}, "commit", "-a")
	lock := filepath.Join(dir, ".git", "index.lock")
	for i := 0; ; i++ {
		if _, err := os.Stat(lock); err == nil {
			break
		}
		if i == 30000 { // 5 minutes and more: only a git that never takes it
			t.Fatal("git commit never took index.lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return func() {
		// SIGTERM: git removes its own lock on the way out, as when a person quits the editor
		signalGroup(cmd, syscall.SIGTERM)
		_ = cmd.Wait()
		if _, err := os.Stat(lock); err == nil {
			t.Fatal("git left index.lock behind")
		}
	}
}

// checkIndexAndCommit checks that the index matches HEAD for everything archiplan wrote, and that
// an ordinary unrelated commit keeps the model and the archive.
func checkIndexAndCommit(t *testing.T, dir, model string, archives []string) {
	t.Helper()
	if out := run(t, dir, "status", "--porcelain"); strings.Contains(out, "model.archimate") || strings.Contains(out, "plans/") {
		t.Fatalf("git status after the applies:\n%s", out)
	}
	os.WriteFile(filepath.Join(dir, "other.txt"), []byte("unrelated, again\n"), 0o644)
	run(t, dir, "add", "other.txt")
	run(t, dir, "commit", "-q", "-m", "an unrelated commit")
	if got := run(t, dir, "show", "HEAD:model.archimate"); got != strings.TrimSpace(model) {
		t.Fatalf("the unrelated commit reverted the model to %q", got)
	}
	tree := run(t, dir, "ls-tree", "-r", "--name-only", "HEAD")
	for _, a := range archives {
		if !strings.Contains(tree, a) {
			t.Fatalf("the unrelated commit deleted %s", a)
		}
	}
}

func publish(t *testing.T, ws *Workspace, i int) (string, error) {
	t.Helper()
	lock, err := ws.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	if _, err := ws.Recover(); err != nil && !errors.Is(err, ErrIndexStale) {
		t.Fatal(err)
	}
	head, err := ws.Head()
	if err != nil {
		t.Fatal(err)
	}
	return ws.Publish(Change{Base: head, When: time.Now(), Message: fmt.Sprintf("plan %d\n", i), Files: map[string][]byte{
		"model.archimate": []byte(fmt.Sprintf("v%d\n", i)),
		fmt.Sprintf("plans/applied/p%02d/plan.json", i): []byte("{}\n"),
	}})
}

// An IDE runs `git status` in a loop while plans are applied: each takes index.lock for a moment.
// Every apply updates the index under git's protocol (waiting its turn), so that afterwards the
// index matches HEAD and an ordinary commit neither reverts the model nor deletes the archive.
func TestPublish_IndexLockedByLoopingGitStatus(t *testing.T) {
	ws, dir := newRepo(t)
	loop := exec.Command("sh", "-c", "while :; do git -C '"+dir+"' status --porcelain >/dev/null 2>&1; done")
	ownGroup(loop)
	if err := loop.Start(); err != nil {
		t.Fatal(err)
	}
	stopLoop := func() {
		signalGroup(loop, syscall.SIGKILL)
		_ = loop.Wait()
		// a `git status` of the loop killed inside a system call finishes it (creating its
		// index.lock, say) before it dies, after the shell is gone: wait until none is left
		groupGone(t, loop.Process.Pid)
	}
	t.Cleanup(stopLoop)
	var archives []string
	stale := 0
	for i := 1; i <= 30; i++ {
		commit, err := publish(t, ws, i)
		if errors.Is(err, ErrIndexStale) && commit != "" {
			stale++ // said loudly, and repaired by the next Recover
		} else if err != nil {
			t.Fatalf("apply %d: %v", i, err)
		}
		archives = append(archives, fmt.Sprintf("plans/applied/p%02d/plan.json", i))
	}
	stopLoop()
	os.Remove(filepath.Join(dir, ".git", "index.lock")) // a `git status` killed mid-refresh leaves its own
	lock, _ := ws.Lock()
	if _, err := ws.Recover(); err != nil {
		t.Fatal(err)
	}
	lock.Unlock()
	t.Logf("%d of 30 applies found the index held throughout and left it to Recover", stale)
	checkIndexAndCommit(t, dir, "v30\n", archives)
}

// When git holds index.lock for longer than archiplan waits (a `git commit` with its editor open),
// the apply commits, says the index is stale, leaves git's lock alone, and the next Recover,
// once git is done, repairs the index before anything else.
func TestPublish_IndexHeldLongIsRepaired(t *testing.T) {
	defer func(d time.Duration) { gitLockWait = d }(gitLockWait)
	gitLockWait = 300 * time.Millisecond
	ws, dir := newRepo(t)
	stop := holdIndexLock(t, dir)
	commit, err := publish(t, ws, 1)
	if !errors.Is(err, ErrIndexStale) || commit == "" {
		t.Fatalf("commit %q, %v; want a commit and ErrIndexStale", commit, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "index.lock")); err != nil {
		t.Fatal("git's live index.lock was removed")
	}
	lock, _ := ws.Lock()
	if _, err := ws.Recover(); !errors.Is(err, ErrIndexStale) {
		t.Fatalf("Recover with git still holding the index: %v", err)
	}
	lock.Unlock()
	stop()
	commit2, err := publish(t, ws, 2) // its Recover repairs first
	if err != nil || commit2 == "" {
		t.Fatal(err)
	}
	if _, err := os.Stat(ws.indexStalePath()); err == nil {
		t.Fatal("the stale marker is still there")
	}
	checkIndexAndCommit(t, dir, "v2\n", []string{"plans/applied/p01/plan.json", "plans/applied/p02/plan.json"})
}

// Recover finishing a change a crash left never removes a lock a live git holds: neither
// index.lock nor the branch's .lock.
func TestRecover_KeepsLiveGitLocks(t *testing.T) {
	defer func(d time.Duration) { gitLockWait = d }(gitLockWait)
	gitLockWait = 300 * time.Millisecond
	ws, dir := newRepo(t)
	head, _ := ws.Head()
	stop := holdIndexLock(t, dir)
	defer stop()
	refLock := filepath.Join(dir, ".git", "refs", "heads", "main.lock")
	if err := os.WriteFile(refLock, []byte(head+"\n"), 0o644); err != nil { // a git moving the branch
		t.Fatal(err)
	}
	in := fmt.Sprintf(`{"base":%q,"commit":%q,"paths":["model.archimate"]}`, head, head)
	if err := os.WriteFile(ws.inflightPath(), []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	lock, _ := ws.Lock()
	_, err := ws.Recover()
	lock.Unlock()
	for _, l := range []string{filepath.Join(dir, ".git", "index.lock"), refLock} {
		if _, err := os.Stat(l); err != nil {
			t.Fatalf("Recover removed %s, which a live git holds", l)
		}
	}
	if !errors.Is(err, ErrIndexStale) {
		t.Fatalf("Recover: %v", err)
	}
	if _, err := publish(t, ws, 1); !errors.Is(err, ErrGitBusy) {
		t.Fatalf("a commit while git holds the branch's lock: %v", err)
	}
	if _, err := os.Stat(refLock); err != nil {
		t.Fatal("the branch's lock was removed")
	}
	os.Remove(refLock)
}

// A lock an archiplan process took and died holding (kill -9) is its own, known by its owner
// record: the next Recover removes it, so git is not left stuck.
func TestRecover_RemovesLockOfDeadArchiplan(t *testing.T) {
	if dir := os.Getenv("ARCHIPLAN_TEST_HOLD_LOCK"); dir != "" {
		ws, err := Open(dir, "model.archimate")
		if err != nil {
			os.Exit(2)
		}
		if _, err := ws.takeGitLock(filepath.Join(ws.gitDir, "index")); err != nil {
			os.Exit(3)
		}
		os.WriteFile(filepath.Join(dir, "holding"), nil, 0o644)
		time.Sleep(time.Hour)
	}
	ws, dir := newRepo(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestRecover_RemovesLockOfDeadArchiplan$")
	cmd.Env = append(os.Environ(), "ARCHIPLAN_TEST_HOLD_LOCK="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if _, err := os.Stat(filepath.Join(dir, "holding")); err == nil {
			break
		}
		if i == 30000 { // 5 minutes and more: only a helper that never takes it
			cmd.Process.Kill()
			t.Fatal("the helper never took the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	lockPath := filepath.Join(dir, ".git", "index.lock")
	if _, err := os.Stat(lockPath); err != nil {
		t.Fatal("the killed helper's index.lock is not there")
	}
	lock, _ := ws.Lock()
	if _, err := ws.Recover(); err != nil {
		t.Fatal(err)
	}
	lock.Unlock()
	if _, err := os.Stat(lockPath); err == nil {
		t.Fatal("the dead archiplan's index.lock was left behind")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".git", "*archiplan-*")); len(left) > 0 {
		t.Fatalf("left behind: %v", left)
	}
	run(t, dir, "status")
}

// The owner of a lock is running only while its pid names the very process that wrote the record:
// a pid gone or reused by a later process is not it.
func TestRunning(t *testing.T) {
	self := os.Getpid()
	if !running(self, startTime(self)) {
		t.Fatal("this process is not running")
	}
	if running(self, startTime(self)+1) {
		t.Fatal("a reused pid counts as the record's process")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if running(cmd.Process.Pid, 0) {
		t.Fatal("a process that exited counts as running")
	}
}

package hooks

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/archiplan/archiplan/store"
)

func writeHook(t *testing.T, dir, name, body string, mode os.FileMode) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	r := Runner{Dir: dir, Timeout: 5 * time.Minute} // not what is tested: generous for a loaded machine
	ctx := context.Background()

	if res, err := r.Run(ctx, PreApply, dir, nil); err != nil || res.Ran {
		t.Fatalf("a missing hook ran: %+v %v", res, err)
	}
	writeHook(t, dir, PreApply, "echo never\n", 0o644)
	if res, _ := r.Run(ctx, PreApply, dir, nil); res.Ran {
		t.Fatal("a hook that is not executable ran")
	}
	writeHook(t, dir, PreApply, "echo \"plan=$ARCHIPLAN_PLAN_ID secret=$SECRET\" >&2; exit 3\n", 0o755)
	t.Setenv("SECRET", "leaked")
	res, err := r.Run(ctx, PreApply, dir, map[string]string{"ARCHIPLAN_PLAN_ID": "p-1"})
	if err != nil || !res.Ran || res.ExitCode != 3 {
		t.Fatalf("%+v %v", res, err)
	}
	if !strings.Contains(res.Output, "plan=p-1") || strings.Contains(res.Output, "leaked") {
		t.Fatalf("environment: %q", res.Output)
	}
}

// A hook that hangs, and the child it started, are killed at the timeout: the run returns (the
// hook would sleep 1000 s) and the child is gone. A timeout that came before the child started (a
// loaded machine) proves nothing of it: the hook is run again with a longer one.
func TestRun_Timeout(t *testing.T) {
	for timeout := 300 * time.Millisecond; ; timeout *= 4 {
		dir := t.TempDir()
		pidFile, started := filepath.Join(dir, "child.pid"), filepath.Join(dir, "started")
		writeHook(t, dir, PostApply, "sh -c 'echo $$ > "+pidFile+".tmp; mv "+pidFile+".tmp "+pidFile+"; exec sleep 1000' &\n"+
			"while [ ! -e "+pidFile+" ]; do sleep 0.01; done\ntouch "+started+"\nsleep 1000\n", 0o755)
		res, err := Runner{Dir: dir, Timeout: timeout}.Run(context.Background(), PostApply, dir, nil)
		if !errors.Is(err, ErrTimeout) || !res.Ran {
			t.Fatalf("%+v %v", res, err)
		}
		if _, err := os.Stat(started); err != nil {
			if timeout > time.Minute {
				t.Fatalf("the hook had not started its child after %s", timeout)
			}
			t.Logf("the timeout (%s) came before the hook's child started: again with a longer one", timeout)
			continue
		}
		if pid := readPid(t, pidFile); running(pid) {
			kill(pid)
			t.Fatalf("the hook's child %d outlived the timeout", pid)
		}
		return
	}
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// running says whether process pid is alive (a zombie has finished all it will ever do).
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(stat[strings.LastIndexByte(string(stat), ')'):]), ") Z")
}

func TestRun_OutputCapped(t *testing.T) {
	dir := t.TempDir()
	writeHook(t, dir, PreApply, "head -c 1000000 /dev/zero | tr '\\0' x\n", 0o755)
	res, err := Runner{Dir: dir}.Run(context.Background(), PreApply, dir, nil)
	if err != nil || len(res.Output) != maxOutput {
		t.Fatalf("%d bytes of output kept, %v", len(res.Output), err)
	}
}

// A hook that exits and leaves a child in a session of its own (setsid) holding its standard
// output: the run returns instead of waiting for the pipe forever, the workspace's lock the apply
// holds around it is released, and the child is killed.
func TestRun_SetsidChildHoldsStdout(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	ws, err := store.Open(dir, "model.archimate")
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(dir, "child.pid")
	// the hook exits once its child has written its pid (a loaded machine may start it late)
	writeHook(t, dir, PreApply, "setsid sh -c 'echo $$ > "+pidFile+".tmp; mv "+pidFile+".tmp "+pidFile+"; exec sleep 1000' &\n"+
		"while [ ! -e "+pidFile+" ]; do sleep 0.01; done\necho checked\n", 0o755)
	done := make(chan struct{})
	var res Result
	go func() {
		defer close(done)
		lock, err := ws.Lock()
		if err != nil {
			t.Error(err)
			return
		}
		defer lock.Unlock()
		res, err = Runner{Dir: dir, Timeout: 5 * time.Minute}.Run(context.Background(), PreApply, dir, nil)
		if err != nil {
			t.Error(err)
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Minute): // far beyond a loaded machine's need: only a hang
		t.Fatal("the hook run hangs on the pipe its child holds")
	}
	if res.ExitCode != 0 || !strings.Contains(res.Output, "checked") || !strings.Contains(res.Output, "kept its output open") {
		t.Fatalf("%+v", res)
	}
	lock, err := ws.Lock()
	if err != nil {
		t.Fatalf("the lock is still held: %v", err)
	}
	lock.Unlock()
	// killed is not gone: a loaded machine may take a while to tear the child down once the
	// signal is sent (its environment already unreadable, so the run's sweep no longer sees it)
	pid := readPid(t, pidFile)
	for deadline := time.Now().Add(time.Minute); running(pid) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if running(pid) {
		kill(pid)
		t.Fatalf("the hook's setsid child %d survived", pid)
	}
}

// kill kills the process pid (one a test found alive that should not be).
func kill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

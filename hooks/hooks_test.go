package hooks

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
	r := Runner{Dir: dir, Timeout: 2 * time.Second}
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

// A hook that hangs, and the child it started, are killed at the timeout.
func TestRun_Timeout(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "child-alive")
	writeHook(t, dir, PostApply, "(sleep 5; touch "+marker+") &\nsleep 60\n", 0o755)
	start := time.Now()
	res, err := Runner{Dir: dir, Timeout: 300 * time.Millisecond}.Run(context.Background(), PostApply, dir, nil)
	if !errors.Is(err, ErrTimeout) || !res.Ran {
		t.Fatalf("%+v %v", res, err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("the run waited for the hook")
	}
	time.Sleep(5500*time.Millisecond - time.Since(start))
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the hook's child outlived the timeout")
	}
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
	writeHook(t, dir, PreApply, "setsid sh -c 'echo $$ > "+pidFile+"; exec sleep 1000' &\necho checked\n", 0o755)
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
		res, err = Runner{Dir: dir, Timeout: 5 * time.Second}.Run(context.Background(), PreApply, dir, nil)
		if err != nil {
			t.Error(err)
		}
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
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
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && !strings.Contains(string(stat[strings.LastIndexByte(string(stat), ')'):]), ") Z") {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("the hook's setsid child %d survived", pid)
	}
}

package hooks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

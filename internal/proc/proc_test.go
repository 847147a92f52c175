package proc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// alive reads a pid from file (written by the process itself before the run could end: the
// scripts wait for it) and says whether it still runs.
func alive(t *testing.T, pidFile string) bool {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil || len(strings.TrimSpace(string(data))) == 0 {
		t.Fatalf("the child never wrote %s: %v", pidFile, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	if zombie(stat) {
		return false
	}
	t.Cleanup(func() { killPID(pid) })
	return true
}

// runBounded runs spec and fails the test if the run does not return: the bug is a hang.
func runBounded(t *testing.T, ctx context.Context, spec Spec) (Result, error) {
	t.Helper()
	type ret struct {
		res Result
		err error
	}
	done := make(chan ret, 1)
	go func() {
		r, err := Run(ctx, spec)
		done <- ret{r, err}
	}()
	select {
	case r := <-done:
		return r.res, r.err
	case <-time.After(5 * time.Minute): // far beyond a loaded machine's need: only a hang
		t.Fatal("the run hangs")
		return Result{}, nil
	}
}

func sh(script string) Spec {
	return Spec{Path: "/bin/sh", Args: []string{"-c", script}, Env: []string{"PATH=" + os.Getenv("PATH")}}
}

// A process that exits and leaves a child (in a session of its own, out of the group) holding
// its standard output: the run ends anyway, and the child is killed. The process exits once the
// child has written its pid (a loaded machine may start the child late).
func TestRun_SetsidChildHoldsStdout(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	spec := sh("setsid sh -c 'echo $$ > " + pidFile + ".tmp; mv " + pidFile + ".tmp " + pidFile + "; exec sleep 1000' &\n" +
		waitFiles(pidFile) + "echo hook done\n")
	spec.Timeout = time.Minute
	res, err := runBounded(t, context.Background(), spec)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	if !res.Leftover || !strings.Contains(string(res.Combined), "hook done") {
		t.Fatalf("leftover %v, output %q", res.Leftover, res.Combined)
	}
	if alive(t, pidFile) {
		t.Fatal("the setsid child outlived the run")
	}
}

// At the timeout the process and everything it started die, in the group or out of it. A run
// the timeout cut off before its children started (a loaded machine) proves nothing: it is run
// again with a longer timeout.
func TestRun_TimeoutKillsEverything(t *testing.T) {
	for timeout := 500 * time.Millisecond; ; timeout *= 4 {
		dir := t.TempDir()
		inGroup, outside, started := filepath.Join(dir, "in.pid"), filepath.Join(dir, "out.pid"), filepath.Join(dir, "started")
		spec := sh("sh -c 'echo $$ > " + inGroup + ".tmp; mv " + inGroup + ".tmp " + inGroup + "; exec sleep 1000' &\n" +
			"setsid sh -c 'echo $$ > " + outside + ".tmp; mv " + outside + ".tmp " + outside + "; exec sleep 1000' > /dev/null 2>&1 &\n" +
			waitFiles(inGroup, outside) + "touch " + started + "\nsleep 1000\n")
		spec.Timeout = timeout
		res, err := runBounded(t, context.Background(), spec)
		if !errors.Is(err, ErrTimeout) || res.ExitCode != -1 {
			t.Fatalf("%+v %v", res, err)
		}
		if _, err := os.Stat(started); err != nil {
			if timeout > time.Minute {
				t.Fatalf("the children had not started after %s", timeout)
			}
			t.Logf("the timeout (%s) came before the children started: again with a longer one", timeout)
			continue
		}
		if alive(t, inGroup) || alive(t, outside) {
			t.Fatal("a process of the run survived its timeout")
		}
		return
	}
}

// waitFiles is a shell loop that waits until each file exists: a state, not a time.
func waitFiles(files ...string) string {
	var cond []string
	for _, f := range files {
		cond = append(cond, "[ ! -e "+f+" ]")
	}
	return "while " + strings.Join(cond, " || ") + "; do sleep 0.01; done\n"
}

func TestRun_Cancel(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if _, err := os.Stat(pidFile); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	res, err := runBounded(t, ctx, sh("setsid sh -c 'echo $$ > "+pidFile+".tmp; mv "+pidFile+".tmp "+pidFile+"; exec sleep 1000' &\nsleep 1000\n"))
	if !errors.Is(err, ErrCanceled) {
		t.Fatalf("%+v %v", res, err)
	}
	if alive(t, pidFile) {
		t.Fatal("a process of the run survived its cancellation")
	}
}

// The environment is exactly what was given (and the run's cookie), output is capped, and a
// non-zero exit is a result, not an error.
func TestRun_EnvOutputExit(t *testing.T) {
	t.Setenv("ARCHIPLAN_SECRET", "leaked")
	spec := sh("env; head -c 100000 /dev/zero | tr '\\0' x; exit 7")
	spec.Env = append(spec.Env, "GIVEN=yes")
	spec.MaxOutput = 1000
	res, err := runBounded(t, context.Background(), spec)
	if err != nil || res.ExitCode != 7 {
		t.Fatalf("%+v %v", res, err)
	}
	out := string(res.Stdout)
	if !strings.Contains(out, "GIVEN=yes") || strings.Contains(out, "leaked") || !strings.Contains(out, CookieVar+"=") {
		t.Fatalf("environment: %q", out)
	}
	if len(res.Stdout) != 1000 || len(res.Combined) != 1000 || !res.Truncated {
		t.Fatalf("kept %d/%d bytes, truncated %v", len(res.Stdout), len(res.Combined), res.Truncated)
	}
}

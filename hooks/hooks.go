// Package hooks runs the workspace's hook executables (hooks/pre-apply, hooks/post-apply) with a
// timeout, a clean environment of ARCHIPLAN_* variables, and their output captured.
package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"time"
)

// Hook names.
const (
	PreApply  = "pre-apply"
	PostApply = "post-apply"
)

// DefaultTimeout bounds a hook run; a hook that hangs never blocks the next plan for longer.
const DefaultTimeout = 30 * time.Second

// maxOutput is how much of a hook's output is kept for the report.
const maxOutput = 64 << 10

var (
	// ErrTimeout means the hook ran longer than its timeout and was killed.
	ErrTimeout = errors.New("hook timed out")
	// ErrCanceled means the run was cancelled (a second signal to the daemon) and the hook killed.
	ErrCanceled = errors.New("hook cancelled")
)

// Runner runs the hooks in a folder.
type Runner struct {
	Dir     string        // the hooks folder (the workspace's hooks/)
	Timeout time.Duration // per run; DefaultTimeout when zero
}

// Result is what a hook run did.
type Result struct {
	Ran      bool   // false when there is no such hook (or it is not executable, as git treats hooks)
	ExitCode int    // the hook's exit status; non-zero from pre-apply vetoes
	Output   string // standard output and error, interleaved, cut to 64 KiB
}

// Run runs the named hook, if there is one, from the workspace's root with env (ARCHIPLAN_*
// variables) added to a minimal environment (PATH, HOME, LANG). A hook that outlives its
// timeout is killed with everything it started, and ErrTimeout returned.
func (r Runner) Run(ctx context.Context, name, workdir string, env map[string]string) (Result, error) {
	path := filepath.Join(r.Dir, name)
	fi, err := os.Stat(path)
	if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return Result{}, nil
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.Command(path)
	cmd.Dir = workdir
	cmd.Env = environment(env)
	var out bytes.Buffer
	cmd.Stdout = &limited{b: &out}
	cmd.Stderr = cmd.Stdout
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // so a timeout kills what the hook started
	if err := cmd.Start(); err != nil {
		return Result{Ran: true, ExitCode: -1}, fmt.Errorf("start hook %s: %w", name, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		res := Result{Ran: true, ExitCode: -1, Output: out.String()}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return res, fmt.Errorf("hook %s after %s: %w", name, timeout, ErrTimeout)
		}
		return res, fmt.Errorf("hook %s: %w", name, ErrCanceled)
	}
	res := Result{Ran: true, Output: out.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		return res, fmt.Errorf("hook %s: %w", name, err)
	}
	return res, nil
}

func environment(extra map[string]string) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "LANG", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	return env
}

// limited keeps the first maxOutput bytes written to it and discards the rest.
type limited struct{ b *bytes.Buffer }

func (l *limited) Write(p []byte) (int, error) {
	if room := maxOutput - l.b.Len(); room > 0 {
		if len(p) > room {
			l.b.Write(p[:room])
		} else {
			l.b.Write(p)
		}
	}
	return len(p), nil
}

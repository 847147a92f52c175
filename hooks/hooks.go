// Package hooks runs the workspace's hook executables (hooks/pre-apply, hooks/post-apply) with a
// timeout, a clean environment of ARCHIPLAN_* variables, and their output captured, through
// internal/proc: in a process group of their own, with everything they start killed when the run
// ends.
package hooks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/archiplan/archiplan/internal/proc"
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
	// Trust is the workspace's trust file (its git directory's TrustFile): a hook a pull added
	// or changed, held there, does not run. Empty: every hook runs.
	Trust string
}

// Result is what a hook run did.
type Result struct {
	Ran      bool   // false when there is no such hook (or it is not executable, as git treats hooks)
	ExitCode int    // the hook's exit status; non-zero from pre-apply vetoes
	Output   string // standard output and error, interleaved, cut to 64 KiB
	Held     bool   // a pull added or changed it and the person has not trusted it: it did not run
}

// Run runs the named hook, if there is one, from the workspace's root with env (ARCHIPLAN_*
// variables) added to a minimal environment (PATH, HOME, LANG). A hook that outlives its
// timeout is killed with everything it started, and ErrTimeout returned; whatever a hook leaves
// running when it exits is killed too, and a child that keeps the hook's output open cannot hold
// the run (it ends proc.DefaultWaitDelay after the hook).
func (r Runner) Run(ctx context.Context, name, workdir string, env map[string]string) (Result, error) {
	path := filepath.Join(r.Dir, name)
	fi, err := os.Stat(path)
	if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return Result{}, nil
	}
	if r.Trust != "" {
		t, err := LoadTrust(r.Trust)
		if err != nil {
			return Result{}, fmt.Errorf("hook %s: %w", name, err)
		}
		if d, ok := t.Held[name]; ok && held(r.Dir, name, d) {
			return Result{Held: true}, fmt.Errorf("hooks/%s %w", name, ErrHeld)
		}
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	pr, err := proc.Run(ctx, proc.Spec{Path: path, Dir: workdir, Env: environment(env), Timeout: timeout, MaxOutput: maxOutput})
	res := Result{Ran: true, ExitCode: pr.ExitCode, Output: string(pr.Combined)}
	if pr.Leftover {
		res.Output += "\n(archiplan: a process the hook started kept its output open after the hook exited; it was killed)\n"
	}
	switch {
	case errors.Is(err, proc.ErrTimeout):
		return res, fmt.Errorf("hook %s after %s: %w", name, timeout, ErrTimeout)
	case errors.Is(err, proc.ErrCanceled):
		return res, fmt.Errorf("hook %s: %w", name, ErrCanceled)
	case err != nil:
		return res, fmt.Errorf("hook %s: %w", name, err)
	}
	return res, nil
}

func environment(extra map[string]string) []string { return proc.Env(extra) }

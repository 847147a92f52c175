// Package proc is archiplan's one way to run a subprocess it does not trust to behave (hooks,
// planner commands): in a process group of its own, with exactly the environment it is given,
// its output captured and capped, and everything it started killed when the run ends (at the
// timeout, when the context is cancelled, or when it exits and leaves children behind).
//
// A child that leaves the group (setsid, a daemonising double fork) is still found: every run
// carries a random ARCHIPLAN_RUN cookie in its environment, which children inherit, and the end
// of a run kills every process of this user whose environment holds it (as Jenkins' process tree
// killer does). A child that also clears its environment escapes that sweep; the run itself still
// returns, because the wait for output is bounded by WaitDelay.
package proc

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

var (
	// ErrTimeout means the process ran longer than its timeout and was killed with what it started.
	ErrTimeout = errors.New("timed out")
	// ErrCanceled means the run's context was cancelled and the process killed with what it started.
	ErrCanceled = errors.New("cancelled")
)

// CookieVar is the environment variable that marks every process of one run.
const CookieVar = "ARCHIPLAN_RUN"

// DefaultWaitDelay is how long a run waits, once its process has exited or been killed, for the
// output pipes to close; a child still holding them after that is killed and the pipes closed.
const DefaultWaitDelay = 2 * time.Second

// DefaultMaxOutput is how much output a run keeps when Spec.MaxOutput is zero.
const DefaultMaxOutput = 64 << 10

// Spec is one run.
type Spec struct {
	Path      string        // the executable
	Args      []string      // its arguments, without the name
	Dir       string        // the working folder
	Env       []string      // the whole environment ("K=V"); nothing of archiplan's own is inherited
	Stdin     io.Reader     // nil: /dev/null
	Timeout   time.Duration // zero: only the context bounds it
	WaitDelay time.Duration // zero: DefaultWaitDelay
	MaxOutput int           // bytes kept of stdout and of stderr each; zero: DefaultMaxOutput
}

// Result is what a run did.
type Result struct {
	ExitCode  int    // -1 when killed or never started
	Stdout    []byte // cut to MaxOutput
	Stderr    []byte // cut to MaxOutput
	Combined  []byte // stdout and stderr as they were written, cut to MaxOutput
	Truncated bool   // some output was dropped
	Leftover  bool   // the process exited but something it started kept its output open (and was killed)
}

// Run runs spec to its end and kills whatever the process started. The error is ErrTimeout or
// ErrCanceled (wrapped) when the run was cut off, a start error, or nil: a non-zero exit is not an
// error, it is Result.ExitCode.
func Run(ctx context.Context, spec Spec) (Result, error) {
	res := Result{ExitCode: -1}
	if spec.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, spec.Timeout)
		defer cancel()
	}
	max := spec.MaxOutput
	if max <= 0 {
		max = DefaultMaxOutput
	}
	cmd, cookie := Command(ctx, spec.Env, spec.Path, spec.Args...)
	cmd.Dir = spec.Dir
	cmd.Stdin = spec.Stdin
	if spec.WaitDelay > 0 {
		cmd.WaitDelay = spec.WaitDelay
	}
	out := &capture{max: max}
	cmd.Stdout = out.stream()
	cmd.Stderr = out.stream()
	hideFromChildren()
	if err := startGroup(cmd); err != nil {
		return res, fmt.Errorf("start %s: %w", filepath.Base(spec.Path), err)
	}
	err := cmd.Wait()
	Kill(cmd, cookie) // whatever is left of the run, in the group or out of it
	out.mu.Lock()
	res.Stdout, res.Stderr, res.Combined, res.Truncated = out.streams[0].Bytes(), out.streams[1].Bytes(), out.all.Bytes(), out.truncated
	out.mu.Unlock()
	if cerr := ctx.Err(); cerr != nil {
		if errors.Is(cerr, context.DeadlineExceeded) {
			return res, fmt.Errorf("%s after %s: %w", filepath.Base(spec.Path), spec.Timeout, ErrTimeout)
		}
		return res, fmt.Errorf("%s: %w", filepath.Base(spec.Path), ErrCanceled)
	}
	var exit *exec.ExitError
	switch {
	case errors.Is(err, exec.ErrWaitDelay):
		res.Leftover = true
		res.ExitCode = cmd.ProcessState.ExitCode()
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		return res, fmt.Errorf("%s: %w", filepath.Base(spec.Path), err)
	default:
		res.ExitCode = 0
	}
	return res, nil
}

// Command is exec.CommandContext made safe for a long-lived process whose pipes archiplan reads
// itself (a planner's app-server): its own process group, exactly env plus the run's cookie, the
// whole group killed when ctx is done, and WaitDelay set so that Wait never hangs on a pipe a
// child holds. Call Kill(cmd, cookie) after Wait to end what the process left behind.
func Command(ctx context.Context, env []string, name string, args ...string) (*exec.Cmd, string) {
	cookie := newCookie()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(append([]string(nil), env...), CookieVar+"="+cookie)
	cmd.SysProcAttr = groupAttr()
	cmd.Cancel = func() error {
		Kill(cmd, cookie)
		return nil
	}
	cmd.WaitDelay = DefaultWaitDelay
	return cmd, cookie
}

// Kill kills cmd's process group and every process carrying the run's cookie. Safe to call more
// than once, and after the process has exited.
func Kill(cmd *exec.Cmd, cookie string) {
	if cmd.Process != nil {
		killGroup(cmd)
	}
	killCookie(cookie)
}

// StartGroup starts cmd in a group of its own, as Command's are (set cmd's other SysProcAttr
// fields after it, if any): KillGroup then ends it with everything it started.
func StartGroup(cmd *exec.Cmd) error {
	cmd.SysProcAttr = groupAttr()
	hideFromChildren()
	return startGroup(cmd)
}

// KillGroup kills the group of a command StartGroup started. Safe to call more than once, and
// after the process has exited.
func KillGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		killGroup(cmd)
	}
}

// Survivors lists the pids of live processes (not zombies) that carry the cookie: for tests and
// for saying what a sweep missed.
func Survivors(cookie string) []int {
	var pids []int
	forCookie(cookie, func(pid int) { pids = append(pids, pid) })
	return pids
}

func killCookie(cookie string) {
	// a process may fork while it is being swept, and a killed one lives on until the kernel has
	// delivered the signal: sweep until a pass finds nothing alive (bounded, about 2 s)
	for i := 0; i < 200; i++ {
		n := 0
		forCookie(cookie, func(pid int) {
			n++
			killPID(pid)
		})
		if n == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func forCookie(cookie string, fn func(pid int)) {
	if cookie == "" {
		return
	}
	mark := []byte(CookieVar + "=" + cookie + "\x00")
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(append([]byte{0}, env...), append([]byte{0}, mark...)) {
			continue
		}
		if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && zombie(stat) {
			continue
		}
		fn(pid)
	}
}

// zombie reads the state field of /proc/PID/stat, which follows the command's closing parenthesis.
func zombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X')
}

func newCookie() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// capture keeps the first max bytes of each stream and of both interleaved.
type capture struct {
	mu        sync.Mutex
	max       int
	streams   [2]bytes.Buffer
	all       bytes.Buffer
	n         int
	truncated bool
}

func (c *capture) stream() io.Writer {
	i := c.n
	c.n++
	return writerFunc(func(p []byte) (int, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		keep(&c.streams[i], p, c.max, &c.truncated)
		keep(&c.all, p, c.max, &c.truncated)
		return len(p), nil
	})
}

func keep(b *bytes.Buffer, p []byte, max int, truncated *bool) {
	room := max - b.Len()
	if room < len(p) {
		*truncated = true
	}
	if room <= 0 {
		return
	}
	if len(p) > room {
		p = p[:room]
	}
	b.Write(p)
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

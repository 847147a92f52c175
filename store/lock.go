package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/archiplan/archiplan/internal/osfile"
)

// ErrLocked means another archiplan process is writing to the workspace.
var ErrLocked = errors.New("the workspace is locked by another archiplan process")

// one writer per repository within a process too: flock locks are per open file, not per process
var processLocks sync.Map // lock path -> *sync.Mutex

// Lock is the workspace's writer lock: an flock on .git/archiplan.lock, which the kernel
// releases when the process dies, so a crash never leaves it stuck. The file names the holder.
type Lock struct {
	f  *os.File
	mu *sync.Mutex
}

// Lock takes the writer lock, or fails at once with ErrLocked (naming the holder) when another
// process holds it.
func (w *Workspace) Lock() (*Lock, error) {
	path := filepath.Join(w.gitDir, "archiplan.lock")
	v, _ := processLocks.LoadOrStore(path, &sync.Mutex{})
	mu := v.(*sync.Mutex)
	if !mu.TryLock() {
		return nil, fmt.Errorf("%w (this process)", ErrLocked)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		mu.Unlock()
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	if err := osfile.Lock(f, osfile.Exclusive|osfile.NoWait); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		mu.Unlock()
		if errors.Is(err, osfile.ErrWouldBlock) {
			return nil, fmt.Errorf("%w (%s)", ErrLocked, holderText(holder))
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	host, _ := os.Hostname()
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte("pid "+strconv.Itoa(os.Getpid())+" on "+host+" since "+time.Now().UTC().Format(time.RFC3339)+"\n"), 0)
	return &Lock{f: f, mu: mu}, nil
}

func holderText(b []byte) string {
	s := string(b)
	if len(s) > 0 && s[len(s)-1] == '\n' {
		s = s[:len(s)-1]
	}
	if s == "" {
		return "holder unknown"
	}
	return "held by " + s
}

// Unlock releases the lock.
func (l *Lock) Unlock() {
	if l == nil || l.f == nil {
		return
	}
	_ = osfile.Unlock(l.f)
	l.f.Close()
	l.f = nil
	l.mu.Unlock()
}

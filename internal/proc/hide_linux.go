package proc

import (
	"sync"

	"golang.org/x/sys/unix"
)

var hidden sync.Once

// hideFromChildren makes archiplan's process not dumpable before it starts a command it does not
// trust: a process of the same user could read /proc/PID/environ of its parent, every key
// archiplan holds (OPENAI_API_KEY, ARCHIPLAN_GIT_TOKEN) that Env keeps from the command, and
// /proc/PID/fd and /proc/PID/mem besides. Not dumpable, those belong to root. The command itself
// is dumpable again (execve resets it), so a run's cookie is still found in its environment.
func hideFromChildren() { hidden.Do(func() { _ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }) }

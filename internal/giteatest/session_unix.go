//go:build unix

package giteatest

import (
	"os/exec"
	"syscall"
)

// credential is the user and group Gitea runs as when this process is root's.
type credential = syscall.Credential

func asUser(c *credential) *syscall.SysProcAttr { return &syscall.SysProcAttr{Credential: c} }

// ownSession puts the process in a session of its own, which killSession kills whole.
func ownSession(a *syscall.SysProcAttr) { a.Setsid = true }

func killSession(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

//go:build unix

package proc

import (
	"errors"
	"os/exec"
	"syscall"
)

// groupAttr puts a process in a process group of its own, whose id is its pid.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func startGroup(cmd *exec.Cmd) error { return cmd.Start() }

// killGroup kills cmd's process group.
func killGroup(cmd *exec.Cmd) {
	// the group's id is the leader's pid; once the leader is reaped the id may name nothing
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

func killPID(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }

// Exists reports whether a process with this pid exists (a zombie included; another user's too).
func Exists(pid int) bool {
	return pid > 0 && !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

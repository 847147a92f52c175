//go:build unix

package store

import (
	"os/exec"
	"syscall"
)

// ownGroup makes cmd start in a process group of its own, which signalGroup signals whole.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) { _ = syscall.Kill(-cmd.Process.Pid, sig) }

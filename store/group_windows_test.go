package store

import (
	"os/exec"
	"syscall"
)

// ownGroup does nothing on Windows, which has no signals to send a group: signalGroup kills the
// process itself.
func ownGroup(*exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, _ syscall.Signal) { _ = cmd.Process.Kill() }

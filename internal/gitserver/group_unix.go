//go:build unix

package gitserver

import (
	"os/exec"
	"syscall"
)

// startDetached starts cmd in a session of its own, whose group killTree kills.
func startDetached(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd.Start()
}

func killTree(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// Pause stops the whole server (SIGSTOP): the kernel still accepts connections, nobody answers.
func (s *Server) Pause() { _ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGSTOP) }

// Resume lets a paused server go on.
func (s *Server) Resume() { _ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGCONT) }

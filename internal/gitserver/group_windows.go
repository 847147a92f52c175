package gitserver

import (
	"os/exec"

	"github.com/archiplan/archiplan/internal/proc"
)

// startDetached starts cmd in a job of its own (internal/proc), which killTree ends.
func startDetached(cmd *exec.Cmd) error { return proc.StartGroup(cmd) }

func killTree(cmd *exec.Cmd) { proc.KillGroup(cmd) }

// Pause would stop the whole server; Windows has no SIGSTOP: the test that needs it is skipped.
func (s *Server) Pause() { s.t.Skip("pausing a server (SIGSTOP) is not done on Windows") }

// Resume lets a paused server go on: none is paused on Windows.
func (s *Server) Resume() {}

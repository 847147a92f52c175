package giteatest

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// credential is never set on Windows (no process there is root's, so Gitea runs as this user);
// its fields are those Unix's has.
type credential struct {
	Uid, Gid    uint32
	NoSetGroups bool
}

func asUser(*credential) *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

// ownSession puts the process in a console process group of its own.
func ownSession(a *syscall.SysProcAttr) { a.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP }

// killSession kills Gitea (its own children, git, end with their work).
func killSession(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

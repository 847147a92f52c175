//go:build unix

package inbox

import "syscall"

// mkfifo makes a named pipe at path, which a planner could leave in the inbox.
func mkfifo(path string, mode uint32) error { return syscall.Mkfifo(path, mode) }

//go:build !linux

package proc

// hideFromChildren is Linux's guard of /proc/PID/environ (hide_linux.go); elsewhere there is no
// such file to guard.
func hideFromChildren() {}

//go:build unix

package osfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// ErrWouldBlock is Lock's error when the lock is held and NoWait was asked.
var ErrWouldBlock error = syscall.EWOULDBLOCK

// OpenNoFollow is os.OpenFile that refuses a symbolic link as the last part of path (an error
// that errors.Is syscall.ELOOP) and never blocks on a named pipe or takes a terminal.
func OpenNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, perm)
}

// Lock takes a lock on the whole of f (flock(2)), which closing f or the holder's death
// releases.
func Lock(f *os.File, how How) error {
	op := syscall.LOCK_SH
	if how&Exclusive != 0 {
		op = syscall.LOCK_EX
	}
	if how&NoWait != 0 {
		op |= syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), op)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// Unlock releases Lock's lock.
func Unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// ID is the identity of an open file: its device and inode.
func ID(f *os.File) (dev, ino uint64, err error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return 0, 0, err
	}
	return uint64(st.Dev), uint64(st.Ino), nil
}

// LstatID is the identity of the file at path, a symbolic link's own when it is one.
func LstatID(path string) (dev, ino uint64, err error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return 0, 0, err
	}
	return uint64(st.Dev), uint64(st.Ino), nil
}

// Ino is the inode in a file's information, 0 where the system gives none.
func Ino(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// Owner is the user id that owns a file, from its information; ok is false where the system
// gives none.
func Owner(fi fs.FileInfo) (uid int, ok bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid), true
	}
	return -1, false
}

// Stat is f's information, as f.Stat gives it; Links reads it.
func Stat(f *os.File) (fs.FileInfo, error) { return f.Stat() }

// Links is how many names a file has, from its information (Stat's of the open file); ok is
// false where the system gives no count.
func Links(fi fs.FileInfo) (n uint64, ok bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink), true
	}
	return 0, false
}

// CreateTemp is os.CreateTemp. (On Windows the file is opened so that it can be renamed while
// open.)
func CreateTemp(dir, pattern string) (*os.File, error) { return os.CreateTemp(dir, pattern) }

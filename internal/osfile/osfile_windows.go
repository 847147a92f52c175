package osfile

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/windows"
)

// ErrWouldBlock is Lock's error when the lock is held and NoWait was asked.
var ErrWouldBlock error = windows.ERROR_LOCK_VIOLATION

// OpenNoFollow is os.OpenFile that refuses a symbolic link as the last part of path (an error
// that errors.Is syscall.ELOOP). The file is opened with FILE_FLAG_OPEN_REPARSE_POINT, which opens
// a reparse point (a symbolic link, a junction, a placeholder of a cloud folder) itself rather than
// what it leads to; any reparse point so opened is closed and refused, never followed.
func OpenNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|windows.FILE_FLAG_OPEN_REPARSE_POINT, perm)
	if err != nil {
		return nil, err
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
	}
	return f, nil
}

// lockOffset is where Lock's one-byte range lies: far past any content, since Windows' locks
// are mandatory for the range they cover and a lock file's content (its holder) is read by
// others.
const lockOffset = 1 << 62

// Lock takes a lock on f (LockFileEx, on one byte past any content), which closing f or the
// holder's death releases.
func Lock(f *os.File, how How) error {
	var flags uint32
	if how&Exclusive != 0 {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	if how&NoWait != 0 {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	ol := windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
	return windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, &ol)
}

// Unlock releases Lock's lock.
func Unlock(f *os.File) error {
	ol := windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}

// ID is the identity of an open file: its volume's serial number and its file index.
func ID(f *os.File) (dev, ino uint64, err error) {
	return handleID(windows.Handle(f.Fd()))
}

// LstatID is the identity of the file at path, a reparse point's own when it is one.
func LstatID(path string) (dev, ino uint64, err error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return 0, 0, err
	}
	// no access asked: the file's information only, whoever else has it open
	h, err := windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_OPEN_REPARSE_POINT|windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return 0, 0, &os.PathError{Op: "lstat", Path: path, Err: err}
	}
	defer windows.CloseHandle(h)
	return handleID(h)
}

func handleID(h windows.Handle) (dev, ino uint64, err error) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return 0, 0, err
	}
	return uint64(info.VolumeSerialNumber), uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow), nil
}

// Ino is 0: a file's information on Windows carries no file index.
func Ino(fs.FileInfo) uint64 { return 0 }

// Owner is unknown on Windows: a file's owner is a security identifier, not a user id.
func Owner(fs.FileInfo) (uid int, ok bool) { return -1, false }

// Stat is f's information, with the count of its names that Links reads (f.Stat's information
// on Windows does not carry it: it is asked of the open file).
func Stat(f *os.File) (fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return fi, nil // no count: Links says so
	}
	return linked{fi, uint64(info.NumberOfLinks)}, nil
}

type linked struct {
	fs.FileInfo
	links uint64
}

// Links is how many names a file has, from Stat's information; ok is false without it.
func Links(fi fs.FileInfo) (n uint64, ok bool) {
	if l, ok := fi.(linked); ok {
		return l.links, true
	}
	return 0, false
}

// CreateTemp is os.CreateTemp with a file that can be renamed, or a name of it renamed (a hard
// link), while it is open: Go's own opens do not share the right to delete, and Windows refuses to
// rename a file open without it. A reparse point is never followed (the name is new).
func CreateTemp(dir, pattern string) (*os.File, error) {
	prefix, suffix, _ := strings.Cut(pattern, "*")
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+suffix)
		p, err := windows.UTF16PtrFromString(name)
		if err != nil {
			return nil, err
		}
		h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE,
			windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
			windows.CREATE_NEW, windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
		if errors.Is(err, windows.ERROR_FILE_EXISTS) && try < 10000 {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "createtemp", Path: name, Err: err}
		}
		return os.NewFile(uintptr(h), name), nil
	}
}

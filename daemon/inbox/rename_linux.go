package inbox

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames from to to in one step, and fails (fs.ErrExist) when to is taken: a
// file a planner wrote under that name in the meantime is never replaced, and no one ever sees
// both names at once (a link then a remove shows both for a moment: a watcher, or a person, could
// take the approval for still there). A file system without RENAME_NOREPLACE gets the link.
func renameNoReplace(from, to string) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EEXIST):
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: fs.ErrExist}
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
		return linkThenRemove(from, to)
	}
	return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
}

package inbox

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// renameNoReplace renames from to to in one step, and fails (fs.ErrExist) when to is taken:
// MoveFileEx without MOVEFILE_REPLACE_EXISTING never replaces a file, so one a planner wrote under
// that name in the meantime is kept, and no one ever sees both names at once.
func renameNoReplace(from, to string) error {
	f, err := windows.UTF16PtrFromString(from)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	t, err := windows.UTF16PtrFromString(to)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	err = windows.MoveFileEx(f, t, 0)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, windows.ERROR_ALREADY_EXISTS), errors.Is(err, windows.ERROR_FILE_EXISTS):
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: fs.ErrExist}
	}
	return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
}

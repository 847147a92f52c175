package web

import (
	"os"
	"syscall"
)

// changeTime is a file's change time and inode, as stamp needs them (Darwin's stat names them Ctimespec).
func changeTime(fi os.FileInfo) (sec, nsec int64, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec), uint64(st.Ino), true
}

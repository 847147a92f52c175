package store

import (
	"os"
	"syscall"
	"time"
)

// statOf is the stat data git's index keeps of a file (ctime, device, inode, owner), from the
// file's own information; ok is false where the system gives none.
func statOf(fi os.FileInfo) (s fileStat, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return s, false
	}
	return fileStat{ctime: time.Unix(st.Ctim.Unix()), dev: uint32(st.Dev), ino: uint32(st.Ino), uid: st.Uid, gid: st.Gid}, true
}

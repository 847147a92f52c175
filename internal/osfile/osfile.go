// Package osfile is what archiplan asks of the operating system about files that each system
// answers its own way: an open that never follows a symbolic link, advisory locks that the system
// releases when their holder dies, and what a file's information says of its identity, its links
// and its owner. On Unix these are open(2)'s O_NOFOLLOW, flock(2) and stat(2); on Windows the
// same guarantees come from CreateFile's FILE_FLAG_OPEN_REPARSE_POINT (a reparse point, which
// symbolic links and junctions are, is refused once opened), LockFileEx and
// GetFileInformationByHandle. Where Windows cannot say (a file's owner as a user id), the answer
// is "unknown", and the callers refuse rather than assume.
package osfile

// How says which lock Lock takes, and whether it waits for it.
type How int

const (
	Shared    How = 1 << iota // a lock others may share (readers)
	Exclusive                 // a lock no one else holds at the same time (a writer)
	NoWait                    // fail at once (an error that errors.Is ErrWouldBlock) rather than wait
)

//go:build !linux && !windows

package inbox

// renameNoReplace renames from to to, failing (fs.ErrExist) when to is taken: by a link, which
// fails on a taken name, then the old name removed.
func renameNoReplace(from, to string) error { return linkThenRemove(from, to) }

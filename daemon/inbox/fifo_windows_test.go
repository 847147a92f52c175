package inbox

import "errors"

// mkfifo fails: Windows' named pipes are not files of a folder, so no planner can leave one in
// the inbox.
func mkfifo(string, uint32) error { return errors.New("no named pipes in a Windows folder") }

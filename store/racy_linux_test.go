package store

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The stat data archiplan records is git's own (ctime, device, inode, owner: real git finds
// what it would have written), and an index real git wrote proves the model as archiplan's does.
func TestCleanByIndex_SameStatDataAsGit(t *testing.T) {
	ws, dir, _, _ := published(t)
	fi, err := os.Lstat(ws.ModelPath())
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	debug := run(t, dir, "ls-files", "--debug", "model.archimate")
	for _, want := range []string{
		"ctime: " + strconv.FormatInt(st.Ctim.Sec, 10) + ":" + strconv.FormatInt(st.Ctim.Nsec, 10),
		"mtime: " + strconv.FormatInt(st.Mtim.Sec, 10) + ":" + strconv.FormatInt(st.Mtim.Nsec, 10),
		"ino: " + strconv.FormatUint(st.Ino&0xffffffff, 10),
		"size: " + strconv.FormatInt(st.Size, 10),
	} {
		if !strings.Contains(debug, want) {
			t.Errorf("git reads the model's entry as\n%s\nwithout %q", debug, want)
		}
	}
	// real git's index, after a commit of its own
	model := bytes.Repeat([]byte("<element name=\"c\"/>\n"), 400)
	os.WriteFile(filepath.Join(dir, "model.archimate"), model, 0o644)
	run(t, dir, "commit", "-q", "-a", "-m", "by git")
	cold, err := Open(dir, "model.archimate")
	if err != nil {
		t.Fatal(err)
	}
	indexAt(t, cold, time.Now().Add(time.Hour))
	if !cold.CleanByIndex(BlobID(model)) {
		t.Error("the index real git wrote does not prove the model it committed")
	}
}

package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// The commits and trees archiplan writes are read back from go-git's cache, without opening their
// files (an approval of a batch opened some 80 of them, most just written): the commit's loose
// file removed, it is still read.
func TestWorkspace_WrittenObjectsReadFromCache(t *testing.T) {
	ws, dir := newRepo(t)
	commit, err := ws.WriteCommit(Change{Base: run(t, dir, "rev-parse", "HEAD"), Files: map[string][]byte{"model.archimate": []byte("v2\n")},
		Message: "plan: x\n", Author: Signature{"a", "a@a"}, When: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, ".git", "objects", commit[:2], commit[2:])); err != nil {
		t.Fatal(err)
	}
	c, err := ws.git().CommitObject(plumbing.NewHash(commit))
	if err != nil {
		t.Fatalf("the commit just written, read from the cache: %v", err)
	}
	if c.Message != "plan: x\n" {
		t.Fatalf("read %q", c.Message)
	}
}

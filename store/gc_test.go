package store

import (
	"fmt"
	"testing"
)

// git gc, gc --auto (which git runs by itself), repack -ad and prune move or delete the objects a
// long-lived Workspace has seen as loose files or in packs it has indexed: it keeps reading HEAD
// and blobs and committing through the same Workspace.
func TestWorkspace_SurvivesGC(t *testing.T) {
	ws, dir := newRepo(t)
	for i, gc := range [][]string{
		{"gc", "--prune=now", "--quiet"},
		{"repack", "-a", "-d", "-q"},
		{"-c", "gc.auto=1", "-c", "gc.autoPackLimit=1", "-c", "gc.autoDetach=false", "gc", "--auto", "--quiet"},
		{"prune", "--expire=now"},
		{"repack", "-a", "-d", "-f", "-q"},
	} {
		if _, err := publish(t, ws, i+1); err != nil {
			t.Fatalf("apply %d: %v", i+1, err)
		}
		before, err := ws.ReadModel() // loads the current packs and objects
		if err != nil {
			t.Fatal(err)
		}
		run(t, dir, gc...)
		// first the reads that have no reopen of their own: the storage must find the objects
		if _, ok, err := ws.FileAt(before.Commit, fmt.Sprintf("plans/applied/p%02d/plan.json", i+1)); err != nil || !ok {
			t.Fatalf("after git %v: the archive: %v %v", gc, ok, err)
		}
		if names, err := ws.DirAt(before.Commit, "plans/applied"); err != nil || len(names) != i+1 {
			t.Fatalf("after git %v: the archive folder: %v %v", gc, names, err)
		}
		if hist, err := ws.History(nil); err != nil || len(hist) != i+2 {
			t.Fatalf("after git %v: history of %d commits: %v", gc, len(hist), err)
		}
		head, err := ws.ReadModel()
		if err != nil {
			t.Fatalf("after git %v: read the model: %v", gc, err)
		}
		if want := fmt.Sprintf("v%d\n", i+1); string(head.Data) != want || head.Dirty {
			t.Fatalf("after git %v: the model is %q (dirty %v), want %q", gc, head.Data, head.Dirty, want)
		}
		if _, _, err := ws.HeadBlob(); err != nil {
			t.Fatalf("after git %v: %v", gc, err)
		}
	}
	if _, err := publish(t, ws, 99); err != nil {
		t.Fatalf("a commit after the last gc: %v", err)
	}
	run(t, dir, "fsck", "--full", "--no-dangling")
	if got := run(t, dir, "show", "HEAD:model.archimate"); got != "v99" {
		t.Fatalf("HEAD's model is %q", got)
	}
}

// A daemon's pass, the review page and a team's sync read one Workspace at once, while git repacks
// under it: go-git fills its pack index lazily and without a lock, so the lookups take turns (run
// with -race; a "concurrent map iteration and map write" crashed the team test before).
func TestWorkspace_ConcurrentReads(t *testing.T) {
	ws, dir := newRepo(t)
	for i := 1; i <= 5; i++ {
		if _, err := publish(t, ws, i); err != nil {
			t.Fatal(err)
		}
	}
	run(t, dir, "gc", "--prune=now", "--quiet")
	done := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 30; i++ {
				if _, err := ws.History(nil); err != nil {
					done <- err
					return
				}
				if _, err := ws.ReadModel(); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

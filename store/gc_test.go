package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
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

// A team's fetch writes a pack (and adds its index to go-git's shared map) while the daemon's pass
// reads HEAD's model and the review page reads the history and archive: run with -race (the team
// test crashed once with "concurrent map iteration and map write" from MergeBase during a Fetch).
func TestWorkspace_ConcurrentFetch(t *testing.T) {
	ws, dir := newRepo(t)
	bare := filepath.Join(t.TempDir(), "remote.git")
	run(t, dir, "clone", "-q", "--bare", dir, bare)
	run(t, dir, "remote", "add", "origin", bare)
	other := filepath.Join(t.TempDir(), "other")
	run(t, dir, "clone", "-q", bare, other)
	if err := ws.Fetch(context.Background(), "origin"); err != nil {
		t.Fatal(err)
	}
	head, err := ws.Head()
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan error, 4)
	read := func(fn func() error) { readUntil(stop, done, fn) }
	go read(func() error { _, err := ws.ReadModel(); return err })  // the daemon's pass
	go read(func() error { _, err := ws.History(nil); return err }) // the review page
	go read(func() error {
		rh, err := ws.RemoteHead("origin")
		if err == nil && rh != "" {
			_, err = ws.MergeBase(head, rh)
		}
		return err
	})
	for i := 0; i < 4; i++ {
		os.WriteFile(filepath.Join(other, "model.archimate"), []byte(fmt.Sprintf("remote %d\n", i)), 0o644)
		run(t, other, "commit", "-q", "-am", fmt.Sprintf("remote %d", i))
		run(t, other, "push", "-q", "origin", "main")
		if err := ws.Fetch(context.Background(), "origin"); err != nil {
			close(stop)
			t.Fatal(err)
		}
	}
	close(stop)
	for i := 0; i < 3; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if _, behind, err := ws.AheadBehind("origin"); err != nil || behind != 4 {
		t.Fatalf("behind %d, %v; want 4", behind, err)
	}
}

// A daemon's pass appends to the audit (a tree and a commit written through go-git) while its syncer
// joins the remote's audit (another commit) and the review page reads: go-git's object writer
// resets its loose-object list without a lock, so writes take turns with every lookup (run with
// -race; the team test failed so under load).
func TestWorkspace_ConcurrentWrites(t *testing.T) {
	ws, _ := newRepo(t)
	if _, err := publish(t, ws, 1); err != nil {
		t.Fatal(err)
	}
	const writers, each = 2, 10
	done := make(chan error, writers+1)
	for g := 0; g < writers; g++ {
		go func() {
			for i := 0; i < each; i++ {
				if err := ws.AppendAudit([]byte(fmt.Sprintf(`{"writer":%d,"n":%d}`, g, i)), time.Now()); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	stop := make(chan struct{})
	go readUntil(stop, done, func() error { _, err := ws.History(nil); return err }) // the review page
	for g := 0; g < writers; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	records, err := ws.AuditRecords()
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != writers*each {
		t.Fatalf("the audit holds %d records, want %d", len(records), writers*each)
	}
}

// readUntil runs fn again and again until stop closes or fn fails, then sends nil or the error to
// done: a reader beside the writers of a concurrency test.
func readUntil(stop <-chan struct{}, done chan<- error, fn func() error) {
	for {
		select {
		case <-stop:
			done <- nil
			return
		default:
		}
		if err := fn(); err != nil {
			done <- err
			return
		}
	}
}

package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/store"
)

// A planner making and removing plans blocked by a directory at their preview's name (each
// INBOX_NAME_TAKEN) leaves the daemon nothing of them once they go: its memory of the names
// taken is pruned with the plans, and so is its memory of unsafe names once they go. On
// mergetest both grew without bound (the names stayed after the plans went).
func TestDaemon_TakenPruned(t *testing.T) {
	dir := t.TempDir()
	seed, _ := archixml.Example().Save()
	ws, _, err := store.Init(dir, store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed, Author: lt.Signature})
	if err != nil {
		t.Fatal(err)
	}
	d := New(Config{Ledger: lt.Ledger(ws), Debounce: 20 * time.Millisecond, Rescan: time.Hour, Settle: 50 * time.Millisecond})
	if err := d.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	box := filepath.Join(dir, "plans")
	const n = 5
	for i := range n {
		name := fmt.Sprintf("p%d", i)
		if err := os.Mkdir(filepath.Join(box, name+".preview.md"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(box, name+".json"), plan(""), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(box, "bad name.json"), plan(""), 0o644); err != nil {
		t.Fatal(err)
	}
	sizes := func() (int, int) {
		d.mu.Lock()
		defer d.mu.Unlock()
		return len(d.taken), len(d.unsafe)
	}
	waitFor(t, "every plan refused for the directory at its preview's name", time.Minute, func() bool {
		taken, unsafe := sizes()
		return taken == n && unsafe == 1
	})
	for i := range n {
		if err := os.Remove(filepath.Join(box, fmt.Sprintf("p%d.json", i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(box, "bad name.json")); err != nil {
		t.Fatal(err)
	}
	d.Kick() // a pass sees them gone (the removals' own events start one too)
	waitFor(t, "the daemon forgets the names of plans gone", time.Minute, func() bool {
		taken, unsafe := sizes()
		return taken == 0 && unsafe == 0
	})
}

package daemon

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/store"
)

// TestDaemon_DeliverAfterPreview: with Deliver set (deliver: pull-request), a plan previewed is
// handed to it at once, not at the next fetch tick: Deliver finds the plan's preview written.
func TestDaemon_DeliverAfterPreview(t *testing.T) {
	dir := t.TempDir()
	seed, _ := archixml.Example().Save()
	ws, _, err := store.Init(dir, store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed, Author: lt.Signature})
	if err != nil {
		t.Fatal(err)
	}
	led := lt.Ledger(ws)
	saw := make(chan bool, 16)
	d := New(Config{Ledger: led, Debounce: 20 * time.Millisecond, Settle: 20 * time.Millisecond,
		FetchInterval: time.Hour, // only a preview can start a delivery in this test
		Deliver: func(ctx context.Context) error {
			_, err := led.Inbox().Record("p1")
			saw <- err == nil
			return nil
		}})
	if err := d.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if got := <-saw; got {
		t.Fatal("a record before any plan")
	}
	m, _ := archixml.Load(seed)
	if err := os.WriteFile(filepath.Join(dir, "plans", inbox.PlanFile("p1")), lt.Rename(m.Elements()[0].ID(), "Delivered"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		select {
		case got := <-saw:
			if got {
				return
			}
		case <-ctx.Done():
			t.Fatal("Deliver not run after the preview")
		}
	}
}

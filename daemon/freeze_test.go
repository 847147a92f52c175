package daemon

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/policy"
	"github.com/archiplan/archiplan/store"
)

// A change freeze (a rule reading time.now_ns) begins between a plan's preview and its approval:
// the daemon's apply withdraws the approval (POLICY_VERDICT_CHANGED) and previews the plan again,
// so the page and status show the freeze's denial, not the old valid preview. Before the daemon
// forgot its preview on that withdrawal, the plan's file, HEAD and policy being unchanged, it was
// never previewed again (the old valid preview stayed, approvable).
func TestDaemon_FreezeBeganPreviewedAgain(t *testing.T) {
	dir := t.TempDir()
	seed, _ := archixml.Example().Save()
	ws, _, err := store.Init(dir, store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed, Author: lt.Signature})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, policy.Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	rule := "package policy\n\ndeny contains f if {\n\ttime.now_ns() >= time.parse_rfc3339_ns(\"2030-01-01T00:00:00Z\")\n\tf := {\"rule\": \"change-freeze\", \"message\": \"frozen\"}\n}\n"
	if err := os.WriteFile(filepath.Join(dir, policy.Dir, "freeze.rego"), []byte(rule), 0o644); err != nil {
		t.Fatal(err)
	}
	var frozen atomic.Bool
	now := func() time.Time {
		if frozen.Load() {
			return time.Date(2030, 1, 2, 0, 0, 0, 0, time.UTC)
		}
		return time.Date(2029, 12, 1, 0, 0, 0, 0, time.UTC)
	}
	options := func() (plans.Options, error) {
		r := policy.Load(dir)
		r.Now = now
		return plans.Options{Rules: r}, nil
	}
	led := lt.Ledger(ws)
	o, _ := options()
	led.SetOptions(o)
	d := New(Config{Ledger: led, Reload: options, ConfigFile: filepath.Join(dir, ".archiplan.yaml"), PolicyDir: filepath.Join(dir, policy.Dir),
		Debounce: 20 * time.Millisecond, Rescan: time.Hour, Settle: 50 * time.Millisecond})
	if err := d.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	box := filepath.Join(dir, "plans")
	b := inbox.New(box, ws.GitPath("archiplan/inbox"))
	if err := os.WriteFile(filepath.Join(box, "p.json"), plan(`{"op":"create_element","type":"Application Component","name":"Portal"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	verdict := func() string {
		var rec *inbox.Record
		if b.Steady(func() (err error) { rec, err = b.Record("p"); return err }) != nil {
			return ""
		}
		return rec.Verdict
	}
	waitFor(t, "p previewed valid", time.Minute, func() bool { return verdict() == plans.VerdictValid })
	head := lt.Git(t, dir, "rev-parse", "HEAD")
	frozen.Store(true)
	if err := os.Rename(filepath.Join(box, "p.json"), filepath.Join(box, "p.approved")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "p withdrawn and previewed again, denied", time.Minute, func() bool {
		_, err := os.Stat(filepath.Join(box, "p.json"))
		return err == nil && verdict() == plans.VerdictInvalid
	})
	if got := lt.Git(t, dir, "rev-parse", "HEAD"); got != head {
		t.Fatal("applied in the freeze")
	}
}

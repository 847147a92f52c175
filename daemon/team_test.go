package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// Three workspaces cloned from one bare remote, each with its own daemon, and 300 plans approved
// across them at once, many touching the same elements: the remote ends with a linear history in
// which every plan is an apply commit exactly once or is rejected as stale with the reason, no
// commit is lost, and every model in the history passes archi-emf check.
func TestTeam_ThreeDaemons(t *testing.T) {
	if testing.Short() {
		t.Skip("300 plans through three daemons")
	}
	bare, w := lt.Team(t, 3)
	els := lt.Elements(t, w[0])
	var daemons []*Daemon
	var ledgers []*ledger.Ledger
	for i, ws := range w {
		logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		l := ledger.New(ledger.Config{Workspace: ws, Inbox: lt.Inbox(ws), Remote: lt.Origin,
			ApprovedBy: store.Signature{Name: fmt.Sprintf("team%d", i), Email: "t@t"}, Logger: logger})
		ledgers = append(ledgers, l)
		d := New(Config{Ledger: l, Remote: lt.Origin, Logger: logger,
			Debounce: 20 * time.Millisecond, Settle: 20 * time.Millisecond, Rescan: time.Second, FetchInterval: 300 * time.Millisecond})
		if err := d.Open(context.Background()); err != nil {
			t.Fatal(err)
		}
		daemons = append(daemons, d)
	}
	const per = 100
	name := func(k, i int) string { return fmt.Sprintf("w%dp%03d", k, i) }
	for k, ws := range w {
		for i := 0; i < per; i++ {
			// workspaces 0 and 1 rename the same element in each round; 2 another one
			el := els[i%len(els)]
			if k == 2 {
				el = els[(i+5)%len(els)]
			}
			raw := lt.Rename(el, fmt.Sprintf("W%d %d", k, i))
			os.WriteFile(filepath.Join(ws.Root, "plans", name(k, i)+".json"), raw, 0o644)
		}
	}
	waitDone(t, "300 previews", func() int {
		n := 0
		for _, ws := range w {
			n += count(filepath.Join(ws.Root, "plans"), "w*.report.json")
		}
		return 3*per - n
	})
	// rounds: in each, every workspace approves its next plan at once, previewed against the
	// same remote head; the daemons race to push, and the losers rebase or are made stale
	start := time.Now()
	remoteHead := func() string { return lt.Git(t, bare, "rev-parse", "main") }
	for i := 0; i < per; i++ {
		waitFor(t, fmt.Sprintf("round %d: everyone at the remote head with current previews", i), 5*time.Minute, func() bool {
			h := remoteHead()
			for k, ws := range w {
				if head, _ := ws.Head(); head != h {
					return false
				}
				data, err := os.ReadFile(filepath.Join(ws.Root, "plans", name(k, i)+".report.json"))
				if err != nil || !strings.Contains(string(data), h) {
					return false
				}
			}
			return true
		})
		var wg sync.WaitGroup
		for k, ws := range w {
			wg.Add(1)
			go func(k int, ws *store.Workspace) {
				defer wg.Done()
				inbox := filepath.Join(ws.Root, "plans")
				os.Rename(filepath.Join(inbox, name(k, i)+".json"), filepath.Join(inbox, name(k, i)+".approved"))
			}(k, ws)
		}
		wg.Wait()
		waitFor(t, fmt.Sprintf("round %d settled", i), 5*time.Minute, func() bool {
			for k, ws := range w {
				if _, err := os.Stat(filepath.Join(ws.Root, "plans", name(k, i)+".approved")); err == nil {
					return false
				}
				// an error (the tracking ref being written by a fetch) is not "settled"
				if a, _, err := ws.AheadBehind("origin"); err != nil || a != 0 {
					return false
				}
			}
			return true
		})
	}
	took := time.Since(start)
	for _, d := range daemons {
		d.Close()
	}
	// nothing stays local: every workspace is at the remote's head once it has pushed and pulled
	for k, ws := range w {
		if _, err := ledgers[k].Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := ledgers[k].Pull(context.Background()); err != nil {
			t.Fatal(err)
		}
		if a, b, _ := ws.AheadBehind("origin"); a != 0 || b != 0 {
			t.Fatalf("%s: %d ahead, %d behind", ws.Root, a, b)
		}
	}
	lt.Linear(t, bare)
	applied := lt.Applied(t, bare)
	rejected, byRace, byPull := 0, 0, 0
	for k, ws := range w {
		for i := 0; i < per; i++ {
			n := name(k, i)
			_, err := os.Stat(filepath.Join(ws.Root, "plans", n+".rejected"))
			isRejected := err == nil
			switch {
			case applied[n] > 1:
				t.Fatalf("%s applied %d times", n, applied[n])
			case applied[n] == 1 && isRejected:
				t.Fatalf("%s both applied and rejected", n)
			case applied[n] == 0 && !isRejected:
				t.Fatalf("%s neither applied nor rejected: lost", n)
			case isRejected:
				rejected++
				var r plans.Report
				data, _ := os.ReadFile(filepath.Join(ws.Root, "plans", n+".report.json"))
				if json.Unmarshal(data, &r) != nil || r.Reason == "" {
					t.Fatalf("%s rejected without a reason: %s", n, data)
				}
				switch {
				case strings.Contains(r.Reason, "stale: remote commit"):
					byRace++
				case strings.Contains(r.Reason, "since its preview"):
					byPull++
				}
			}
		}
	}
	t.Logf("300 approvals through 3 daemons in %s: %d applied (pushed), %d rejected with the reason (%d lost a push race on the same element, %d found their element changed since the preview when they pulled)",
		took.Round(time.Millisecond), len(applied), rejected, byRace, byPull)
	if byRace == 0 {
		t.Log("no push race was lost on the same element this run")
	}
	lt.CheckRemoteModels(t, bare)
}

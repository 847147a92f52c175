package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/internal/gitserver"
	"github.com/archiplan/archiplan/store"
)

// Two daemons share a remote served by a real sshd (a key with a passphrase, known_hosts) and by
// a real Apache (TLS from a private CA, basic auth): approvals on both sides end applied once or
// rejected as stale, the history linear. Then the server is stopped (SIGSTOP): approvals go on
// being applied locally while the sync hangs, and stopping a daemon ends its sync at once.
func TestTeam_OverSSHAndHTTPS(t *testing.T) {
	t.Run("ssh", func(t *testing.T) {
		s := gitserver.StartSSHD(t, "sesame")
		home := t.TempDir()
		t.Setenv("HOME", home)
		t.Setenv("SSH_AUTH_SOCK", "")
		t.Setenv("GIT_SSH_COMMAND", "")
		t.Setenv("ARCHIPLAN_SSH_KEY", s.Key)
		t.Setenv("ARCHIPLAN_SSH_KEY_PASSPHRASE", "sesame")
		os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
		os.WriteFile(filepath.Join(home, ".ssh", "known_hosts"), []byte(s.KnownHostsLine()), 0o600)
		bare, w := lt.Team(t, 2)
		for _, ws := range w {
			lt.Git(t, ws.Root, "remote", "set-url", "origin", s.URL(bare))
		}
		teamOverServer(t, bare, w, s.Server)
	})
	t.Run("https", func(t *testing.T) {
		h := gitserver.StartHTTPS(t, "alice", "s3cret")
		t.Setenv("HOME", t.TempDir())
		t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
		t.Setenv("GIT_SSL_CAINFO", h.CAFile)
		t.Setenv("ARCHIPLAN_GIT_USER", "alice")
		t.Setenv("ARCHIPLAN_GIT_TOKEN", "s3cret")
		// the served repository belongs to the server's user: the test's git reads it too
		t.Setenv("GIT_CONFIG_COUNT", "1")
		t.Setenv("GIT_CONFIG_KEY_0", "safe.directory")
		t.Setenv("GIT_CONFIG_VALUE_0", "*")
		seed, w := lt.Team(t, 2)
		bare := h.Serve(t, seed, "team.git")
		for _, ws := range w {
			lt.Git(t, ws.Root, "remote", "set-url", "origin", h.URL("team.git"))
		}
		teamOverServer(t, bare, w, h.Server)
	})
}

func teamOverServer(t *testing.T, bare string, w []*store.Workspace, srv *gitserver.Server) {
	els := lt.Elements(t, w[0])
	var daemons []*Daemon
	for i, ws := range w {
		logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})).With("ws", i)
		remote := lt.Origin
		remote.Net = store.NetOptions{Idle: 20 * time.Second} // a loaded machine's sshd can be slow to answer: the hang below is what is tested, not the speed
		l := ledger.New(ledger.Config{Workspace: ws, Inbox: lt.Inbox(ws), Remote: remote,
			ApprovedBy: store.Signature{Name: fmt.Sprintf("team%d", i), Email: "t@t"}, Logger: logger})
		d := New(Config{Ledger: l, Remote: remote, Logger: logger,
			Debounce: 20 * time.Millisecond, Settle: 20 * time.Millisecond, Rescan: time.Second, FetchInterval: 300 * time.Millisecond})
		if err := d.Open(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		daemons = append(daemons, d)
	}
	plansDir := func(k int) string { return filepath.Join(w[k].Root, "plans") }
	// each workspace renames the same element (one wins, one is stale) and one of its own
	const rounds = 2
	for i := 0; i < rounds; i++ {
		for k := range w {
			os.WriteFile(filepath.Join(plansDir(k), fmt.Sprintf("same%d-%d.json", k, i)), lt.Rename(els[0], fmt.Sprintf("S%d %d", k, i)), 0o644)
			os.WriteFile(filepath.Join(plansDir(k), fmt.Sprintf("own%d-%d.json", k, i)), lt.Rename(els[1+k], fmt.Sprintf("O%d %d", k, i)), 0o644)
		}
		waitFor(t, "previews", 2*time.Minute, func() bool {
			for k := range w {
				if count(plansDir(k), fmt.Sprintf("*-%d.report.json", i)) != 2 {
					return false
				}
			}
			return true
		})
		for k := range w {
			for _, n := range []string{"same", "own"} {
				name := fmt.Sprintf("%s%d-%d", n, k, i)
				os.Rename(filepath.Join(plansDir(k), name+".json"), filepath.Join(plansDir(k), name+".approved"))
			}
		}
		waitFor(t, fmt.Sprintf("round %d applied and pushed", i), 5*time.Minute, func() bool {
			for k, ws := range w {
				if count(plansDir(k), "*.approved") != 0 {
					return false
				}
				// an error (the tracking ref being written by a fetch) is not "in sync"
				if a, _, err := ws.AheadBehind("origin"); err != nil || a != 0 {
					return false
				}
				// nor is a push whose outcome is not recorded yet: the push moves the tracking ref
				// before the workspace's remote state says how it went (checked below)
				if ws.RemoteState().Pushing != "" {
					return false
				}
			}
			return true
		})
	}
	lt.Linear(t, bare)
	applied := lt.Applied(t, bare)
	for k := range w {
		for i := 0; i < rounds; i++ {
			for _, n := range []string{"same", "own"} {
				name := fmt.Sprintf("%s%d-%d", n, k, i)
				rej, _ := filepath.Glob(filepath.Join(plansDir(k), name+"*.rejected")) // a name taken since gets a free one
				var err error
				if len(rej) == 0 {
					err = os.ErrNotExist
				}
				if applied[name]+map[bool]int{true: 1}[err == nil] != 1 {
					files, _ := filepath.Glob(filepath.Join(plansDir(k), name+"*"))
					report, _ := os.ReadFile(filepath.Join(plansDir(k), name+".report.json"))
					t.Fatalf("%s: applied %d times, rejected %v: %v\n%s", name, applied[name], err == nil, files, report)
				}
			}
		}
	}
	// a push the remote refused because the other workspace pushed first stays recorded until
	// the sync after it finds the branch in sync and clears it (a state the test saw above can
	// come just before that sync): wait for that sync; an error that stands is a failure
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		rs := w[0].RemoteState()
		if rs.LastFetchError == "" && rs.LastPushError == "" {
			break
		}
		if time.Since(start) > time.Minute {
			t.Fatalf("errors recorded, and not cleared by a sync in 1 minute: %+v", rs)
		}
	}

	// the server stops answering: an approval is still applied locally, its push waits
	srv.Pause()
	os.WriteFile(filepath.Join(plansDir(0), "hung.json"), lt.Rename(els[3], "While Hung"), 0o644)
	waitFor(t, "the preview while the remote hangs", 2*time.Minute, func() bool { return count(plansDir(0), "hung.report.json") == 1 })
	before, _ := w[0].Head()
	os.Rename(filepath.Join(plansDir(0), "hung.json"), filepath.Join(plansDir(0), "hung.approved"))
	waitFor(t, "the apply while the remote hangs", 2*time.Minute, func() bool {
		head, _ := w[0].Head()
		return head != before && count(plansDir(0), "hung.approved") == 0
	})
	if !strings.Contains(lt.Git(t, w[0].Root, "log", "-1", "--format=%s"), "While Hung") {
		t.Fatal("the approval was not applied locally")
	}
	// stopping the daemon (what SIGTERM does) ends the sync in flight: Close returns
	closed := make(chan struct{})
	go func() { daemons[0].Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(2 * time.Minute): // generous: it must end, not wait for the server
		t.Fatal("the daemon did not stop while its sync hung")
	}
	srv.Resume()
}

// The daemon's syncer fetches (a pack written into go-git's shared storage) while its passes
// preview and a reader (the review page) reads the history and the model: run with -race in CI.
func TestDaemon_ConcurrentSyncPassAndRead(t *testing.T) {
	bare, w := lt.Team(t, 2)
	ws := w[0]
	l := ledger.New(ledger.Config{Workspace: ws, Inbox: lt.Inbox(ws), Remote: lt.Origin, ApprovedBy: lt.Signature})
	d := New(Config{Ledger: l, Remote: lt.Origin, Debounce: 10 * time.Millisecond, Settle: 10 * time.Millisecond,
		Rescan: time.Second, FetchInterval: 20 * time.Millisecond})
	if err := d.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	stop := make(chan struct{})
	readerDone := make(chan error, 1)
	go func() { // the review page
		for {
			select {
			case <-stop:
				readerDone <- nil
				return
			default:
			}
			if _, err := ws.History(nil); err != nil {
				readerDone <- err
				return
			}
			if _, err := ws.ReadModel(); err != nil {
				readerDone <- err
				return
			}
		}
	}()
	els := lt.Elements(t, ws)
	colleague := lt.Ledger(w[1])
	const n = 4
	for i := 0; i < n; i++ {
		os.WriteFile(filepath.Join(ws.Root, "plans", fmt.Sprintf("p%d.json", i)), lt.Rename(els[2], fmt.Sprintf("Mine %d", i)), 0o644)
		if _, err := colleague.Apply(context.Background(), ledger.Request{Name: fmt.Sprintf("c%d", i), File: "c.json", Raw: lt.Rename(els[1], fmt.Sprintf("Theirs %d", i))}); err != nil {
			t.Fatal(err)
		}
		if _, err := colleague.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	want := lt.Git(t, bare, "rev-parse", "main")
	waitFor(t, "the colleague's commits pulled and every plan previewed on them", 3*time.Minute, func() bool {
		head, _ := ws.Head()
		if head != want {
			return false
		}
		for i := 0; i < n; i++ {
			data, err := os.ReadFile(filepath.Join(ws.Root, "plans", fmt.Sprintf("p%d.report.json", i)))
			if err != nil || !strings.Contains(string(data), want) {
				return false
			}
		}
		return true
	})
	close(stop)
	if err := <-readerDone; err != nil {
		t.Fatal(err)
	}
}

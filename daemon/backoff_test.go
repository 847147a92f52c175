package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archiplan/archiplan/daemon/ledger"
	lt "github.com/archiplan/archiplan/daemon/ledger/ledgertest"
	"github.com/archiplan/archiplan/store"
)

// backedOff records, as a failing credential would have, that the remote is not to be tried for
// an hour: what a daemon stopped after such a failure leaves in .git/.
func backedOff(t *testing.T, ws *store.Workspace) {
	t.Helper()
	st := ws.RemoteState()
	st.RetryAfter, st.Failures = time.Now().Add(time.Hour), 7
	st.LastPushError, st.LastPushCode = "push origin: the server refused every key offered [REMOTE_AUTH]", store.CodeAuth
	data, _ := json.Marshal(st)
	if err := os.WriteFile(ws.GitPath("archiplan-remote.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// lockedBuffer is a log a test reads while the daemon writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// A daemon restarted after a credential failure (the person fixed it) pushes at its first sync,
// not after the backoff persisted for status (up to an hour).
func TestDaemon_RestartLiftsBackoff(t *testing.T) {
	bare, w := lt.Team(t, 1)
	ws := w[0]
	l := lt.Ledger(ws)
	if _, err := l.Apply(context.Background(), ledger.Request{Name: "p", File: "p.json", Raw: lt.Rename(lt.Elements(t, ws)[0], "Client")}); err != nil {
		t.Fatal(err)
	}
	backedOff(t, ws)
	d := New(Config{Ledger: l, Remote: lt.Origin, Debounce: 20 * time.Millisecond, Settle: 20 * time.Millisecond,
		Rescan: time.Second, FetchInterval: 50 * time.Millisecond})
	if err := d.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	waitFor(t, "the apply pushed", 2*time.Minute, func() bool {
		return strings.Contains(lt.Git(t, bare, "log", "--format=%s", "main"), "rename to Client")
	})
}

// While the remote backs off, a sync tries nothing and logs nothing: the attempt that failed was
// logged (it used to log a pull and a push warning at every tick, two a second).
func TestDaemon_BackingOffIsQuiet(t *testing.T) {
	_, w := lt.Team(t, 1)
	ws := w[0]
	l := lt.Ledger(ws)
	if _, err := l.Apply(context.Background(), ledger.Request{Name: "p", File: "p.json", Raw: lt.Rename(lt.Elements(t, ws)[0], "Client")}); err != nil {
		t.Fatal(err)
	}
	backedOff(t, ws)
	var log lockedBuffer
	d := New(Config{Ledger: l, Remote: lt.Origin, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	for i := 0; i < 5; i++ {
		d.sync(context.Background(), true)
	}
	if n := strings.Count(log.String(), "level=WARN"); n != 0 {
		t.Fatalf("%d warnings while backing off:\n%s", n, log.String())
	}
	if a, _, _ := ws.AheadBehind("origin"); a != 1 {
		t.Fatalf("%d ahead: the backoff did not hold", a)
	}
}

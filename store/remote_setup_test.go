package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/internal/gitserver"
)

// ARCHIPLAN_SSH_KEY naming no file is an error that names it, not passed over for a default key.
func TestRemote_SSHKeyNamedMissing(t *testing.T) {
	s := gitserver.StartSSHD(t, "")
	ws, dir := newRepo(t)
	home := sshHome(t, s, true, "")
	os.Rename(s.Key, filepath.Join(home, ".ssh", "id_ed25519"))
	missing := filepath.Join(home, "keys", "team_ed25519")
	t.Setenv("ARCHIPLAN_SSH_KEY", missing)
	bare := filepath.Join(t.TempDir(), "remote.git")
	teamRemote(t, dir, bare, s.URL(bare))
	err := ws.Fetch(context.Background(), "origin")
	if err == nil {
		t.Fatal("fetched with another key than the one named")
	}
	re := remoteCode(t, err)
	if re.Code != CodeAuth || !strings.Contains(re.Error(), "ARCHIPLAN_SSH_KEY names "+missing) || !strings.Contains(re.Fix, "ARCHIPLAN_SSH_KEY") {
		t.Fatalf("got %v (fix %q)", re, re.Fix)
	}
}

// A credential failure backs off (up to an hour); the person then puts the key where ssh looks
// (~/.ssh/id_ed25519): the next fetch tries at once, in the same process, without a restart.
func TestRemote_FixedCredentialTriesAtOnce(t *testing.T) {
	s := gitserver.StartSSHD(t, "")
	ws, dir := newRepo(t)
	home := sshHome(t, s, true, "")
	aside := filepath.Join(home, "keys", "team_ed25519")
	os.MkdirAll(filepath.Dir(aside), 0o700)
	os.Rename(s.Key, aside)
	bare := filepath.Join(t.TempDir(), "remote.git")
	teamRemote(t, dir, bare, s.URL(bare))
	if err := ws.Fetch(context.Background(), "origin"); err == nil || remoteCode(t, err).Code != CodeAuth {
		t.Fatalf("fetched without the key: %v", err)
	}
	if err := ws.Fetch(context.Background(), "origin"); err == nil || remoteCode(t, err).Code != CodeBackoff {
		t.Fatalf("the failure does not back off: %v", err)
	}
	if err := os.Rename(aside, filepath.Join(home, ".ssh", "id_ed25519")); err != nil {
		t.Fatal(err)
	}
	if err := ws.Fetch(context.Background(), "origin"); err != nil {
		t.Fatalf("the fixed credential waits out the backoff: %v", err)
	}
}

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

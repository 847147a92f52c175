package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/archiplan/archiplan/internal/gitserver"
)

// sshHome is a HOME for a test: the server's key as the user's, a known_hosts that knows the
// server when known, no agent.
func sshHome(t *testing.T, s *gitserver.SSHD, known bool, config string) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("SSH_AUTH_SOCK", "")
	t.Setenv("GIT_SSH_COMMAND", "")
	t.Setenv("ARCHIPLAN_SSH_KEY", "")
	t.Setenv("ARCHIPLAN_SSH_KEY_PASSPHRASE", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	if known {
		os.WriteFile(filepath.Join(home, ".ssh", "known_hosts"), []byte(s.KnownHostsLine()), 0o600)
	}
	if config != "" {
		os.WriteFile(filepath.Join(home, ".ssh", "config"), []byte(config), 0o600)
	}
	return home
}

// teamRemote makes a bare repository of the test's repository at path, and names it origin
// with url.
func teamRemote(t *testing.T, dir, bare, url string) {
	t.Helper()
	run(t, dir, "clone", "-q", "--bare", dir, bare)
	run(t, dir, "remote", "add", "origin", url)
}

func remoteCode(t *testing.T, err error) *RemoteError {
	t.Helper()
	var re *RemoteError
	if !errors.As(err, &re) {
		t.Fatalf("not a RemoteError: %v", err)
	}
	if strings.Contains(re.Error(), "\n") {
		t.Fatalf("not one line: %q", re.Error())
	}
	return re
}

// ~/.ssh/config is honoured: a host alias with HostName, Port, User and IdentityFile (not a
// default key name), and its UserKnownHostsFile; fetch and push go through it.
func TestRemote_SSHConfig(t *testing.T) {
	s := gitserver.StartSSHD(t, "")
	ws, dir := newRepo(t)
	home := sshHome(t, s, false, "")
	os.Rename(s.Key, filepath.Join(home, "team-key"))
	os.WriteFile(filepath.Join(home, "team_known"), []byte(s.KnownHostsLine()), 0o600)
	os.WriteFile(filepath.Join(home, ".ssh", "config"), []byte(fmt.Sprintf(`Host team
  HostName 127.0.0.1
  Port %d
  User %s
  IdentityFile ~/team-key
  UserKnownHostsFile ~/team_known
`, s.Port, s.User)), 0o600)
	bare := filepath.Join(t.TempDir(), "remote.git")
	teamRemote(t, dir, bare, "team:"+bare)
	if err := ws.Fetch(context.Background(), "origin"); err != nil {
		t.Fatalf("fetch through the alias: %v", err)
	}
	if _, err := publish(t, ws, 2); err != nil {
		t.Fatal(err)
	}
	if err := ws.Push(context.Background(), "origin"); err != nil {
		t.Fatalf("push through the alias: %v", err)
	}
	head, _ := ws.Head()
	if got := run(t, bare, "rev-parse", "main"); got != head {
		t.Fatalf("the remote is at %s, want %s", got, head)
	}
}

// A default key (~/.ssh/id_ed25519) encrypted with a passphrase, known hosts in ~/.ssh; a host
// that known_hosts does not know is refused with the ssh-keyscan line that fixes it, and not
// tried again on the next tick.
func TestRemote_SSHHostKeyAndDefaultKey(t *testing.T) {
	s := gitserver.StartSSHD(t, "sesame")
	ws, dir := newRepo(t)
	home := sshHome(t, s, false, "")
	os.Rename(s.Key, filepath.Join(home, ".ssh", "id_ed25519"))
	t.Setenv("ARCHIPLAN_SSH_KEY_PASSPHRASE", "sesame")
	bare := filepath.Join(t.TempDir(), "remote.git")
	teamRemote(t, dir, bare, s.URL(bare))

	err := ws.Fetch(context.Background(), "origin")
	re := remoteCode(t, err)
	want := fmt.Sprintf("ssh-keyscan -p %d 127.0.0.1 >> ~/.ssh/known_hosts", s.Port)
	if re.Code != CodeHostKey || !strings.Contains(re.Fix, want) {
		t.Fatalf("unknown host: %v; want %s with %q", err, CodeHostKey, want)
	}
	st := ws.RemoteState()
	if st.LastFetchCode != CodeHostKey || !strings.Contains(st.LastFetchError, want) || st.RetryAfter.IsZero() {
		t.Fatalf("status: %+v", st)
	}
	if err := ws.Fetch(context.Background(), "origin"); !errors.Is(err, ErrBackoff) {
		t.Fatalf("tried again at once: %v", err)
	}
	// the person adds the key and asks again
	os.WriteFile(filepath.Join(home, ".ssh", "known_hosts"), []byte(s.KnownHostsLine()), 0o600)
	ws.TryNow()
	if err := ws.Fetch(context.Background(), "origin"); err != nil {
		t.Fatalf("after ssh-keyscan: %v", err)
	}
	if st := ws.RemoteState(); st.LastFetchError != "" || !st.RetryAfter.IsZero() {
		t.Fatalf("the failure still stands: %+v", st)
	}
}

// A key the server does not know: an authentication failure recorded for status (it used to be
// returned before anything was recorded), backed off.
func TestRemote_SSHAuthFailure(t *testing.T) {
	s := gitserver.StartSSHD(t, "")
	ws, dir := newRepo(t)
	home := sshHome(t, s, true, "")
	if out, err := runCmd(home, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(home, ".ssh", "id_ed25519")); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	bare := filepath.Join(t.TempDir(), "remote.git")
	teamRemote(t, dir, bare, s.URL(bare))
	re := remoteCode(t, ws.Fetch(context.Background(), "origin"))
	if re.Code != CodeAuth {
		t.Fatalf("got %v, want %s", re, CodeAuth)
	}
	if st := ws.RemoteState(); st.LastFetchCode != CodeAuth || st.Failures != 1 {
		t.Fatalf("status: %+v", st)
	}
	if _, err := publish(t, ws, 2); err != nil {
		t.Fatal(err)
	}
	if err := ws.Push(context.Background(), "origin"); !errors.Is(err, ErrBackoff) {
		t.Fatalf("push tried again at once: %v", err)
	}
	// the person names the right key: tried at once, not after the backoff persisted for status
	t.Setenv("ARCHIPLAN_SSH_KEY", s.Key)
	if err := ws.Push(context.Background(), "origin"); err != nil {
		t.Fatalf("the right key named, still: %v", err)
	}
	if st := ws.RemoteState(); !st.RetryAfter.IsZero() || st.LastPushError != "" {
		t.Fatalf("the failure still stands: %+v", st)
	}
}

// A stopped sshd accepts connections and never answers: a fetch ends at the idle timeout, and a
// fetch cancelled (a SIGTERM) ends at once, neither holding any lock.
func TestRemote_SSHHung(t *testing.T) {
	s := gitserver.StartSSHD(t, "")
	ws, dir := newRepo(t)
	home := sshHome(t, s, true, "")
	os.Rename(s.Key, filepath.Join(home, ".ssh", "id_ed25519"))
	bare := filepath.Join(t.TempDir(), "remote.git")
	teamRemote(t, dir, bare, s.URL(bare))
	s.Pause()
	ws.SetNet(NetOptions{Idle: 2 * time.Second})
	hungFetch(t, ws)
}

func hungFetch(t *testing.T, ws *Workspace) {
	t.Helper()
	re := remoteCode(t, ws.Fetch(context.Background(), "origin"))
	if re.Code != CodeUnreachable || !strings.Contains(re.Reason, "no answer") {
		t.Fatalf("got %v, want %s (no answer)", re, CodeUnreachable)
	}
	lock, err := ws.Lock() // nothing held it meanwhile, nor now
	if err != nil {
		t.Fatal(err)
	}
	lock.Unlock()
	ws.SetNet(NetOptions{}) // the default idle timeout: only the cancel ends it
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ws.Fetch(ctx, "origin") }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, ErrUnreachable) {
			t.Fatalf("cancelled fetch: %v", err)
		}
	case <-time.After(time.Minute): // generous: it must end, not hang until the idle timeout
		t.Fatal("a cancelled fetch did not end")
	}
}

// https with a private CA and basic auth: the CA comes from git's http.sslCAInfo (an untrusted
// certificate is a certificate error naming the option), the password from git's credential
// helper; a wrong password is one line with the HTTP status (never the server's page), backed
// off.
func TestRemote_HTTPS(t *testing.T) {
	h := gitserver.StartHTTPS(t, "alice", "s3cret")
	ws, dir := newRepo(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_SSL_CAINFO", "")
	t.Setenv("ARCHIPLAN_GIT_TOKEN", "")
	h.Serve(t, dir, "team.git")
	run(t, dir, "remote", "add", "origin", h.URL("team.git"))

	re := remoteCode(t, ws.Fetch(context.Background(), "origin"))
	if re.Code != CodeCertificate || !strings.Contains(re.Fix, "http.sslCAInfo") {
		t.Fatalf("untrusted certificate: %v", re)
	}
	ws.TryNow()
	run(t, dir, "config", "http.sslCAInfo", h.CAFile)
	creds := filepath.Join(home, "creds")
	run(t, dir, "config", "credential.helper", "store --file="+creds)
	os.WriteFile(creds, []byte(fmt.Sprintf("https://alice:wrong@127.0.0.1:%d\n", h.Port)), 0o600)
	re = remoteCode(t, ws.Fetch(context.Background(), "origin"))
	if re.Code != CodeAuth || !strings.Contains(re.Reason, "HTTP 401") || strings.Contains(re.Error(), "<") {
		t.Fatalf("wrong password: %v", re)
	}
	if st := ws.RemoteState(); st.LastFetchCode != CodeAuth || strings.Contains(st.LastFetchError, "wrong") {
		t.Fatalf("status: %+v", st)
	}
	if err := ws.Fetch(context.Background(), "origin"); !errors.Is(err, ErrBackoff) {
		t.Fatalf("a wrong password tried again at once: %v", err)
	}
	os.WriteFile(creds, []byte(fmt.Sprintf("https://alice:s3cret@127.0.0.1:%d\n", h.Port)), 0o600)
	ws.TryNow()
	if err := ws.Fetch(context.Background(), "origin"); err != nil {
		t.Fatalf("with the CA and the stored credential: %v", err)
	}
	if _, err := publish(t, ws, 2); err != nil {
		t.Fatal(err)
	}
	if err := ws.Push(context.Background(), "origin"); err != nil {
		t.Fatalf("push: %v", err)
	}

	h.Pause()
	ws.SetNet(NetOptions{Idle: 2 * time.Second})
	hungFetch(t, ws)
}

func runCmd(dir, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

// An ssh remote as the user's set-up resolves it, handed to go-git as an address it dials as is.
func TestResolveSSH(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_SSH_COMMAND", "")
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "config"), []byte("Host alias\n  HostName real.example\n  Port 2200\n  User bob\n  IdentityFile ~/k\n  StrictHostKeyChecking accept-new\n"), 0o600)
	for _, c := range []struct{ url, want, strict string }{
		{"git@github.com:org/repo.git", "git@github.com:org/repo.git", "yes"},
		{"ssh://ann@host.example:2222/srv/r.git", "ssh://ann@host.example:2222/srv/r.git", "yes"},
		{"alias:repo.git", "ssh://bob@real.example:2200/~/repo.git", "accept-new"},
		{"ssh://alias/srv/r.git", "ssh://bob@real.example:2200/srv/r.git", "accept-new"},
	} {
		tg, err := resolveSSH(c.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := tg.url(); got != c.want || tg.strict != c.strict {
			t.Errorf("%s: %s (%s), want %s (%s)", c.url, got, tg.strict, c.want, c.strict)
		}
	}
	t.Setenv("GIT_SSH_COMMAND", "ssh -i /keys/team -p 2201 -o StrictHostKeyChecking=no")
	tg, _ := resolveSSH("git@host.example:r.git")
	if tg.port != 2201 || tg.strict != "no" || tg.identities[0] != "/keys/team" {
		t.Errorf("GIT_SSH_COMMAND: %+v", tg)
	}
	// git runs the command through the shell: a quoted key path with a space is one word
	t.Setenv("GIT_SSH_COMMAND", `ssh -i "/keys/my team/id_ed25519" -o 'StrictHostKeyChecking accept-new' -p2202`)
	tg, err := resolveSSH("git@host.example:r.git")
	if err != nil {
		t.Fatal(err)
	}
	if len(tg.identities) == 0 || tg.identities[0] != "/keys/my team/id_ed25519" || tg.port != 2202 || tg.strict != "accept-new" {
		t.Errorf("GIT_SSH_COMMAND with quoted words: %+v", tg)
	}
	t.Setenv("GIT_SSH_COMMAND", `ssh -i "/keys/unclosed`)
	if _, err := resolveSSH("git@host.example:r.git"); err == nil || !strings.Contains(err.Error(), "GIT_SSH_COMMAND") {
		t.Errorf("an unclosed quote in GIT_SSH_COMMAND: %v", err)
	}
}

// A push to a path remote runs to its end even when its context ends: go-git, told to stop a
// local git-receive-pack mid-push, kills it and then waits forever on the pipes its child
// (unpack-objects) still holds, so a daemon stopped during such a push never stopped. On the
// local disk there is nothing to give up on.
func TestRemote_LocalPushIgnoresCancel(t *testing.T) {
	ws, dir := newRepo(t)
	bare := filepath.Join(t.TempDir(), "remote.git")
	teamRemote(t, dir, bare, bare)
	if _, err := publish(t, ws, 2); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ws.Push(ctx, "origin"); err != nil {
		t.Fatalf("a local push with its context ended: %v", err)
	}
	head, _ := ws.Head()
	if got := run(t, bare, "rev-parse", "main"); got != head {
		t.Fatalf("the remote is at %s, want %s", got, head)
	}
}

// What is recorded of a remote is shown as that remote's only: with the configuration naming
// another remote, status shows none of the first one's pushes, until the other is pushed to.
func TestRemoteState_OfTheRemoteNamed(t *testing.T) {
	ws, dir := newRepo(t)
	bare := filepath.Join(t.TempDir(), "remote.git")
	teamRemote(t, dir, bare, bare)
	backup := filepath.Join(t.TempDir(), "backup.git")
	run(t, dir, "init", "-q", "--bare", backup)
	run(t, dir, "remote", "add", "backup", backup)
	if _, err := publish(t, ws, 2); err != nil {
		t.Fatal(err)
	}
	if err := ws.Push(context.Background(), "origin"); err != nil {
		t.Fatal(err)
	}
	if st := ws.RemoteStateOf("origin"); st.LastPush.IsZero() {
		t.Fatalf("origin's push is not recorded: %+v", st)
	}
	if st := ws.RemoteStateOf("backup"); !st.LastPush.IsZero() || st.LastFetchError != "" {
		t.Fatalf("backup, never pushed to, shows origin's record: %+v", st)
	}
	if err := ws.Push(context.Background(), "backup"); err != nil {
		t.Fatal(err)
	}
	if st := ws.RemoteStateOf("backup"); st.LastPush.IsZero() || st.Remote != "backup" {
		t.Fatalf("backup's push is not recorded: %+v", st)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/archiplan/archiplan/internal/gitserver"
)

// A workspace whose team remote is Apache over TLS (a private CA) with basic auth:
//   - a wrong password reaches status as one line (the HTTP status, never the server's page),
//     with its code and the backoff;
//   - with the right one, the daemon syncs; then the server is stopped (SIGSTOP): an approval is
//     still applied locally, status is not "locked", and SIGTERM ends the daemon, its sync in
//     flight included.
func TestDaemon_RemoteHangsAndSIGTERM(t *testing.T) {
	bin, err := exec.LookPath("archiplan") // the test binary, as testscript set it up
	if err != nil {
		t.Skip("archiplan not on PATH")
	}
	h := gitserver.StartHTTPS(t, "alice", "s3cret")
	root := t.TempDir()
	env := append(os.Environ(), "HOME="+root, "GIT_CONFIG_NOSYSTEM=1", "GIT_SSL_CAINFO="+h.CAFile,
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@t",
		"ARCHIPLAN_GIT_USER=alice", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=*")
	ws := filepath.Join(root, "ws")
	sh := func(extra []string, name string, args ...string) (string, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = ws, append(append([]string{}, env...), extra...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	must := func(extra []string, name string, args ...string) string {
		t.Helper()
		out, err := sh(extra, name, args...)
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return out
	}
	if out, err := (&exec.Cmd{Path: bin, Args: []string{"archiplan", "init", ws}, Env: env, Dir: root}).CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(ws, ".archiplan.yaml"), []byte("remote: origin\npull: true\npush: true\nfetch_interval: 300ms\nremote_timeouts:\n  idle: 10m\n"), 0o644)
	must(nil, "git", "add", ".archiplan.yaml")
	must(nil, "git", "commit", "-q", "-m", "team config")
	h.Serve(t, ws, "team.git")
	must(nil, "git", "remote", "add", "origin", h.URL("team.git"))

	wrong := []string{"ARCHIPLAN_GIT_TOKEN=wrong"}
	if out, err := sh(wrong, bin, "sync"); err == nil {
		t.Fatalf("sync with a wrong password succeeded:\n%s", out)
	}
	status := must(wrong, bin, "status")
	if !strings.Contains(status, "HTTP 401") || !strings.Contains(status, "[REMOTE_AUTH]") || !strings.Contains(status, "not tried again before") ||
		strings.Contains(status, "<") || strings.Contains(status, "wrong") {
		t.Fatalf("status after a wrong password:\n%s", status)
	}
	right := []string{"ARCHIPLAN_GIT_TOKEN=s3cret"}
	must(right, bin, "sync")

	logf, _ := os.Create(filepath.Join(root, "daemon.log"))
	defer logf.Close()
	d := exec.Command(bin, "daemon")
	d.Dir, d.Env, d.Stdout, d.Stderr = ws, append(append([]string{}, env...), right...), logf, logf
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	gone := make(chan struct{})
	go func() { exited <- d.Wait(); close(gone) }()
	defer func() {
		select {
		case <-gone:
		default:
			d.Process.Kill()
			<-gone
		}
	}()
	fetched := func() bool {
		var st struct {
			LastFetch time.Time `json:"last_fetch"`
		}
		data, _ := os.ReadFile(filepath.Join(ws, ".git", "archiplan-remote.json"))
		return json.Unmarshal(data, &st) == nil && !st.LastFetch.IsZero()
	}
	wait := func(what string, cond func() bool) {
		t.Helper()
		for start := time.Now(); !cond(); time.Sleep(20 * time.Millisecond) {
			select {
			case err := <-exited:
				log, _ := os.ReadFile(filepath.Join(root, "daemon.log"))
				t.Fatalf("the daemon exited (%v) while waiting for %s:\n%s", err, what, log)
			default:
			}
			if time.Since(start) > 2*time.Minute {
				log, _ := os.ReadFile(filepath.Join(root, "daemon.log"))
				t.Fatalf("%s: not after 2 minutes\n%s", what, log)
			}
		}
	}
	os.Remove(filepath.Join(ws, ".git", "archiplan-remote.json"))
	wait("the daemon's first fetch", fetched)

	h.Pause()
	plan := `{"schema_version":"2.0","status":"ready","summary":"while hung","actions":[{"op":"rename_element","element_id":"id-59a96df4cd3e24d3da41e81a8c7d1335","new_name":"While Hung"}]}`
	os.WriteFile(filepath.Join(ws, "plans", "hung.json"), []byte(plan), 0o644)
	wait("the preview while the remote hangs", func() bool {
		_, err := os.Stat(filepath.Join(ws, "plans", "hung.report.json"))
		return err == nil
	})
	os.Rename(filepath.Join(ws, "plans", "hung.json"), filepath.Join(ws, "plans", "hung.approved"))
	wait("the apply while the remote hangs", func() bool {
		out, _ := sh(nil, "git", "log", "-1", "--format=%s")
		_, err := os.Stat(filepath.Join(ws, "plans", "hung.approved"))
		return strings.Contains(out, "while hung") && errors.Is(err, os.ErrNotExist)
	})
	if status := must(right, bin, "status"); strings.Contains(status, "locked") {
		t.Fatalf("status while the remote hangs:\n%s", status)
	}
	if err := d.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		if err != nil {
			log, _ := os.ReadFile(filepath.Join(root, "daemon.log"))
			t.Fatalf("the daemon exited %v after SIGTERM:\n%s", err, log)
		}
	case <-time.After(2 * time.Minute): // generous: it must end, not wait for the server
		log, _ := os.ReadFile(filepath.Join(root, "daemon.log"))
		t.Fatalf("SIGTERM did not stop the daemon while its sync hung:\n%s", log)
	}
	log, _ := os.ReadFile(filepath.Join(root, "daemon.log"))
	if bytes.Contains(log, []byte("s3cret")) {
		t.Fatal("the password reached the log")
	}
}

//go:build unix

package main

import (
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestTwoUsers_OneUidOneApprover: a plan that needs two owners' approvals cannot be approved by
// one person under two names. archiplan approve names the approver by the uid it runs as, never
// by $USER: run twice by a uid the system has no name for, with USER=alice and then USER=bob, it
// records one approver ("uid N") and refuses the second (on old code the fallback to $USER
// recorded alice and bob, and the plan was approved).
func TestTwoUsers_OneUidOneApprover(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run archiplan approve as another uid")
	}
	uid := 0
	for n := 23001; n < 23100; n++ {
		if _, err := user.LookupId(strconv.Itoa(n)); err != nil {
			uid = n
			break
		}
	}
	if uid == 0 {
		t.Skip("no unnamed uid")
	}
	base, err := os.MkdirTemp("", "approver-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "archiplan")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	ws := filepath.Join(base, "ws")
	gitconfig := filepath.Join(base, "gitconfig")
	if err := os.WriteFile(gitconfig, []byte("[safe]\n\tdirectory = *\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com", "GIT_CONFIG_GLOBAL="+gitconfig, "HOME="+base)
	run := func(as, username string, args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = ws
		cmd.Env = env
		if as != "" {
			cmd.Env = append(cmd.Env, "USER="+username, "LOGNAME="+username)
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	cmd := exec.Command(bin, "init", ws)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	owners := "owners:\n  - name: business-two\n    layer: Business\n    approvals: 2\n"
	if err := os.MkdirAll(filepath.Join(ws, "policy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "policy", "owners.yaml"), []byte(owners), 0o644); err != nil {
		t.Fatal(err)
	}
	const rename = `{"schema_version":"2.0","status":"ready","summary":"Rename Customer","actions":[{"op":"rename_element","element_id":"id-59a96df4cd3e24d3da41e81a8c7d1335","new_name":"Client"}]}`
	if err := os.WriteFile(filepath.Join(ws, "plans", "x.json"), []byte(rename), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run("", "", "validate", "plans/x.json"); err != nil {
		t.Fatalf("validate: %v\n%s", err, out)
	}
	// both names are one person who may write the workspace (as an approver must)
	err = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		return os.Chmod(p, 0o777)
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := run("uid", "alice", "approve", "x")
	if err != nil || !strings.Contains(out, "approval by uid "+strconv.Itoa(uid)+" recorded") {
		t.Fatalf("the first approval: %v\n%s", err, out)
	}
	out, err = run("uid", "bob", "approve", "x")
	if err == nil || !strings.Contains(out, "approved by this person already (uid "+strconv.Itoa(uid)+")") {
		t.Fatalf("one uid approved twice under two names: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(ws, "plans", "x.approved")); err == nil {
		t.Fatal("one person's two names approved the plan")
	}
	// a daemon of another user (this test's process stands for it) serves the workspace: the
	// approver is told so, not "no daemon serves this workspace" (kill(pid, 0) says EPERM)
	state := `{"pid":` + strconv.Itoa(os.Getpid()) + `,"state":"serving","since":"2026-01-01T00:00:00Z"}`
	if err := os.WriteFile(filepath.Join(ws, ".git", "archiplan-daemon.json"), []byte(state), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = run("uid", "", "status")
	if err != nil || !strings.Contains(out, "daemon: pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("status as another user than the daemon's: %v\n%s", err, out)
	}
}

//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTwoUsers_PlannerCannotApproveItsOwnPlans sets a workspace up as the README's threat model
// says (init --planner-group), runs the daemon as this user and a planner as another OS user
// (nobody), and checks that the planner can propose but never apply: it cannot rename a plan the
// daemon adopted, and an approval file it writes itself is rejected.
func TestTwoUsers_PlannerCannotApproveItsOwnPlans(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a planner as another user")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("no user nobody")
	}
	grp, err := user.LookupGroupId(nobody.Gid)
	if err != nil {
		t.Skip("no group of nobody")
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	gid, _ := strconv.Atoi(nobody.Gid)

	bin := filepath.Join(t.TempDir(), "archiplan")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	base, err := os.MkdirTemp("", "twousers-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	env := append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("archiplan %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("init", ws, "--planner-group", grp.Name)
	if err := os.Chmod(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	daemon := exec.Command(bin, "daemon", "--repo", ws, "--rescan", "1s")
	daemon.Env = env
	var logs bytes.Buffer
	daemon.Stderr = &logs
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		daemon.Process.Signal(syscall.SIGTERM)
		daemon.Wait()
		if t.Failed() {
			t.Logf("daemon:\n%s", logs.String())
		}
	})
	// the planner: another user, in the inbox's group
	planner := func(script string) error {
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = ws
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Logf("planner %q: %v: %s", script, err, out)
		}
		return err
	}
	plans := filepath.Join(ws, "plans")
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for start := time.Now(); !ok(); time.Sleep(50 * time.Millisecond) {
			if time.Since(start) > 5*time.Minute { // far beyond need: only a daemon that never does it
				t.Fatalf("%s: not after 5 minutes", what)
			}
		}
	}
	exists := func(name string) func() bool {
		return func() bool { _, err := os.Lstat(filepath.Join(plans, name)); return err == nil }
	}
	const rename = `{"schema_version":"2.0","status":"ready","summary":"Rename Customer","actions":[{"op":"rename_element","element_id":"id-59a96df4cd3e24d3da41e81a8c7d1335","new_name":"Client"}]}`
	if err := planner("printf '%s' '" + rename + "' > plans/x.json"); err != nil {
		t.Fatal("the planner cannot write the inbox")
	}
	waitFor("x previewed", exists("x.preview.md"))
	fi, err := os.Lstat(filepath.Join(plans, "x.json"))
	if err != nil {
		t.Fatal(err)
	}
	if owner := fi.Sys().(*syscall.Stat_t).Uid; int(owner) != os.Getuid() {
		t.Fatalf("x.json is owned by %d after its preview, not adopted by %d", owner, os.Getuid())
	}
	if err := planner("mv plans/x.json plans/x.approved"); err == nil {
		t.Fatal("the planner renamed an adopted plan to .approved")
	}
	if err := planner("printf '%s' '" + strings.Replace(rename, "Client", "Buyer", 1) + "' > plans/z.approved"); err != nil {
		t.Fatal(err)
	}
	waitFor("z rejected", exists("z.rejected"))
	report, _ := os.ReadFile(filepath.Join(plans, "z.report.json"))
	if !strings.Contains(string(report), "did not adopt") {
		t.Errorf("z's report does not say why: %s", report)
	}
	head := func() string {
		out, _ := exec.Command("git", "-C", ws, "rev-list", "--count", "HEAD").Output()
		return strings.TrimSpace(string(out))
	}
	before := head()
	// the person approves: the daemon's user
	run("approve", "x", "--repo", ws)
	// applied: committed, and its inbox files cleared, which the daemon does once the apply,
	// work tree included, is done (the commit moves HEAD before the work tree is written)
	waitFor("x applied", func() bool { return head() != before && !exists("x.approved")() })
	model, _ := os.ReadFile(filepath.Join(ws, "model.archimate"))
	if !strings.Contains(string(model), `name="Client"`) || strings.Contains(string(model), `name="Buyer"`) {
		t.Fatal("the model is not what the person approved")
	}

	// issue 35: the planner can block nothing of the person's. Its own p.approved beside the
	// adopted p.json never outranks it (on old code it became p.rejected, and "approve p"
	// answered "p is rejected")
	const desk = `{"schema_version":"2.0","status":"ready","summary":"Rename the desk","actions":[{"op":"rename_element","element_id":"id-37914ef915915bd2606e2c7216356e27","new_name":"Front Desk"}]}`
	if err := planner("printf '%s' '" + desk + "' > plans/p.json"); err != nil {
		t.Fatal(err)
	}
	waitFor("p previewed", exists("p.preview.md"))
	if err := planner("printf '%s' '" + strings.Replace(desk, "Front Desk", "Back Office", 1) + "' > plans/p.approved"); err != nil {
		t.Fatal(err)
	}
	before = head()
	run("approve", "p", "--repo", ws)
	waitFor("p applied", func() bool { return head() != before && !exists("p.approved")() })
	model, _ = os.ReadFile(filepath.Join(ws, "model.archimate"))
	if !strings.Contains(string(model), `name="Front Desk"`) || strings.Contains(string(model), "Back Office") {
		t.Fatal("the model is not what the person approved")
	}

	// an approval with two links is refused whatever fs.protected_hardlinks says: root links for
	// a planner on a kernel that lets it link an adopted plan it does not own
	if err := planner("printf '%s' '" + strings.Replace(desk, "Front Desk", "Reception", 1) + "' > plans/q.json"); err != nil {
		t.Fatal(err)
	}
	waitFor("q previewed", exists("q.preview.md"))
	before = head()
	if err := os.Link(filepath.Join(plans, "q.json"), filepath.Join(plans, "q.approved")); err != nil {
		t.Fatal(err)
	}
	waitFor("q rejected", exists("q.rejected"))
	if report, _ := os.ReadFile(filepath.Join(plans, "q.report.json")); !strings.Contains(string(report), "more than one link") {
		t.Errorf("q's report does not say why: %s", report)
	}
	if head() != before {
		t.Fatal("a hard link to an adopted plan was applied")
	}
}

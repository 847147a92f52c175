package proc

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A command archiplan does not trust (a command planner, a hook) gets only the environment Env
// makes, but runs as archiplan's user, and read /proc/$PPID/environ: every key archiplan holds
// (OPENAI_API_KEY, ARCHIPLAN_GIT_TOKEN), which the README says it never sees. The parent is not
// dumpable once it runs one: the file is root's. The parent here is this test binary run again
// as a helper, as nobody when the test runs as root (root reads every process's file). Fails on
// main (the helper's marker is read by its child).
func TestRun_ChildCannotReadParentsEnvironment(t *testing.T) {
	if os.Getenv("ARCHIPLAN_PROC_HELPER") == "parent" {
		res, err := Run(context.Background(), Spec{Path: "/bin/sh", Args: []string{"-c", `cat /proc/$PPID/environ || echo unreadable`},
			Env: []string{"PATH=" + os.Getenv("PATH")}})
		fmt.Printf("run: %v\n%s", err, res.Combined)
		return
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^TestRun_ChildCannotReadParentsEnvironment$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ARCHIPLAN_PROC_HELPER=parent", "ARCHIPLAN_TEST_SECRET=the-parents-key")
	if os.Getuid() == 0 {
		// nobody runs a copy of this binary from a folder it may enter
		dir, err := os.MkdirTemp("", "archiplan-proc-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		copyFile(t, self, filepath.Join(dir, "proc.test"))
		cmd.Path, cmd.Args[0], cmd.Dir = filepath.Join(dir, "proc.test"), filepath.Join(dir, "proc.test"), dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	out, err := cmd.CombinedOutput() // an environment: never printed whole
	if err != nil {
		t.Fatalf("helper: %v (%d bytes of output)", err, len(out))
	}
	if strings.Contains(string(out), "the-parents-key") {
		t.Fatal("a child read its parent's environment (its marker is in what the child printed)")
	}
	if !strings.Contains(string(out), "unreadable") {
		t.Fatalf("the child's read was not refused (%d bytes printed)", len(out))
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

package store

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func newRepo(t *testing.T) (*Workspace, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	run(t, dir, "init", "-q", "-b", "main")
	for name, body := range map[string]string{"model.archimate": "v1\n", "README": "keep me\n", "docs/a.txt": "a\n"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	run(t, dir, "add", ".")
	run(t, dir, "commit", "-q", "-m", "first")
	ws, err := Open(filepath.Join(dir, "docs"), "model.archimate")
	if err != nil {
		t.Fatal(err)
	}
	return ws, dir
}

// A commit is built from the base commit's tree: a missing index cannot commit the deletion of
// other files, and only the given paths change.
func TestCommit_FromTreeNotIndex(t *testing.T) {
	ws, dir := newRepo(t)
	base := run(t, dir, "rev-parse", "HEAD")
	os.Remove(filepath.Join(dir, ".git", "index"))
	commit, err := ws.Publish(Change{Base: base, Files: map[string][]byte{"model.archimate": []byte("v2\n"), "plans/applied/x/plan.json": []byte("{}")},
		Message: "plan: x\n", Author: Signature{"a", "a@a"}, When: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, dir, "rev-parse", "HEAD"); got != commit {
		t.Fatalf("HEAD %s, want %s", got, commit)
	}
	files := run(t, dir, "ls-tree", "-r", "--name-only", "HEAD")
	for _, f := range []string{"README", "docs/a.txt", "model.archimate", "plans/applied/x/plan.json"} {
		if !strings.Contains(files, f) {
			t.Fatalf("%s missing from the commit:\n%s", f, files)
		}
	}
	if stat := run(t, dir, "diff", "--stat", base, commit); strings.Contains(stat, "README") || strings.Contains(stat, "docs/") {
		t.Fatalf("other files changed:\n%s", stat)
	}
	run(t, dir, "fsck", "--full", "--no-dangling")
	// with an index, it is kept in step: git status stays clean
	run(t, dir, "reset", "-q")
	commit2, err := ws.Publish(Change{Base: commit, Files: map[string][]byte{"model.archimate": []byte("v3\n")}, Message: "y\n", When: time.Now()})
	if err != nil || commit2 == "" {
		t.Fatal(err)
	}
	if s := run(t, dir, "status", "--porcelain"); s != "" {
		t.Fatalf("git status not clean:\n%s", s)
	}
}

// The branch moves only if it still points where the change started.
func TestCommit_CompareAndSwap(t *testing.T) {
	ws, dir := newRepo(t)
	base := run(t, dir, "rev-parse", "HEAD")
	run(t, dir, "commit", "-q", "--allow-empty", "-m", "someone else")
	moved := run(t, dir, "rev-parse", "HEAD")
	_, err := ws.Publish(Change{Base: base, Files: map[string][]byte{"model.archimate": []byte("v2\n")}, Message: "x\n", When: time.Now()})
	if !errors.Is(err, ErrHeadMoved) {
		t.Fatalf("got %v, want ErrHeadMoved", err)
	}
	if got := run(t, dir, "rev-parse", "HEAD"); got != moved {
		t.Fatal("the branch moved anyway")
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "model.archimate")); string(data) != "v1\n" {
		t.Fatal("the work tree changed")
	}
}

func TestReadModel_Dirty(t *testing.T) {
	ws, dir := newRepo(t)
	head, err := ws.ReadModel()
	if err != nil || head.Dirty || string(head.Data) != "v1\n" {
		t.Fatalf("%+v %v", head, err)
	}
	os.WriteFile(filepath.Join(dir, "model.archimate"), []byte("saved from Archi\n"), 0o644)
	head, err = ws.ReadModel()
	if err != nil || !head.Dirty || string(head.Data) != "v1\n" {
		t.Fatalf("the model at HEAD must come from git, and be dirty: %+v %v", head, err)
	}
}

func TestLock_Exclusive(t *testing.T) {
	ws, _ := newRepo(t)
	l, err := ws.Lock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Lock(); !errors.Is(err, ErrLocked) {
		t.Fatalf("a second lock: %v", err)
	}
	l.Unlock()
	l2, err := ws.Lock()
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	l2.Unlock()
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"push https://ada:ghp_secret@github.com/x/y.git: 403": "push https://ada:***@github.com/x/y.git: 403",
		"fetch ssh://git@host/x: refused":                     "fetch ssh://git@host/x: refused",
		"no url here":                                         "no url here",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q", in, got)
		}
	}
}

// A change of several files in nested folders, a file removed and a folder emptied, is committed
// as the very tree git builds from the same edits (each changed tree written once).
func TestCommit_TreeIsGits(t *testing.T) {
	ws, dir := newRepo(t)
	base := run(t, dir, "rev-parse", "HEAD")
	files := map[string][]byte{
		"model.archimate":              []byte("v2\n"),
		"docs/a.txt":                   nil, // the folder's only file: the folder goes
		"README":                       nil,
		"plans/applied/x/plan.json":    []byte("{}\n"),
		"plans/applied/x/preview.md":   []byte("# x\n"),
		"plans/applied/y/report.json":  []byte("{}\n"),
		"plans/z.txt":                  []byte("z\n"),
		"a/b/c/d/e.txt":                []byte("deep\n"),
		"a/b.txt":                      []byte("beside\n"),
		"a-b/c.txt":                    []byte("git's order: 'a-b' before 'a/'\n"),
		"docs-gone/never-there.txt":    nil,
		"plans/applied/y/inverse.json": []byte("[]\n"),
	}
	commit, err := ws.Publish(Change{Base: base, Files: files, Message: "x\n", When: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other")
	run(t, dir, "clone", "-q", dir, other)
	run(t, other, "checkout", "-q", base)
	for p, data := range files {
		full := filepath.Join(other, filepath.FromSlash(p))
		if data == nil {
			os.Remove(full)
			continue
		}
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, data, 0o644)
	}
	run(t, other, "add", "-A")
	if want, got := run(t, other, "write-tree"), run(t, dir, "rev-parse", commit+"^{tree}"); got != want {
		t.Fatalf("the commit's tree is %s, git builds %s:\n%s", got, want, run(t, dir, "ls-tree", "-r", commit))
	}
	run(t, dir, "fsck", "--full", "--no-dangling")
}

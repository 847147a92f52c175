package store

import (
	"errors"
	"os/exec"
	"path"
	"sort"
	"strings"
	"testing"
)

// entry is one file of a crafted tree: its git mode and its content (a link's target; for a
// submodule, "" means the repository's first commit).
type entry struct{ mode, content string }

// craftTree writes a commit whose tree holds exactly the entries, built with git mktree so that
// it can hold what a checkout never makes (a link where a folder belongs, a submodule anywhere,
// a path under .GIT): what a colleague with push rights can push.
func craftTree(t *testing.T, dir, first string, files map[string]entry) string {
	t.Helper()
	type item struct{ mode, kind, hash, name string }
	trees := map[string][]item{"": nil}
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		e := files[p]
		it := item{mode: e.mode, kind: "blob", name: path.Base(p)}
		if e.mode == "160000" {
			it.kind, it.hash = "commit", first
		} else {
			it.hash = gitIn(t, dir, e.content, "hash-object", "-w", "--stdin")
		}
		parent := path.Dir(p)
		if parent == "." {
			parent = ""
		}
		trees[parent] = append(trees[parent], it)
		for d := parent; d != ""; { // every folder on the way exists
			up := path.Dir(d)
			if up == "." {
				up = ""
			}
			if _, ok := trees[d]; !ok {
				trees[d] = nil
			}
			d = up
		}
	}
	var build func(d string) string
	build = func(d string) string {
		var lines []string
		for _, it := range trees[d] {
			lines = append(lines, it.mode+" "+it.kind+" "+it.hash+"\t"+it.name)
		}
		for sub := range trees {
			if sub != "" && (path.Dir(sub) == d || d == "" && path.Dir(sub) == ".") {
				lines = append(lines, "040000 tree "+build(sub)+"\t"+path.Base(sub))
			}
		}
		return gitIn(t, dir, strings.Join(lines, "\n")+"\n", "mktree", "--missing")
	}
	return run(t, dir, "commit-tree", build(""), "-p", first, "-m", "crafted")
}

func gitIn(t *testing.T, dir, in string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// CheckTree refuses a pulled commit that makes one of archiplan's folders or files something
// else (a link, a file, a submodule), puts a link or a submodule inside one of its folders or on
// the way to one, or holds a path under .git/ in any case; the error names the entry, with
// ErrCommitRefused. A tree that keeps them as they should be passes.
func TestCheckTree(t *testing.T) {
	ws, dir := newRepo(t)
	first := run(t, dir, "rev-parse", "HEAD")
	g := Guarded{Folders: []string{"plans", ".archiplan", "hooks", "team/inbox"}, Files: []string{"model.archimate", "models/extra.archimate"}}
	file := entry{"100644", "x\n"}
	good := func() map[string]entry {
		return map[string]entry{"model.archimate": file, "models/extra.archimate": file, "plans/a.json": file,
			".archiplan/applied/p/plan.json": file, "hooks/pre-apply": {"100755", "#!/bin/sh\n"}, "team/inbox/b.json": file,
			"docs/link": {"120000", "../README"}, "vendor/lib": {"160000", ""}}
	}
	with := func(p string, e entry, drop ...string) map[string]entry {
		fs := good()
		for _, d := range drop {
			for k := range fs {
				if k == d || strings.HasPrefix(k, d+"/") {
					delete(fs, k)
				}
			}
		}
		fs[p] = e
		return fs
	}
	if err := ws.CheckTree(craftTree(t, dir, first, good()), g); err != nil {
		t.Fatalf("a tree that keeps archiplan's paths as they should be: %v", err)
	}
	if err := ws.CheckTree(craftTree(t, dir, first, with("model.archimate", entry{"100755", "x\n"})), g); err != nil {
		t.Fatalf("an executable model: %v", err)
	}
	for _, c := range []struct {
		name  string
		files map[string]entry
		why   string
	}{
		{"inbox a link", with("plans", entry{"120000", "/tmp"}, "plans"), `"plans" is a symbolic link where archiplan's folder belongs`},
		{"inbox a file", with("plans", file, "plans"), `"plans" is a file where archiplan's folder belongs`},
		{"archive a submodule", with(".archiplan", entry{"160000", ""}, ".archiplan"), `".archiplan" is a submodule where archiplan's folder belongs`},
		{"a link on the way to the inbox", with("team", entry{"120000", "/tmp"}, "team"), `"team" is a symbolic link on the way to archiplan's folder team/inbox`},
		{"a hook a link", with("hooks/pre-apply", entry{"120000", "/bin/true"}), `"hooks/pre-apply" is a symbolic link inside archiplan's folder hooks`},
		{"a submodule in the archive", with(".archiplan/applied/q", entry{"160000", ""}), `".archiplan/applied/q" is a submodule inside archiplan's folder .archiplan`},
		{"the model a link", with("model.archimate", entry{"120000", "/etc/passwd"}), `"model.archimate" is a symbolic link, not a file`},
		{"a file on the way to a model", with("models", file, "models"), `"models" is a file on the way to models/extra.archimate`},
		{"a path under .GIT", with(".GIT/hooks/post-checkout", entry{"100755", "#!/bin/sh\n"}), `".GIT`}, // go-git's walker refuses it first
		{"a path under .Git in a folder", with("docs/.Git/config", file), `".Git`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := ws.CheckTree(craftTree(t, dir, first, c.files), g)
			var re *RemoteError
			if !errors.Is(err, ErrCommitRefused) || !errors.As(err, &re) || re.Code != CodeCommitRefused || !strings.Contains(err.Error(), c.why) {
				t.Fatalf("got %v, want %s naming %s", err, CodeCommitRefused, c.why)
			}
		})
	}
}

// A path a configuration names is inside the work tree only when relative, without "..", and
// not under .git/ in any case.
func TestInsideWorkspace(t *testing.T) {
	for p, want := range map[string]bool{"": true, "plans": true, "team/inbox": true, "./plans": true, "a/../plans": true, "model.archimate": true,
		"/tmp/plans": false, "../plans": false, "..": false, ".": false, "a/../../plans": false, ".git": false, ".git/plans": false,
		"docs/.GIT/x": false, `plans\..\x`: false, "plans\x00": false} {
		if got := InsideWorkspace(p); got != want {
			t.Errorf("InsideWorkspace(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestInboxApart(t *testing.T) {
	for _, c := range []struct {
		inbox, model string
		apart        bool
	}{
		{"plans", "model.archimate", true},
		{"inbox/plans", "models/model.archimate", true},
		{"hooksmith", "model.archimate", true}, // a name that starts like one is not it
		{"hooks", "model.archimate", false},
		{"Hooks", "model.archimate", false}, // a case-insensitive file system opens hooks
		{"policy/new", "model.archimate", false},
		{".archiplan/applied", "model.archimate", false},
		{".git/archiplan", "model.archimate", false},
		{".", "model.archimate", false},
		{"models", "models/model.archimate", false},   // the inbox holds the model
		{"plans/../hooks", "model.archimate", false},  // cleaned first
		{"arch", "arch/.archiplan.yaml/x", false},     // holds a path of the trusted
		{"model.archimate", "model.archimate", false}, // is the model
		{"plans", "plans/model.archimate", false},     // the model in the inbox
		{"docs", "model.archimate", true},
	} {
		if got := InboxApart(c.inbox, c.model); (got == "") != c.apart {
			t.Errorf("InboxApart(%q, %q) = %q, want apart %v", c.inbox, c.model, got, c.apart)
		}
	}
}

// A model where archiplan keeps what it trusts would have each apply write text plans fill there.
func TestModelApart(t *testing.T) {
	for _, c := range []struct {
		model string
		apart bool
	}{
		{"model.archimate", true},
		{"models/ea.archimate", true},
		{"hooksmith/model.archimate", true},  // a name that starts like one is not it
		{"docs/hooks/model.archimate", true}, // only the workspace's own hooks run
		{"hooks/model.archimate", false},
		{"hooks/pre-apply", false},
		{"Hooks/model.archimate", false}, // a case-insensitive file system opens hooks
		{"policy/owners.yaml", false},
		{".archiplan/applied/x/model.archimate", false},
		{".archiplan.yaml", false},
		{".git/model.archimate", false},
		{"sub/.GIT/model.archimate", false},       // a folder named .git anywhere
		{"plans/../hooks/model.archimate", false}, // cleaned first
		{"hooks\\model.archimate", false},         // a backslash is a separator on Windows
		{"../model.archimate", false},             // outside the work tree
		{"/tmp/model.archimate", false},           // the work tree's own path is relative
		{".", false},
	} {
		if got := ModelApart(c.model); (got == "") != c.apart {
			t.Errorf("ModelApart(%q) = %q, want apart %v", c.model, got, c.apart)
		}
	}
}

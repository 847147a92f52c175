package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/archiplan/archiplan/internal/giteatest"
	"github.com/archiplan/archiplan/internal/testenv"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(giteatest.M{M: m}, map[string]func(){ // the real Gitea of some tests stops after them
		"archiplan": func() { ownProcess = true; os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

var (
	fakeOnce sync.Once
	fakeDir  string
	fakeErr  error
)

// buildFakeCodex builds testdata/fakecodex once per test run.
func buildFakeCodex() (string, error) {
	fakeOnce.Do(func() {
		fakeDir, fakeErr = os.MkdirTemp("", "fakecodex")
		if fakeErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(fakeDir, "fakecodex"), "./testdata/fakecodex").CombinedOutput()
		if err != nil {
			fakeErr = fmt.Errorf("build fakecodex: %v\n%s", err, out)
		}
	})
	return fakeDir, fakeErr
}

// The command line, as a user runs it, in real temporary git repositories.
func TestScripts(t *testing.T) {
	bin, err := buildFakeCodex()
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"waitfile": waitfile, "waithead": waithead,
			"transcript": transcript, "golden": golden, "follow": follow, "archiedit": archiedit},
		// [corpus]: ARCHIPLAN_CORPUS names the corpus of real models (journeys on them skip without it)
		Condition: func(cond string) (bool, error) {
			if cond == "corpus" {
				return os.Getenv("ARCHIPLAN_CORPUS") != "", nil
			}
			if cond == "root" { // a planner as another OS user: files given away with chown
				return os.Getuid() == 0, nil
			}
			if cond == "emf" { // ARCHI_EMF names archi-emf, Archi's own EMF, to check what a script wrote
				return testenv.Path("ARCHI_EMF") != "", nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			example, err := os.ReadFile("../../testdata/models/example.archimate")
			if err != nil {
				return err
			}
			for _, g := range []string{"context.model.json", "prompt.txt"} {
				data, err := os.ReadFile("../../testdata/golden/" + g)
				if err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(env.WorkDir, "golden-"+g), data, 0o644); err != nil {
					return err
				}
			}
			// the service unit the docs give, for the script that runs its command line
			unit, err := os.ReadFile("../../docs/archiplan.service")
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(env.WorkDir, "archiplan.service"), unit, 0o644); err != nil {
				return err
			}
			// the example rules of docs/policy.md, as policy-examples/
			examples, err := os.ReadDir("../../testdata/policy")
			if err != nil {
				return err
			}
			if err := os.Mkdir(filepath.Join(env.WorkDir, "policy-examples"), 0o755); err != nil {
				return err
			}
			for _, e := range examples {
				data, err := os.ReadFile(filepath.Join("../../testdata/policy", e.Name()))
				if err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(env.WorkDir, "policy-examples", e.Name()), data, 0o644); err != nil {
					return err
				}
			}
			env.Setenv("PATH", bin+string(os.PathListSeparator)+env.Getenv("PATH"))
			env.Setenv("GIT_AUTHOR_NAME", "Test")
			env.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
			env.Setenv("GIT_COMMITTER_NAME", "Test")
			env.Setenv("GIT_COMMITTER_EMAIL", "test@example.com")
			env.Setenv("HOME", env.WorkDir)
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			golden, err := filepath.Abs("../../testdata/golden/journeys")
			if err != nil {
				return err
			}
			env.Setenv("GOLDEN_DIR", golden)
			// journeys on real models skip without it; CI gives it relative to the module's root, and the
			// scripts run in a temporary folder, so it is passed on absolute
			env.Setenv("ARCHIPLAN_CORPUS", testenv.Path("ARCHIPLAN_CORPUS"))
			env.Setenv("ARCHI_EMF", testenv.Path("ARCHI_EMF"))
			return os.WriteFile(env.WorkDir+"/example.archimate", example, 0o644)
		},
	})
}

// waitfile PATH [SUBSTRING]: wait until the file exists (and holds SUBSTRING), at most 5 minutes
// (far beyond need: a loaded machine); PATH may be a glob. "! waitfile PATH" waits until no file
// matches. No sleeps in scripts, only waits for what a process shows.
func waitfile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 || neg && len(args) != 1 {
		ts.Fatalf("usage: waitfile PATH [SUBSTRING] | ! waitfile PATH")
	}
	pattern := ts.MkAbs(args[0])
	deadline := time.Now().Add(5 * time.Minute)
	for {
		matches, _ := filepath.Glob(pattern)
		found := false
		for _, m := range matches {
			data, err := readRegular(m)
			if err == nil && (len(args) == 1 || strings.Contains(string(data), args[1])) || err != nil && len(args) == 1 {
				found = true
			}
		}
		if found != neg {
			return
		}
		if time.Now().After(deadline) {
			if neg {
				ts.Fatalf("waitfile: %s still there after 5 minutes", args[0])
			}
			ts.Fatalf("waitfile %s: not there after 5 minutes", strings.Join(args, " "))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readRegular reads a file unless it is a link, a pipe or a device (a script may plant those on
// purpose): waiting on one must not block or read /dev/zero forever.
func readRegular(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	return os.ReadFile(path)
}

// waithead FILE: wait until FILE names the commit HEAD is at now (a preview following HEAD).
func waithead(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waithead FILE")
	}
	out, err := exec.Command("git", "-C", ts.MkAbs("."), "rev-parse", "HEAD").Output()
	if err != nil {
		ts.Fatalf("git rev-parse HEAD: %v", err)
	}
	waitfile(ts, false, []string{args[0], strings.TrimSpace(string(out))})
}

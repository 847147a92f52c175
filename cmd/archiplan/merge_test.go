package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/internal/mergecase"
	"github.com/archiplan/archiplan/internal/testenv"
	"github.com/archiplan/archiplan/store"
)

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// builtArchiplan builds the command once per test run; git runs it as the merge driver.
func builtArchiplan(t *testing.T) string {
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "archiplan-bin")
		if binErr != nil {
			return
		}
		if out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, "archiplan"), ".").CombinedOutput(); err != nil {
			binErr = &exec.Error{Name: string(out), Err: err}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binDir
}

// gitRepo is a workspace made by init from a corpus model, and git run in it with the built
// archiplan first on the PATH.
type gitRepo struct {
	t   *testing.T
	dir string
	env []string
}

func newGitRepo(t *testing.T, seed []byte) *gitRepo {
	bin := builtArchiplan(t)
	dir := t.TempDir()
	if _, _, err := store.Init(dir, store.InitOptions{Model: "model.archimate", Inbox: "plans", Seed: seed,
		Author: store.Signature{Name: "t", Email: "t@t"}}); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+dir,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.com")
	r := &gitRepo{t: t, dir: dir, env: env}
	r.git("branch", "-M", "base")
	return r
}

// run runs a command in the repository; failing says whether it must fail.
func (r *gitRepo) run(failing bool, name string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = r.dir, r.env
	out, err := cmd.CombinedOutput()
	if (err != nil) != failing {
		r.t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (r *gitRepo) git(args ...string) string { r.t.Helper(); return r.run(false, "git", args...) }

func (r *gitRepo) model() []byte {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, "model.archimate"))
	if err != nil {
		r.t.Fatal(err)
	}
	return b
}

// commit writes the model on a new branch from base and commits it.
func (r *gitRepo) commit(branch string, model []byte) {
	r.t.Helper()
	r.git("checkout", "-q", "-b", branch, "base")
	if err := os.WriteFile(filepath.Join(r.dir, "model.archimate"), model, 0o644); err != nil {
		r.t.Fatal(err)
	}
	r.git("commit", "-q", "-am", branch)
}

// emfBatch collects merged files to check with Archi's own EMF in one run at the end (a run
// takes seconds): each loads, and those whose base was in Archi's exact form are in that form.
type emfBatch struct {
	dir              string
	check, canonical []string
}

func newEMFBatch(t *testing.T) *emfBatch { return &emfBatch{dir: t.TempDir()} }

func (e *emfBatch) add(t *testing.T, name string, data []byte, loads, canonical bool) {
	if !loads {
		return
	}
	f := filepath.Join(e.dir, strings.NewReplacer("/", "_", " ", "_").Replace(name)+".archimate")
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	e.check = append(e.check, f)
	if canonical {
		e.canonical = append(e.canonical, f)
	}
}

func (e *emfBatch) run(t *testing.T) {
	emf := testenv.EMF(t)
	if emf == "" || len(e.check) == 0 {
		return
	}
	for _, what := range []string{"check", "canonical"} {
		files := e.check
		if what == "canonical" {
			files = e.canonical
		}
		if len(files) == 0 {
			continue
		}
		out, err := exec.Command(emf, append([]string{what}, files...)...).CombinedOutput()
		if err != nil || len(emfOK(out)) != len(files) {
			t.Fatalf("archi-emf %s: %v\n%s", what, err, out)
		}
	}
	t.Logf("archi-emf: %d merged files load, %d are in Archi's exact form", len(e.check), len(e.canonical))
}

var (
	canonOnce        sync.Once
	loadsOK, canonOK map[string]bool
)

// emfSays is what archi-emf says of a corpus model (run once on the whole corpus): it loads (Archi
// 2.x files do not: Archi converts them first), it is in Archi's exact form.
func emfSays(t *testing.T, path string) (loads, canonical bool) {
	canonOnce.Do(func() {
		loadsOK, canonOK = map[string]bool{}, map[string]bool{}
		if emf := testenv.EMF(t); emf != "" {
			for what, ok := range map[string]map[string]bool{"check": loadsOK, "canonical": canonOK} {
				out, _ := exec.Command(emf, append([]string{what}, testenv.CorpusModels(t)...)...).CombinedOutput()
				for _, f := range emfOK(out) {
					ok[f] = true
				}
			}
		}
	})
	return loadsOK[path], canonOK[path]
}

// emfOK lists the files archi-emf says "ok" for.
func emfOK(out []byte) []string {
	var ok []string
	for _, l := range strings.Split(string(out), "\n") {
		if f, found := strings.CutPrefix(l, "ok "); found {
			ok = append(ok, strings.TrimSpace(f))
		}
	}
	return ok
}

// The merge oracle through git: on every corpus model, two random plans on different objects
// applied on two branches and merged with plain git merge (the driver init registered) give the
// file of applying both in turn, ours first; merged the other way, theirs first; a cherry-pick
// gives the same as the merge.
func TestMergeDriver_GitOracle(t *testing.T) {
	merges := 0
	emf := newEMFBatch(t)
	for _, path := range testenv.CorpusModels(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			base, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r := newGitRepo(t, base)
			loads, canonical := emfSays(t, path)
			rng := rand.New(rand.NewPCG(uint64(len(base)), 7))
			rounds := 3
			if len(base) > 1<<20 {
				rounds = 1
			}
			for round := 0; round < rounds; round++ {
				p1, p2, a1, a2, ok := mergecase.DisjointPlans(t, base, rng)
				if !ok {
					continue
				}
				want12, _, err := mergecase.Applied(t, a1, p2)
				if err != nil {
					t.Fatal(err)
				}
				want21, _, err := mergecase.Applied(t, a2, p1)
				if err != nil {
					t.Fatal(err)
				}
				n := string(rune('a' + round))
				r.commit("ours-"+n, a1)
				r.commit("theirs-"+n, a2)
				r.git("checkout", "-q", "-b", "merged-"+n, "ours-"+n)
				r.git("merge", "-q", "--no-edit", "theirs-"+n)
				if got := r.model(); !bytes.Equal(got, want12) {
					t.Fatalf("git merge of theirs into ours: %s\nours: %s\ntheirs: %s", firstDifference(got, want12), p1, p2)
				}
				emf.add(t, t.Name()+"-"+n, r.model(), loads, canonical)
				r.git("checkout", "-q", "-b", "merged-back-"+n, "theirs-"+n)
				r.git("merge", "-q", "--no-edit", "ours-"+n)
				if got := r.model(); !bytes.Equal(got, want21) {
					t.Fatalf("git merge of ours into theirs: %s", firstDifference(got, want21))
				}
				r.git("checkout", "-q", "-b", "picked-"+n, "ours-"+n)
				r.git("cherry-pick", "theirs-"+n)
				if got := r.model(); !bytes.Equal(got, want12) {
					t.Fatalf("git cherry-pick: %s", firstDifference(got, want12))
				}
				merges += 3
			}
		})
	}
	emf.run(t)
	t.Logf("%d merges through git give the file of both plans applied in turn", merges)
}

func firstDifference(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-150)
	return "at byte " + strconv.Itoa(i) + ":\ngot:  " + string(a[lo:min(len(a), i+150)]) + "\nwant: " + string(b[lo:min(len(b), i+150)])
}

// Plans changing the same fields, merged through git, stop the merge with exactly the conflicts
// expected (in the report beside the model); each settled with resolve, the merge is committed
// and the model is one Archi opens.
func TestMergeDriver_GitConflictsResolved(t *testing.T) {
	expected, found, resolved := 0, 0, 0
	emf := newEMFBatch(t)
	for _, path := range testenv.CorpusModels(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			base, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cases := mergecase.Cases(mergecase.Load(t, base))
			if len(cases) == 0 {
				return
			}
			if filepath.Base(path) != "Archisurance.archimate" {
				// one model through every case, the others through a field, a deletion against a
				// reference and a diagram object's bounds (the model layer's test runs them all)
				cases = slices.DeleteFunc(cases, func(c mergecase.Case) bool {
					return c.Name != "rename" && c.Name != "deleted and related" && c.Name != "bounds"
				})
			}
			r := newGitRepo(t, base)
			loads, canonical := emfSays(t, path)
			for i, c := range cases {
				if len(c.Want) == 0 {
					continue
				}
				a1, _, err1 := mergecase.Applied(t, base, mergecase.Plan(c.P1...))
				a2, _, err2 := mergecase.Applied(t, base, mergecase.Plan(c.P2...))
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				n := strconv.Itoa(i)
				r.commit("ours-"+n, a1)
				r.commit("theirs-"+n, a2)
				r.git("checkout", "-q", "ours-"+n)
				out := r.run(true, "git", "merge", "--no-edit", "theirs-"+n)
				report, err := os.ReadFile(filepath.Join(r.dir, "model.archimate.conflicts.txt"))
				if err != nil {
					t.Fatalf("%s: no report: %v\n%s", c.Name, err, out)
				}
				if !bytes.Equal(r.model(), a1) {
					t.Fatalf("%s: the model is not left as ours", c.Name)
				}
				expected += len(c.Want)
				list := r.run(false, "archiplan", "resolve")
				for _, k := range c.Want {
					id, field, _ := strings.Cut(k, " ")
					if !strings.Contains(string(report), "("+id+") "+field+":") || !strings.Contains(list, "("+id+") "+field+":") {
						t.Fatalf("%s: the report does not name %s:\n%s\n%s", c.Name, k, report, list)
					}
				}
				found += strings.Count(list, "\n  base:")
				if strings.Count(list, "\n  base:") != len(c.Want) {
					t.Fatalf("%s: %d conflicts, want %d:\n%s", c.Name, strings.Count(list, "\n  base:"), len(c.Want), list)
				}
				for _, k := range c.Want {
					id, _, _ := strings.Cut(k, " ")
					r.run(false, "archiplan", "resolve", id, "--theirs")
				}
				if _, err := os.Stat(filepath.Join(r.dir, "model.archimate.conflicts.txt")); err == nil {
					t.Fatalf("%s: the report stays once resolved", c.Name)
				}
				r.git("commit", "-q", "--no-edit")
				if st := r.git("status", "--porcelain"); st != "" {
					t.Fatalf("%s: after the commit: %s", c.Name, st)
				}
				emf.add(t, t.Name()+"-"+n, r.model(), loads, canonical)
				if err := archixml.Check(mergecase.Load(t, r.model())); err != nil {
					t.Fatal(err)
				}
				resolved++
			}
		})
	}
	emf.run(t)
	t.Logf("conflicts through git: %d expected, %d found; %d merges resolved and committed", expected, found, resolved)
}

// Two people edit in Archi on two branches (the files as Archi writes them): one renames an
// element and gives it a property, the other moves the element's figure on a view and renames
// another element. A plain git merge through the driver gives both people's edits, in the file
// Archi writes.
func TestMergeDriver_HandEdits(t *testing.T) {
	path := corpusModel(t, "archi/Archisurance.archimate")
	base, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(s string, pairs ...string) []byte {
		for i := 0; i < len(pairs); i += 2 {
			if !strings.Contains(s, pairs[i]) {
				t.Fatalf("no %q in the model", pairs[i])
			}
			s = strings.Replace(s, pairs[i], pairs[i+1], 1)
		}
		return []byte(s)
	}
	rename := []string{`<element xsi:type="archimate:BusinessRole" name="Insurant" id="1368"/>`,
		"<element xsi:type=\"archimate:BusinessRole\" name=\"Policy holder\" id=\"1368\">\n        <property key=\"Owner\" value=\"Sales\"/>\n      </element>"}
	move := []string{`<bounds x="220" y="43" width="90" height="40"/>`, `<bounds x="260" y="80" width="120" height="55"/>`,
		`name="Customer" id="521"`, `name="Client" id="521"`}
	alice := edit(string(base), rename...)
	bob := edit(string(base), move...)
	want := edit(string(alice), move...)

	r := newGitRepo(t, base)
	r.commit("alice", alice)
	r.commit("bob", bob)
	r.git("checkout", "-q", "alice")
	r.git("merge", "-q", "--no-edit", "bob")
	if got := r.model(); !bytes.Equal(got, want) {
		t.Fatalf("the merge: %s", firstDifference(got, want))
	}
	loads, canonical := emfSays(t, path)
	emf := newEMFBatch(t)
	emf.add(t, "hand-edits", r.model(), loads, canonical)
	emf.run(t)
}

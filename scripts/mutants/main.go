// Command mutants is archiplan's mutation run: it puts small, realistic bugs (mutants) into the
// code that guards a promise, one at a time, into a temporary copy of the tree (never the working
// tree), runs the tests the list names for each, and says which mutants the tests killed and
// which survived. A surviving mutant is a guard no test holds.
//
//	go run ./scripts/mutants                 # every mutant of scripts/mutants/mutants.txt
//	go run ./scripts/mutants -only 'inbox/'  # those whose id matches
//	go run ./scripts/mutants -check          # only check the list against the tree
//
// The list is checked first: each mutant's old text must be found exactly once in its file, so
// that when the code moves the list fails loudly (TestList does the same in `go test ./...`).
// Before the mutants, the tests they name run once on the unchanged copy: a test that fails
// anyway kills nothing.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// Outcome of one mutant.
const (
	Killed   = "killed"
	Survived = "survived"
	Invalid  = "invalid" // does not build: a mistake in the list, not a kill
)

type result struct {
	m       Mutant
	outcome string
	by      string // the test command (and failing test) that killed it
	took    time.Duration
	timeout bool
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mutants", flag.ContinueOnError)
	fs.SetOutput(stderr)
	list := fs.String("list", "scripts/mutants/mutants.txt", "the list of mutants, from the repository's root")
	only := fs.String("only", "", "run only the mutants whose id matches this regular expression")
	checkOnly := fs.Bool("check", false, "only check the list against the tree (each old text found exactly once)")
	noBaseline := fs.Bool("no-baseline", false, "skip running the listed tests on the unchanged tree first")
	timeout := fs.Duration("timeout", 10*time.Minute, "go test -timeout for each test command")
	keep := fs.Bool("keep", false, "keep the temporary copy (its path is printed)")
	out := fs.String("o", "", "also write the results as tab-separated lines to this file")
	every := fs.Bool("every", false, "run every test command of each mutant: killed only when each one fails (to check that the end-to-end tests bite as well as the narrow ones)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(stderr, "mutants:", err)
		return 2
	}
	data, err := os.ReadFile(filepath.Join(root, *list))
	if err != nil {
		fmt.Fprintln(stderr, "mutants:", err)
		return 2
	}
	ms, err := parseList(data)
	if err != nil {
		fmt.Fprintf(stderr, "mutants: %s:\n%v\n", *list, err)
		return 2
	}
	if problems := check(root, ms); len(problems) > 0 {
		fmt.Fprintf(stderr, "mutants: %s does not match the tree:\n  %s\n", *list, strings.Join(problems, "\n  "))
		return 2
	}
	if ms, err = selected(ms, *only); err != nil {
		fmt.Fprintln(stderr, "mutants: -only:", err)
		return 2
	}
	if *checkOnly {
		fmt.Fprintf(stdout, "%d mutants, each old text found once\n", len(ms))
		return 0
	}
	if len(ms) == 0 {
		fmt.Fprintln(stderr, "mutants: no mutant selected")
		return 2
	}

	tmp, err := os.MkdirTemp("", "archiplan-mutants-")
	if err != nil {
		fmt.Fprintln(stderr, "mutants:", err)
		return 2
	}
	if *keep {
		fmt.Fprintln(stdout, "copy:", tmp)
	} else {
		defer os.RemoveAll(tmp)
		// an interrupted run leaves no copy behind (the go test it runs is interrupted with it)
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-sig
			os.RemoveAll(tmp)
			os.Exit(130)
		}()
	}
	if err := copyTree(root, tmp); err != nil {
		fmt.Fprintln(stderr, "mutants: copy the tree:", err)
		return 2
	}
	env := testEnv(root)
	start := time.Now()

	if !*noBaseline && !baseline(tmp, env, ms, *timeout, stdout, stderr) {
		return 2
	}

	var results []result
	for i, m := range ms {
		r := mutate(tmp, env, m, *timeout, *every)
		results = append(results, r)
		by := r.by
		if r.timeout {
			by += " (timeout)"
		}
		fmt.Fprintf(stdout, "%3d/%d %-8s %6.1fs  %s  %s\n", i+1, len(ms), r.outcome, r.took.Seconds(), m.ID, by)
	}
	total := time.Since(start)

	if !report(stdout, stderr, results, total, *out) {
		return 1
	}
	return 0
}

// selected is the mutants of ms whose id matches the regular expression only (all of them when
// only is empty).
func selected(ms []Mutant, only string) ([]Mutant, error) {
	if only == "" {
		return ms, nil
	}
	re, err := regexp.Compile(only)
	if err != nil {
		return nil, err
	}
	var sel []Mutant
	for _, m := range ms {
		if re.MatchString(m.ID) {
			sel = append(sel, m)
		}
	}
	return sel, nil
}

// baseline runs each test command of ms once on the unchanged copy tmp: each must pass and run a
// test, or it could not tell a mutant.
func baseline(tmp string, env []string, ms []Mutant, timeout time.Duration, stdout, stderr io.Writer) bool {
	done := map[string]bool{}
	for _, m := range ms {
		for _, t := range m.Tests {
			key := strings.Join(t, " ")
			if done[key] {
				continue
			}
			done[key] = true
			t0 := time.Now()
			failed, _, outp := goTest(tmp, env, append([]string{"-v"}, t...), timeout)
			if failed {
				fmt.Fprintf(stderr, "mutants: the tests fail without a mutant: go test %s\n%s\n", key, tail(outp, 40))
				return false
			}
			if !ranTests(t, outp) {
				fmt.Fprintf(stderr, "mutants: go test %s runs no test: a filter that matches nothing kills nothing\n", key)
				return false
			}
			fmt.Fprintf(stdout, "baseline ok  %6.1fs  go test %s\n", time.Since(t0).Seconds(), key)
		}
	}
	return true
}

// report prints the score and the mutants not killed, and writes the results to out when it is
// named; it reports whether every mutant was killed.
func report(stdout, stderr io.Writer, results []result, total time.Duration, out string) bool {
	count := map[string]int{}
	for _, r := range results {
		count[r.outcome]++
	}
	fmt.Fprintf(stdout, "\nscore: %d of %d mutants killed (%.0f%%), %d survived, %d invalid; %s in all (%s with the baseline)\n",
		count[Killed], len(results), 100*float64(count[Killed])/float64(len(results)), count[Survived], count[Invalid],
		sum(results).Round(time.Second), total.Round(time.Second))
	for _, r := range results {
		if r.outcome != Killed {
			fmt.Fprintf(stdout, "  %s: %s (%s, list line %d): %s\n", r.outcome, r.m.ID, r.m.File, r.m.Line, r.m.Why)
		}
	}
	if out != "" {
		var b strings.Builder
		b.WriteString("id\toutcome\tseconds\tfile\tkilled_by\n")
		for _, r := range results {
			fmt.Fprintf(&b, "%s\t%s\t%.1f\t%s\t%s\n", r.m.ID, r.outcome, r.took.Seconds(), r.m.File, r.by)
		}
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			fmt.Fprintln(stderr, "mutants:", err)
		}
	}
	return count[Killed] == len(results)
}

func sum(rs []result) time.Duration {
	var d time.Duration
	for _, r := range rs {
		d += r.took
	}
	return d
}

// mutate puts one mutant into the copy, runs its tests, and puts the file back.
func mutate(tmp string, env []string, m Mutant, timeout time.Duration, every bool) (r result) {
	r = result{m: m, outcome: Survived}
	t0 := time.Now()
	defer func() { r.took = time.Since(t0) }()
	for _, f := range m.Files() {
		path := filepath.Join(tmp, filepath.FromSlash(f))
		orig, err := os.ReadFile(path)
		if err != nil {
			r.outcome, r.by = Invalid, err.Error()
			return r
		}
		defer func() {
			if err := os.WriteFile(path, orig, 0o644); err != nil {
				panic(fmt.Sprintf("restore %s: %v", path, err)) // the copy is no longer the tree: stop
			}
		}()
		if err := os.WriteFile(path, []byte(m.apply(f, string(orig))), 0o644); err != nil {
			r.outcome, r.by = Invalid, err.Error()
			return r
		}
	}
	var by []string
	for _, t := range m.Tests {
		failed, timedOut, outp := goTest(tmp, env, t, timeout)
		if failed && buildFailed(outp) {
			r.outcome, r.by = Invalid, "does not build: "+firstErrorLine(outp)
			return r
		}
		if !failed {
			if every {
				r.outcome, r.by = Survived, "go test "+strings.Join(t, " ")+" passes"
				return r
			}
			continue
		}
		r.timeout = r.timeout || timedOut
		b := "go test " + strings.Join(t, " ")
		if names := failedTests(outp); len(names) > 0 {
			b += " (" + strings.Join(names, ", ") + ")"
		}
		by = append(by, b)
		if !every {
			break
		}
	}
	if len(by) > 0 {
		r.outcome, r.by = Killed, strings.Join(by, "; ")
	}
	return r
}

var passRE = regexp.MustCompile(`(?m)^\s*--- PASS: (\S+)`)

// ranTests says whether a verbose run of a test command ran a test its filter names: a test at
// least as deep as the filter (a filter on subtests must run a subtest).
func ranTests(args []string, out string) bool {
	depth := 0
	for i, a := range args {
		if a == "-run" && i+1 < len(args) {
			depth = strings.Count(args[i+1], "/")
		}
	}
	for _, m := range passRE.FindAllStringSubmatch(out, -1) {
		if strings.Count(m[1], "/") >= depth {
			return true
		}
	}
	return false
}

// goTest runs one test command in the copy: whether it failed, whether it timed out, its output.
func goTest(dir string, env, args []string, timeout time.Duration) (failed, timedOut bool, out string) {
	cmd := exec.Command("go", append([]string{"test", "-count=1", "-timeout", timeout.String()}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	out = b.String()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return true, false, out + "\n" + err.Error()
	}
	return err != nil, strings.Contains(out, "panic: test timed out"), out
}

var failRE = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)

func failedTests(out string) []string {
	var names []string
	for _, m := range failRE.FindAllStringSubmatch(out, 4) {
		names = append(names, m[1])
	}
	return names
}

func buildFailed(out string) bool {
	return strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]")
}

func firstErrorLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, ".go:") {
			return strings.TrimSpace(l)
		}
	}
	return tail(out, 1)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// repoRoot is the root of the git work tree the command runs in.
func repoRoot() (string, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("not inside the repository: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// copyTree copies the files git knows of (tracked, and untracked ones not ignored: work in
// progress is mutated as it is) from root to dst.
func copyTree(root, dst string) error {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return err
	}
	for _, rel := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if rel == "" {
			continue
		}
		src, to := filepath.Join(root, rel), filepath.Join(dst, rel)
		fi, err := os.Lstat(src)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(src)
			if err != nil {
				return err
			}
			if err := os.Symlink(target, to); err != nil {
				return err
			}
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(src)
			if err != nil {
				return err
			}
			if err := os.WriteFile(to, data, fi.Mode().Perm()); err != nil {
				return err
			}
		}
	}
	return nil
}

// testEnv is the environment of the tests: this one, with the paths the tests read from the
// repository's root (ARCHIPLAN_CORPUS, ARCHI_EMF) made absolute, since they run in the copy.
func testEnv(root string) []string {
	env := os.Environ()
	for i, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if (k == "ARCHIPLAN_CORPUS" || k == "ARCHI_EMF") && v != "" && !filepath.IsAbs(v) {
			env[i] = k + "=" + filepath.Join(root, v)
		}
	}
	return env
}

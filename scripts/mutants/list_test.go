package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The list matches the tree: every old text is found exactly once in its file. When code moves,
// this fails in the ordinary test run, so the list follows the code instead of rotting.
func TestList(t *testing.T) {
	data, err := os.ReadFile("mutants.txt")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := parseList(data)
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if problems := check(root, ms); len(problems) > 0 {
		t.Fatalf("scripts/mutants/mutants.txt does not match the tree:\n%s", strings.Join(problems, "\n"))
	}
	if len(ms) < 36 {
		t.Fatalf("%d mutants; the list holds at least the 36 kinds of issue 26", len(ms))
	}
}

func TestParseList(t *testing.T) {
	src := `# a comment
=== a/one
why: w
file: x.go
test: ./pkg -run '^TestA$|^TestB$'
old: if a > b {
new: if a >= b {
old: c := 1
new: c := 2

=== a/two
file: y.go
test: ./p
test: ./q -run X
--- old
	x := 1

	return x

--- new
	return 0
# a comment line ends the block; a file: line after an edit names the next edits' file
file: z.go
old: a
new: b
`
	ms, err := parseList([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Mutant{
		{ID: "a/one", Why: "w", File: "x.go", Edits: []Edit{{"", "if a > b {", "if a >= b {"}, {"", "c := 1", "c := 2"}}, Tests: [][]string{{"./pkg", "-run", "^TestA$|^TestB$"}}, Line: 2},
		{ID: "a/two", File: "y.go", Edits: []Edit{{"", "\tx := 1\n\n\treturn x\n", "\treturn 0\n"}, {"z.go", "a", "b"}}, Tests: [][]string{{"./p"}, {"./q", "-run", "X"}}, Line: 11},
	}
	if !reflect.DeepEqual(ms, want) {
		t.Fatalf("got  %#v\nwant %#v", ms, want)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x.go"), []byte("if a > b {\nif a > b {\n"), 0o644)
	if p := check(dir, ms); len(p) != 4 || !strings.Contains(p[0], "edit 1 is found 2 times") || !strings.Contains(p[1], "edit 2 is found 0 times") ||
		!strings.Contains(p[2], "y.go: no such file") || !strings.Contains(p[3], "z.go: no such file") {
		t.Fatalf("check: %q", p)
	}
	if got := ms[0].apply("x.go", "x\nif a > b {\nc := 1\n"); got != "x\nif a >= b {\nc := 2\n" {
		t.Fatalf("apply: %q", got)
	}
	if got := ms[1].Files(); len(got) != 2 || got[1] != "z.go" || ms[1].apply("z.go", "a a") != "b a" || ms[1].apply("y.go", "a") != "a" {
		t.Fatalf("a second file: %v", got)
	}
	if _, err := parseList([]byte("=== x\nbogus line\n")); err == nil {
		t.Fatal("a line that is no field was accepted")
	}
}

// A filter that runs no test (or, on subtests, only their parent) is caught before it is trusted.
func TestRanTests(t *testing.T) {
	out := "=== RUN   TestScripts\n    --- PASS: TestScripts/apply (1.00s)\n--- PASS: TestScripts (1.00s)\n"
	for _, c := range []struct {
		args []string
		out  string
		want bool
	}{
		{[]string{"./p", "-run", "^TestScripts$/^apply$"}, out, true},
		{[]string{"./p", "-run", "^TestScripts$/^nothing$"}, "--- PASS: TestScripts (0.00s)\n", false},
		{[]string{"./p", "-run", "^TestX$"}, "ok  \tp\t0.1s [no tests to run]\n", false},
		{[]string{"./p"}, "--- PASS: TestY (0.00s)\n", true},
	} {
		if got := ranTests(c.args, c.out); got != c.want {
			t.Errorf("ranTests(%q) = %v", c.args, got)
		}
	}
}

package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MaxFuncLines is the most lines a function of the module may have, from its func keyword to its
// closing brace (issue 41: a function longer than a screenful does more than one thing), unless
// it is a table.
const MaxFuncLines = 100

// TestFunctionLength fails for each function (or method) of the module's own code, tests,
// testdata and third_party left out, longer than MaxFuncLines, unless its doc comment has a line
// starting "table:" saying why it is one (a table of ops or cases read row by row, not steps).
func TestFunctionLength(t *testing.T) {
	long, err := longFuncs(rootDir(), MaxFuncLines)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range long {
		t.Errorf("%s: split it into named steps, or mark a table with a doc comment line \"table: why\"", f)
	}
}

// TestLongFuncs holds longFuncs to a case of each kind: long, long table, short.
func TestLongFuncs(t *testing.T) {
	dir := t.TempDir()
	body := strings.Repeat("\tx++\n", 5)
	src := "package p\n\nvar x int\n\n" +
		"func long() {\n" + body + "}\n\n" +
		"// table: a row per case\nfunc table() {\n" + body + "}\n\n" +
		"func short() {\n\tx++\n}\n"
	if err := writeFile(filepath.Join(dir, "p.go"), src); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(filepath.Join(dir, "p_test.go"), "package p\n\nfunc longTest() {\n"+body+"}\n"); err != nil {
		t.Fatal(err)
	}
	long, err := longFuncs(dir, 6)
	if err != nil {
		t.Fatal(err)
	}
	if len(long) != 1 || !strings.HasSuffix(long[0], "p.go:5: long is 7 lines") {
		t.Errorf("long functions %q, want long's alone", long)
	}
}

// longFuncs lists the functions of the Go files under root (tests, testdata, third_party and
// hidden folders left out) longer than max lines and not marked as tables.
func longFuncs(root string, max int) ([]string, error) {
	var long []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "third_party" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil || isTable(fn.Doc) {
				continue
			}
			start, end := fset.Position(fn.Pos()), fset.Position(fn.End())
			if n := end.Line - start.Line + 1; n > max {
				long = append(long, fmt.Sprintf("%s:%d: %s is %d lines", filepath.ToSlash(path), start.Line, fn.Name.Name, n))
			}
		}
		return nil
	})
	return long, err
}

// isTable says whether a doc comment marks its function as a table: a line starting "table:".
func isTable(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for _, line := range strings.Split(doc.Text(), "\n") {
		if strings.HasPrefix(line, "table:") {
			return true
		}
	}
	return false
}

func writeFile(name, text string) error { return os.WriteFile(name, []byte(text), 0o644) }

// rootDir is the module's root, or WALK_ROOT's tree when set (to check another checkout).
func rootDir() string {
	if d := os.Getenv("WALK_ROOT"); d != "" {
		return d
	}
	return "../.."
}

package plans

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// articleVerb is an article written before a value: "a %s" is "a Access" or "a AccessRelationship"
// for some values; the article must come with the words (article, aType).
var articleVerb = regexp.MustCompile(`(^|[^A-Za-z])[Aa]n? %[-+# 0-9.]*[sqv]`)

// Every message template of plans and archixml (each call with a format: findings, errors,
// descriptions) names types by their labels with the right article: no article is written before
// a value, and no Archi class name (o.Class(), class(e)) is printed as it is.
func TestMessages_LabelsAndArticles(t *testing.T) {
	var files []string
	for _, dir := range []string{".", "../archixml", "archicli"} {
		fs, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range fs {
			if !strings.HasSuffix(f, "_test.go") {
				files = append(files, f)
			}
		}
	}
	fset := token.NewFileSet()
	templates := 0
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			format := -1
			for i, arg := range call.Args {
				if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && strings.Contains(s, "%") {
						format = i
						templates++
						if articleVerb.MatchString(s) {
							t.Errorf("%s: %q writes an article before a value: use article() or aType()", fset.Position(lit.Pos()), s)
						}
					}
				}
			}
			if format < 0 {
				return true
			}
			for _, arg := range call.Args[format+1:] {
				if c, ok := arg.(*ast.CallExpr); ok {
					switch fn := c.Fun.(type) {
					case *ast.SelectorExpr:
						if fn.Sel.Name == "Class" {
							t.Errorf("%s: a message prints an Archi class name: use archixml.TypeWords", fset.Position(c.Pos()))
						}
					case *ast.Ident:
						if fn.Name == "class" {
							t.Errorf("%s: a message prints an Archi class name: use TypeWords", fset.Position(c.Pos()))
						}
					}
				}
			}
			return true
		})
	}
	if templates < 100 {
		t.Fatalf("found only %d message templates: the scan misses them", templates)
	}
}

// The messages the issue quoted, as they read now.
func TestMessages_Read(t *testing.T) {
	m := exampleModel(t)
	o := Check([]byte(ids(t, m, plan3(`{"op":"create_relationship","source_id":"{RentaBike}","target_id":"{BikeRental}","relationship_type":"Flow","directed":true}`))), m, Options{})
	want := "directed is for an Association relationship, not a Flow relationship"
	for _, f := range o.Errors() {
		if f.Code == FieldNotForType {
			if f.Message != want {
				t.Fatalf("%q, want %q", f.Message, want)
			}
			return
		}
	}
	t.Fatalf("no %s: %v", FieldNotForType, o.Findings)
}

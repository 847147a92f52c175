package planctx

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/archiplan/archiplan/archixml"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/golden/name, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./plans/planctx -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from its golden file (go test ./plans/planctx -update, then review the diff):\n%s", name, got)
	}
}

// exampleModel is the built-in example model as committed in testdata.
func exampleModel(t testing.TB) *archixml.Model {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "models", "example.archimate"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := archixml.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// ids replaces {Name} placeholders with the ids of the example model's objects: element names
// without spaces ({Customer}, {BookingApp}), {View} for the view.
func ids(t testing.TB, m *archixml.Model, s string) string {
	t.Helper()
	var pairs []string
	for _, o := range append(m.Elements(), m.Views()...) {
		pairs = append(pairs, "{"+strings.ReplaceAll(o.Name(), " ", "")+"}", o.ID())
	}
	pairs = append(pairs, "{View}", m.Views()[0].ID())
	return strings.NewReplacer(pairs...).Replace(s)
}

package archixml

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// The example model is kept in testdata/models so that people can open it in Archi and tests of
// other packages can read it; it must stay what Example() builds.
func TestExample_Golden(t *testing.T) {
	got, err := Example().Save()
	must(t, err)
	path := filepath.Join("..", "testdata", "models", "example.archimate")
	if *update {
		must(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	must(t, err)
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale (go test ./archixml -run Golden -update): %s", path, firstDiff(want, got))
	}
}
